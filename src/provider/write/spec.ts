// The desired spec a write sends under one exact ref: the codec projection of the planned
// attributes, or, for an artifact-backed revision, `{manifestDigest}` resolved from its authoring
// (a bare digest, or local module files whose manifest is computed here and uploaded by the caller).

import type { Attributes, Diagnostic } from "../../core/index.ts";
import type { JsonObject } from "../../forms/index.ts";
import type { FormCodec } from "../../registry/index.ts";
import { modulesValue, resolveBundleAuthoring, type BundleAuthoring } from "../bundle/authoring.ts";
import { encodeSpec } from "../codec/encode.ts";

/** The spec a write sends, and the bundle authoring behind it. */
export async function buildSpec(codec: FormCodec, values: Attributes): Promise<{ spec: JsonObject; authoring?: BundleAuthoring; diagnostics: Diagnostic[] }> {
  if (codec.artifactBacked) {
    const { authoring, diagnostics } = await resolveBundleAuthoring(values, "apply");
    if (authoring === undefined || authoring.mode === "unresolved") return { spec: {}, diagnostics };
    values["manifest_digest"] = authoring.manifestDigest;
    if (authoring.mode === "local") values["modules"] = modulesValue(authoring.modules);
    return { spec: { manifestDigest: authoring.manifestDigest }, authoring, diagnostics };
  }
  const encoded = encodeSpec(codec, values, { mode: "apply" });
  return { spec: encoded.spec, diagnostics: encoded.errors };
}
