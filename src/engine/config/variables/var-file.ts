// `--var-file FILE`: variable values in a JSON file, Terraform's `.tfvars.json` shape — one
// object whose members are variable names and whose values are the values as JSON. Read as
// strictly as the stack (strict-read.ts): a name given twice is refused, not last-wins. HCL
// `.tfvars` files are not read; the diagnostic says so.

import type { Diagnostic, KnownValue } from "../../../core/index.ts";
import { configCode, isPlainObject } from "../diagnostics.ts";
import { readInputBytes, readStrictJson } from "../strict-read.ts";

export interface VarFile {
  /** The path as given, for messages and `sources`. */
  file: string;
  values: Record<string, KnownValue>;
}

export type VarFileRead = { ok: true; varFile: VarFile } | { ok: false; diagnostic: Diagnostic };

const REPAIR = 'Write the file as one JSON object of variable values, e.g. {"region": "eu-1", "replicas": 2} (Terraform\'s .tfvars.json shape).';

export async function readVarFile(file: string): Promise<VarFileRead> {
  const input = await readInputBytes(file, { noun: "var file", missingRepair: "Check the path given with --var-file." });
  if (!input.ok) return { ok: false, diagnostic: input.diagnostic };
  const bytes = input.bytes;
  const hcl = /\.tfvars$/.test(file) ? " HCL .tfvars files are not read; convert it to JSON (.tfvars.json)." : "";
  const read = readStrictJson(bytes, { what: `The var file ${file}`, repair: `${REPAIR}${hcl}` });
  if (!read.ok)
    return {
      ok: false,
      diagnostic: { ...read.diagnostic, code: read.diagnostic.code === configCode("invalid-json") ? configCode("invalid-variable") : read.diagnostic.code },
    };
  if (!isPlainObject(read.value)) {
    return {
      ok: false,
      diagnostic: { severity: "error", code: configCode("invalid-variable"), summary: `The var file ${file} is not a JSON object`, repair: REPAIR },
    };
  }
  return { ok: true, varFile: { file, values: read.value as Record<string, KnownValue> } };
}
