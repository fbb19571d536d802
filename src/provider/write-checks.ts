// What a write refuses about its planned values alone, before it asks the host anything: the
// operation's timeout, and the spec it would send (the codec's projection of the attributes, or
// an artifact-backed revision's authoring: its local files read, its manifest built). Create and
// update run these checks in "apply" mode; the plan runs the very same function in "plan" mode,
// where a value not yet known only leaves the spec unresolved. So what the apply would refuse
// about the configuration alone is refused at plan, with nothing written, and the two cannot
// drift apart (docs/provider.md §6, "Refused at plan").

import type { Attributes, Diagnostic } from "../core/index.ts";
import type { JsonObject } from "../forms/index.ts";
import type { FormCodec } from "../registry/index.ts";
import { artifactSurface, resolveArtifactAuthoring, type ArtifactAuthoring } from "./bundle/artifact.ts";
import { encodeSpec } from "./codec/encode.ts";
import { operationTimeout, type TimeoutAttribute } from "./timeouts.ts";

export interface CheckedWrite {
  /** The operation's bound; the default when the attribute is unset or refused. */
  timeoutMs: number;
  /** The spec to send, once every value it needs is known and nothing was refused. */
  spec?: JsonObject;
  /** An artifact-backed revision's authoring (unresolved at plan while something is unknown). */
  authoring?: ArtifactAuthoring;
  diagnostics: Diagnostic[];
}

/** The timeout and the spec of a write whose values are `values` (never changed here). */
export async function checkWrite(codec: FormCodec, values: Attributes, timeout: TimeoutAttribute, mode: "plan" | "apply"): Promise<CheckedWrite> {
  const bound = operationTimeout(values, timeout);
  const diagnostics: Diagnostic[] = bound.diagnostic !== undefined ? [bound.diagnostic] : [];
  const timeoutMs = bound.ms ?? operationTimeout({}, timeout).ms!;
  if (codec.artifactBacked) {
    const resolved = await resolveArtifactAuthoring(codec, values, mode);
    diagnostics.push(...resolved.diagnostics);
    const authoring = resolved.authoring;
    if (authoring === undefined || authoring.mode === "unresolved" || diagnostics.length > 0)
      return { timeoutMs, ...(authoring !== undefined ? { authoring } : {}), diagnostics };
    return { timeoutMs, spec: { manifestDigest: authoring.manifestDigest }, authoring, diagnostics };
  }
  const encoded = encodeSpec(codec, values, { mode });
  diagnostics.push(...encoded.errors);
  return { timeoutMs, ...(encoded.unresolved || diagnostics.length > 0 ? {} : { spec: encoded.spec }), diagnostics };
}

/** The attributes a write records for a resolved artifact authoring: its digest, and its list with sizes and digests. */
export function adoptAuthoring(codec: FormCodec, values: Attributes, authoring: ArtifactAuthoring | undefined): void {
  if (authoring === undefined || authoring.mode === "unresolved") return;
  values["manifest_digest"] = authoring.manifestDigest;
  if (authoring.mode === "local") values[artifactSurface(codec).list] = authoring.listValue;
}
