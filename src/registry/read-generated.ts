// Reading a project's generated registry (`takoform get --forms DIR` writes
// <project>/.gen/takoform/registry.gen.json). It is plain JSON so that the `takoform` command
// loads it with no TypeScript loader and a project needs no build step; its shape is checked
// here, since the file sits in the user's tree and may be edited, truncated or older than this
// build.

import { readFileSync } from "node:fs";
import { RegistryError } from "./errors.ts";
import { GENERATED_REGISTRY_FORMAT, type GeneratedRegistry } from "./generated-types.ts";

const REF_MEMBERS = ["apiVersion", "kind", "definitionVersion", "schemaDigest"] as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isRef(value: unknown): boolean {
  return isObject(value) && REF_MEMBERS.every((m) => typeof value[m] === "string");
}

/** The first thing wrong with the document's shape, or null. */
function shapeProblem(doc: Record<string, unknown>): string | null {
  if (
    !Array.isArray(doc.supported) ||
    !doc.supported.every(
      (r) => isRef(r) && (typeof (r as Record<string, unknown>).packageDigest === "string" || (r as Record<string, unknown>).packageDigest === null),
    )
  ) {
    return "supported must be a list of exact FormRefs with their package digests";
  }
  if (!Array.isArray(doc.defaultCreates) || !doc.defaultCreates.every(isRef)) return "defaultCreates must be a list of exact FormRefs";
  if (!Array.isArray(doc.types) || !doc.types.every((t) => isObject(t) && ["type", "apiVersion", "kind", "className"].every((m) => typeof t[m] === "string"))) {
    return "types must be a list of {type, apiVersion, kind, className}";
  }
  if (!isObject(doc.codecs) || !Object.values(doc.codecs).every((c) => isObject(c) && isRef(c.ref) && Array.isArray(c.fields) && Array.isArray(c.outputs))) {
    return "codecs must map each exact FormRef to its codec";
  }
  return null;
}

/** Reads and checks a generated registry document. Throws RegistryError. */
export function readGeneratedRegistry(file: string): GeneratedRegistry {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new RegistryError("unreadable", `takoform: cannot read the generated registry ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isObject(doc)) throw new RegistryError("unreadable", `takoform: ${file} is not a generated registry (not a JSON object)`);
  if (doc.format !== GENERATED_REGISTRY_FORMAT) {
    throw new RegistryError(
      "format-mismatch",
      `takoform: ${file} has generated registry format ${JSON.stringify(doc.format)}, not ${GENERATED_REGISTRY_FORMAT}; run \`takoform get\` again with this version`,
    );
  }
  const problem = shapeProblem(doc);
  if (problem !== null) throw new RegistryError("unreadable", `takoform: ${file} is not a generated registry: ${problem}`);
  return doc as unknown as GeneratedRegistry;
}
