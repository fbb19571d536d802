// WorkerBundle at apply, import and commit: the manifest is resolved in the CALLER's tenant (a
// digest is not a capability: one only another tenant holds is missing here), it must still be
// canonical to its digest, decode, and be a WorkerBundle manifest (mainModule + modules). The
// upload-time manifest rules belong to the artifact protocol and ran when it was committed.

import { HostError } from "../../errors.ts";
import { canonicalJson, digestBytes, type JsonValue } from "../../../forms/index.ts";
import type { WireSupportProfile } from "../../../core/index.ts";
import type { FormRules, MutationContext, RuleHost } from "../types.ts";

function checkManifest(ctx: MutationContext): void {
  const digest = ctx.spec.manifestDigest;
  if (typeof digest !== "string") return;
  const label = `WorkerBundle "${ctx.name}"`;
  const text = ctx.view.manifest(digest);
  if (text === undefined) {
    throw new HostError("artifact_missing", `${label}: manifest ${digest} is not committed in this tenant; upload and commit it, then apply`, {
      hostCode: "manifest_missing",
    });
  }
  let manifest: JsonValue;
  try {
    manifest = JSON.parse(text) as JsonValue;
  } catch {
    throw new HostError("artifact_invalid", `${label}: the stored manifest ${digest} does not decode as JSON`, { hostCode: "manifest_undecodable" });
  }
  if (digestBytes(canonicalJson(manifest)) !== digest) {
    throw new HostError("artifact_invalid", `${label}: the stored manifest is not canonical to its digest ${digest}`, { hostCode: "manifest_digest_mismatch" });
  }
  if (manifest === null || typeof manifest !== "object" || Array.isArray(manifest) || manifest.kind !== "WorkerBundle") {
    const kind = manifest !== null && typeof manifest === "object" && !Array.isArray(manifest) ? String(manifest.kind) : typeof manifest;
    throw new HostError("artifact_invalid", `${label}: manifest ${digest} is a ${kind} manifest; a WorkerBundle needs a WorkerBundle manifest`, {
      hostCode: "manifest_wrong_kind",
    });
  }
  if (typeof manifest.mainModule !== "string" || !Array.isArray(manifest.modules)) {
    throw new HostError("artifact_invalid", `${label}: manifest ${digest} carries no mainModule and modules`, { hostCode: "manifest_undecodable" });
  }
}

/** Publishes the bundle size ceiling the artifact protocol enforces. */
export function withLimit(host: RuleHost, profile: WireSupportProfile): WireSupportProfile {
  return { ...profile, limits: { ...(profile.limits ?? {}), maximumBundleBytes: host.maximumBundleBytes } };
}

export function workerBundleRules(host: RuleHost): FormRules {
  return {
    checkMutation: checkManifest,
    supportProfile: (profile) => withLimit(host, profile),
  };
}
