// The desired spec a write sends under one exact ref: the codec projection of the planned
// attributes, or, for an artifact-backed revision, `{manifestDigest}` resolved from its authoring
// (a bare digest, or local files whose manifest — of the codec's manifest kind — is computed here
// and uploaded by the caller).

import type { Attributes, Diagnostic } from "../../core/index.ts";
import type { JsonObject } from "../../forms/index.ts";
import type { FormCodec } from "../../registry/index.ts";
import { artifactSurface, resolveArtifactAuthoring, type ArtifactAuthoring } from "../bundle/artifact.ts";
import { encodeSpec } from "../codec/encode.ts";

/** The spec a write sends, and the artifact authoring behind it. */
export async function buildSpec(codec: FormCodec, values: Attributes): Promise<{ spec: JsonObject; authoring?: ArtifactAuthoring; diagnostics: Diagnostic[] }> {
  if (codec.artifactBacked) {
    const { authoring, diagnostics } = await resolveArtifactAuthoring(codec, values, "apply");
    if (authoring === undefined || authoring.mode === "unresolved") return { spec: {}, diagnostics };
    values["manifest_digest"] = authoring.manifestDigest;
    if (authoring.mode === "local") values[artifactSurface(codec).list] = authoring.listValue;
    return { spec: { manifestDigest: authoring.manifestDigest }, authoring, diagnostics };
  }
  const encoded = encodeSpec(codec, values, { mode: "apply" });
  return { spec: encoded.spec, diagnostics: encoded.errors };
}
