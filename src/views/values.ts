// Terraform-style rendering of attribute values and their differences, for the human plan.

import { isUnknown, valuesEqual, type Value } from "../core/index.ts";
import { isSealedSensitive, SENSITIVE_VALUE, sensitiveValuesEqual } from "../secrets/index.ts";

export const KNOWN_AFTER_APPLY = "(known after apply)";

export type Marker = "+" | "-" | "~" | " ";

export interface RenderContext {
  /** Attribute names (top level) whose values are sensitive. */
  sensitive: ReadonlySet<string>;
  /** Top-level attribute names whose change forces replacement. */
  forcesReplacement: ReadonlySet<string>;
}

/** A scalar or collection written the way HCL shows it, over as many lines as it needs. */
export function formatValue(value: Value, indent: string): string {
  // "(known after apply)", or "(known after apply of stack A)" for another stack's value.
  if (isUnknown(value)) return value.toString();
  // A seal stands for a secret: shown as Terraform shows one, never as its digest.
  if (isSealedSensitive(value)) return SENSITIVE_VALUE;
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const inner = indent + "    ";
    return `[\n${value.map((item) => `${inner}${formatValue(item, inner)},`).join("\n")}\n${indent}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return "{}";
  const inner = indent + "    ";
  const width = Math.max(...entries.map(([k]) => k.length));
  return `{\n${entries.map(([k, v]) => `${inner}${k.padEnd(width)} = ${formatValue(v, inner)}`).join("\n")}\n${indent}}`;
}

function isObject(value: Value): value is { [key: string]: Value } {
  return value !== null && typeof value === "object" && !Array.isArray(value) && !isUnknown(value);
}

/**
 * Lines describing one attribute's change. `before`/`after` undefined means absent on that side.
 * Nested objects are diffed member by member; lists of equal length element by element.
 */
export function diffLines(name: string, before: Value | undefined, after: Value | undefined, indent: string, width: number, note: string): string[] {
  const key = name.padEnd(width);
  if (before === undefined || before === null) {
    if (after === undefined || after === null) return [];
    return [`${indent}+ ${key} = ${formatValue(after, indent + "  ")}${note}`];
  }
  if (after === undefined || after === null) {
    return [`${indent}- ${key} = ${formatValue(before, indent + "  ")} -> null${note}`];
  }
  if (valuesEqual(before, after)) return [];
  if (isObject(before) && isObject(after)) {
    return [`${indent}~ ${key} = {${note}`, ...memberLines(before, after, indent + "    "), `${indent}  }`];
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    const inner: string[] = [];
    before.forEach((item, i) => {
      const next = after[i]!;
      if (valuesEqual(item, next)) return;
      if (isObject(item) && isObject(next)) {
        inner.push(`${indent}    ~ {`, ...memberLines(item, next, indent + "        "), `${indent}      },`);
      } else {
        inner.push(`${indent}    ~ ${formatValue(item, indent + "    ")} -> ${formatValue(next, indent + "    ")},`);
      }
    });
    return [`${indent}~ ${key} = [${note}`, ...inner, `${indent}  ]`];
  }
  return [`${indent}~ ${key} = ${formatValue(before, indent + "  ")} -> ${formatValue(after, indent + "  ")}${note}`];
}

/** The changed members of two objects, names aligned, in name order. */
function memberLines(before: { [key: string]: Value }, after: { [key: string]: Value }, indent: string): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const width = Math.max(...keys.map((k) => k.length));
  return keys.flatMap((k) => diffLines(k, before[k], after[k], indent, width, ""));
}

/**
 * Lines for a sensitive attribute, as Terraform writes them: the value is never shown, only that
 * it is added (`+ name = (sensitive value)`), changed (`~ name = (sensitive value)`) or removed
 * (`- name = (sensitive value) -> null`). Compares the values themselves, so a change is shown
 * even though both sides would be masked to the same text.
 */
export function sensitiveDiffLines(
  name: string,
  before: Value | undefined,
  after: Value | undefined,
  indent: string,
  width: number,
  note: string,
  salt: string,
): string[] {
  const key = name.padEnd(width);
  const hasBefore = before !== undefined && before !== null;
  const hasAfter = after !== undefined && after !== null;
  if (!hasBefore && !hasAfter) return [];
  if (!hasBefore) return [`${indent}+ ${key} = ${SENSITIVE_VALUE}${note}`];
  if (!hasAfter) return [`${indent}- ${key} = ${SENSITIVE_VALUE} -> null${note}`];
  if (sensitiveValuesEqual(before, after, salt)) return [];
  return [`${indent}~ ${key} = ${SENSITIVE_VALUE}${note}`];
}
