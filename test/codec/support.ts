// Test helpers for codecs, the generator and constructs: the bundled definitions as documents,
// synthetic definitions built from them, and the bundled generation model.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { JsonValue } from "../../src/forms/digest.ts";
import { readFormDefinition } from "../../src/forms/definition.ts";
import type { FormModel } from "../../src/forms/definition-types.ts";
import { parseStrictJson } from "../../src/forms/strict-json.ts";
import { buildModel, deriveCodec, type GenerationModel } from "../../src/generate/index.ts";
import type { CodecScalarType, FormCodec } from "../../src/registry/codec-types.ts";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const PACKAGES = fileURLToPath(new URL("../../registry/packages", import.meta.url));
export const EDGE = "edge.takoform-cdk.dev/v1alpha1";
export const OTHER = "other.takoform-cdk.dev/v1alpha1";
export const MESH = "mesh.takoform-cdk.dev/v1alpha1";
export const DIALECT = "https://json-schema.org/draft/2020-12/schema";

// Definitions are open-ended JSON documents; tests edit them structurally.
export type Doc = { [key: string]: any };

/** A bundled definition document, freshly parsed (safe to edit). */
export function bundledDoc(family: string, slug: string): Doc {
  return parseStrictJson(readFileSync(`${PACKAGES}/forms/${family}/v1alpha1/${slug}/definition.json`)) as Doc;
}

export function formOf(doc: Doc): FormModel {
  return readFormDefinition(doc as JsonValue, { file: "test/definition.json" });
}

export function codecOf(doc: Doc, slug?: string): FormCodec {
  return deriveCodec(formOf(doc), { file: "test/definition.json", directoryName: slug, packageDigest: null });
}

let cached: GenerationModel | undefined;

/** The bundled generation model (built once per test file). */
export function bundledModel(): GenerationModel {
  if (cached === undefined) {
    const result = buildModel({ formsDirs: [PACKAGES], displayBase: ROOT });
    if (result.model === null) throw new Error(result.problems.map((p) => p.message).join("\n"));
    cached = result.model;
  }
  return cached;
}

/**
 * One Form line of the bundled model, as the resource type serving it sees it: the type's name
 * and class, that line's own default codec and codecs (an Edge type serves a line per lane).
 */
export function line(kind: string, group = EDGE) {
  const type = bundledModel().lines.find((l) => l.kind === kind && l.lines.some((m) => m.apiVersion === group));
  const member = type?.lines.find((m) => m.apiVersion === group);
  if (type === undefined || member === undefined) throw new Error(`no line ${group} ${kind}`);
  return { ...type, apiVersion: group, defaultCodec: member.defaultCodec, codecs: type.codecs.filter((c) => c.ref.apiVersion === group) };
}

/** The default codec of a bundled line. */
export function codec(kind: string, group = EDGE): FormCodec {
  return line(kind, group).defaultCodec;
}

/** A minimal identity/attachment Form document with the given desired properties. */
export function syntheticDoc(
  kind: string,
  properties: Doc,
  options: { required?: string[]; update?: boolean; role?: string; immutable?: string[]; outputs?: Doc; group?: string; version?: string } = {},
): Doc {
  const doc: Doc = {
    apiVersion: options.group ?? "test.takoform-cdk.dev/v1alpha1",
    kind,
    definitionVersion: options.version ?? "0.1.0",
    title: kind,
    role: options.role ?? "identity",
    desiredSchema: { $schema: DIALECT, type: "object", additionalProperties: false, properties, ...(options.required ? { required: options.required } : {}) },
    lifecycleCapabilities: options.update ? ["create", "read", "update", "delete", "import", "observe"] : ["create", "read", "delete", "import", "observe"],
  };
  if (options.immutable) doc.immutableFields = options.immutable;
  else if (!options.update && options.role !== "revision" && Object.keys(properties).length > 0)
    doc.immutableFields = Object.keys(properties).map((p) => `/${p}`);
  if (options.outputs) {
    doc.outputSchema = { $schema: DIALECT, type: "object", additionalProperties: false, properties: options.outputs, required: Object.keys(options.outputs) };
  }
  return doc;
}

/**
 * A value a field of this scalar type admits, for tests that fill every field: the minimum or
 * 1, the first enum member or "X" (upper case, so it also passes as a binding name), a target name.
 */
export function sampleScalar(type: CodecScalarType): boolean | number | string {
  switch (type.kind) {
    case "bool":
      return true;
    case "integer":
      return type.minimum ?? 1;
    case "string":
      return type.enum?.[0] ?? "X";
    case "ref":
      return "target";
  }
}
