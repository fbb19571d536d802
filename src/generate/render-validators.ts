// Renders the precompiled validators of the bundled layout: the ajv standalone code of every
// desired, observed and output schema the definitions carry, one CommonJS file per distinct
// schema, named by its canonical digest (src/forms/precompiled.ts loads them).
//
// Each schema is compiled by a fresh ajv instance, configured exactly as the run-time compiler is
// (newSchemaCompiler), so a file's bytes depend on its schema and the ajv version alone — not on
// which other schemas were compiled before it.

import { createRequire } from "node:module";
import { digestCanonical, isJsonObject, type JsonValue, newSchemaCompiler, precompiledFileName } from "../forms/index.ts";
import { formatFormRef } from "../core/index.ts";
import { GenerateError } from "./errors.ts";
import { GENERATED_HEADER, type Layout } from "./layout.ts";
import type { GenerationModel } from "./model.ts";

const require = createRequire(import.meta.url);
const SCHEMA_KEYS = ["desiredSchema", "observedSchema", "outputSchema"] as const;

/** Layout-relative path → CommonJS source; empty for a layout without validators. */
export function renderValidators(layout: Layout, model: GenerationModel): Map<string, string> {
  const out = new Map<string, string>();
  if (layout.validatorsDir === null) return out;
  const schemas = new Map<string, { schema: JsonValue; uses: string[] }>();
  for (const { ref, document } of model.definitions) {
    if (!isJsonObject(document)) continue;
    for (const key of SCHEMA_KEYS) {
      const schema = document[key];
      if (schema === undefined) continue;
      const digest = digestCanonical(schema);
      const entry = schemas.get(digest) ?? { schema, uses: [] };
      entry.uses.push(`${formatFormRef(ref)} ${key}`);
      schemas.set(digest, entry);
    }
  }
  const { default: standaloneCode } = require("ajv/dist/standalone/index.js") as typeof import("ajv/dist/standalone/index.js");
  const { _ } = require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
  for (const [digest, { schema, uses }] of [...schemas].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const ajv = newSchemaCompiler({ code: { source: true, formats: _`require("ajv-formats/dist/formats").fullFormats` } });
    let source: string;
    try {
      source = standaloneCode(ajv, ajv.compile(structuredClone(schema) as object));
    } catch (error) {
      throw new GenerateError("definition-refused", undefined, "", `${uses[0]} does not compile: ${error instanceof Error ? error.message : String(error)}`);
    }
    const header = [
      GENERATED_HEADER,
      `// The precompiled validator (ajv standalone code) of the JSON Schema ${digest}, used by:`,
      ...uses.sort().map((use) => `//   ${use}`),
    ];
    out.set(`${layout.validatorsDir}/${precompiledFileName(digest)}`, `${header.join("\n")}\n${source}\n`);
  }
  return out;
}
