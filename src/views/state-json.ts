// The state as `terraform show -json` shapes it (`values.root_module.resources`, `values.outputs`)
// and outputs as `terraform output -json` does (`{name: {sensitive, type, value}}`).
//
// Secrets never reach output. State holds a sensitive value only as a seal, so where Terraform
// would print the value we print the mask our plan JSON uses, "(sensitive value)" (src/secrets), and mark the
// path in `sensitive_values`; a sensitive output carries no `value` at all, and its `type` is
// "dynamic" (cty's "any type"), since a seal does not tell what type was sealed.

import type { KnownValue } from "../core/index.ts";
import { isSealedSensitive, SENSITIVE_VALUE } from "../secrets/index.ts";
import { parseStateAddress, type StateDocument, type StoredOutput } from "../state/index.ts";

export const STATE_JSON_FORMAT_VERSION = "1.0";
const PROVIDER_NAME = "registry.terraform.io/tako0614/takoform";

/** cty's implied type of a JSON value, as Terraform writes it in `output -json` (`["object", {…}]`, `["tuple", […]]`). */
export function impliedType(value: KnownValue): unknown {
  if (value === null) return "dynamic";
  if (typeof value === "string") return "string";
  if (typeof value === "number") return "number";
  if (typeof value === "boolean") return "bool";
  if (Array.isArray(value)) return ["tuple", value.map(impliedType)];
  return [
    "object",
    Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, impliedType(value[k]!)]),
    ),
  ];
}

/**
 * One output as `terraform output -json` prints it. A sensitive one as stored (its seal) has no
 * value; `recovered` says its value is the one decrypted for `takoform output` (src/secrets/output.ts).
 */
export function outputJson(output: StoredOutput, recovered = false): Record<string, unknown> {
  if (output.sensitive && !recovered) return { sensitive: true, type: "dynamic" };
  return { sensitive: output.sensitive, type: impliedType(output.value), value: output.value };
}

/** Seals replaced by the mask, and the matching `sensitive_values` tree (`true` where a seal was). */
function masked(value: KnownValue): { shown: KnownValue; mask: unknown } {
  if (isSealedSensitive(value)) return { shown: SENSITIVE_VALUE, mask: true };
  if (Array.isArray(value)) {
    const parts = value.map(masked);
    return { shown: parts.map((p) => p.shown), mask: parts.map((p) => p.mask ?? false) };
  }
  if (value !== null && typeof value === "object") {
    const shown: Record<string, KnownValue> = {};
    const mask: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const part = masked(item);
      shown[key] = part.shown;
      if (part.mask !== undefined && part.mask !== false && !(Array.isArray(part.mask) && part.mask.every((m) => m === false))) mask[key] = part.mask;
    }
    return { shown, mask: Object.keys(mask).length > 0 ? mask : undefined };
  }
  return { shown: value, mask: undefined };
}

/** `terraform show -json` of a state; `null` (no state file) gives only the format version. */
export function stateToJson(document: StateDocument | null, version: string): Record<string, unknown> {
  if (document === null) return { format_version: STATE_JSON_FORMAT_VERSION };
  const resources = document.resources.map((record) => {
    const { address, deposed } = parseStateAddress(record.address);
    const { shown, mask } = masked(record.attributes);
    return {
      address,
      mode: "managed",
      type: record.type,
      name: address.slice(address.indexOf(".") + 1),
      provider_name: PROVIDER_NAME,
      schema_version: 0,
      values: shown,
      sensitive_values: mask ?? {},
      ...(record.dependencies.length > 0 ? { depends_on: record.dependencies } : {}),
      ...(deposed !== null ? { deposed_key: deposed } : {}),
      // Our own: a record whose host write an interrupted apply left unfinished.
      ...(record.status !== "ready" ? { takoform_status: record.status } : {}),
    };
  });
  return {
    format_version: STATE_JSON_FORMAT_VERSION,
    takoform_version: version,
    state: { lineage: document.lineage, serial: document.serial },
    values: {
      outputs: Object.fromEntries(Object.entries(document.outputs).map(([name, o]) => [name, outputJson(o)])),
      root_module: { resources },
    },
  };
}
