// The artifact-backed revisions — WorkerBundle, StaticAssetBundle, SQLiteMigrationSet — at apply,
// import and commit (reference v1beta1 §7.1): the Form's whole desired state is one manifest
// digest, resolved in the CALLER's tenant before any mutation (a digest is not a capability: one
// only another tenant holds is missing here). The stored manifest must still be canonical to its
// digest, be of the kind the Form requires (protocol.ts ARTIFACT_MANIFEST_KIND: a
// SQLiteMigrationSet needs a MigrationBundle), and pass the lane's manifest rules again — its
// ceilings and media policy may be stricter than those of the lane that accepted the upload.
//
// Support profiles of these Forms publish the lane's ceilings: maximumBundleBytes, and
// maximumBundleFiles on a lane that has it (§7.4).

import { HostError } from "../../errors.ts";
import { canonicalJson, digestBytes, type JsonValue } from "../../../forms/index.ts";
import { ARTIFACT_MANIFEST_KIND, type WireArtifactManifest, type WireSupportProfile } from "../../../core/index.ts";
import { validateManifest } from "../../artifacts/manifest.ts";
import type { ArtifactPolicy } from "../../artifacts/policy.ts";
import type { FormRules, MutationContext, RuleHost, RuleView } from "../types.ts";

/**
 * The committed manifest `digest` names, as a resource of `formKind` needs it; refuses with the
 * portable code otherwise. `subject` names the resource for the message.
 */
export function requireManifest(view: RuleView, policy: ArtifactPolicy, digest: string, formKind: string, subject: string): WireArtifactManifest {
  const wanted = ARTIFACT_MANIFEST_KIND[formKind] ?? "WorkerBundle";
  const text = view.manifest(digest);
  if (text === undefined) {
    throw new HostError("artifact_missing", `${subject}: manifest ${digest} is not committed in this tenant; upload and commit it, then apply`, {
      hostCode: "manifest_missing",
    });
  }
  let manifest: JsonValue;
  try {
    manifest = JSON.parse(text) as JsonValue;
  } catch {
    throw new HostError("artifact_invalid", `${subject}: the stored manifest ${digest} does not decode as JSON`, { hostCode: "manifest_undecodable" });
  }
  if (digestBytes(canonicalJson(manifest)) !== digest) {
    throw new HostError("artifact_invalid", `${subject}: the stored manifest is not canonical to its digest ${digest}`, {
      hostCode: "manifest_digest_mismatch",
    });
  }
  const kind = manifest !== null && typeof manifest === "object" && !Array.isArray(manifest) ? String(manifest.kind) : typeof manifest;
  if (kind !== wanted) {
    throw new HostError("artifact_invalid", `${subject}: manifest ${digest} is a ${kind} manifest; a ${formKind} needs a ${wanted} manifest`, {
      hostCode: "manifest_wrong_kind",
    });
  }
  try {
    return validateManifest(manifest, policy).manifest;
  } catch (error) {
    if (!(error instanceof HostError)) throw error;
    throw new HostError("artifact_invalid", `${subject}: manifest ${digest} breaks this lane's manifest rules: ${error.message}`, {
      hostCode: "manifest_invalid",
    });
  }
}

function checkManifest(host: RuleHost, ctx: MutationContext): void {
  const digest = ctx.spec.manifestDigest;
  if (typeof digest !== "string") return;
  requireManifest(ctx.view, host.artifacts, digest, ctx.form.ref.kind, `${ctx.form.ref.kind} "${ctx.name}"`);
}

/** Publishes the lane's artifact ceilings for a Form (WorkerVersion publishes the byte ceiling too). */
export function withLimit(host: RuleHost, profile: WireSupportProfile): WireSupportProfile {
  const kind = profile.formRef?.kind ?? "";
  return { ...profile, limits: { ...(profile.limits ?? {}), ...host.artifacts.profileLimits(kind) } };
}

/** Rules of one artifact-backed Form kind (every kind of ARTIFACT_MANIFEST_KIND). */
export function artifactBackedRules(host: RuleHost): FormRules {
  return {
    checkMutation: (ctx) => checkManifest(host, ctx),
    supportProfile: (profile) => withLimit(host, profile),
  };
}
