// The module environment namespace (reference §13.2). The keys of the vars JSON map, the names of
// required sensitive vars and the name of every binding all become names in ONE environment a
// module reads, so a name may appear once across all of them. The projecting fields are the ones
// the codec marks with an environment role. Unknown, null and malformed values are skipped,
// never guessed.
//
// A warning, not an error: the protocol puts this rule at the host's apply and import (a prepare
// accepts the spec; reference §2.7 step 6, §10.5). The plan sees the refusal coming and says so;
// the host decides (docs/provider.md §5).

import { type Attributes, type Diagnostic, isUnknown, type Value } from "../../core/index.ts";
import { isJsonObject, parseStrictJson } from "../../forms/index.ts";
import type { FormCodec } from "../../registry/index.ts";
import { providerCode } from "../diagnostics/codes.ts";

interface Occurrence {
  name: string;
  path: string;
}

function occurrences(role: string, attribute: string, value: Value): Occurrence[] {
  if (value === null || isUnknown(value)) return [];
  switch (role) {
    case "map-keys": {
      if (typeof value !== "string") return [];
      try {
        const parsed = parseStrictJson(value);
        return isJsonObject(parsed) ? Object.keys(parsed).map((k) => ({ name: k, path: `${attribute}.${k}` })) : [];
      } catch {
        return [];
      }
    }
    case "items":
      return Array.isArray(value) ? value.flatMap((item, i) => (typeof item === "string" ? [{ name: item, path: `${attribute}[${i}]` }] : [])) : [];
    case "binding-names":
      return Array.isArray(value)
        ? value.flatMap((item, i) => {
            if (item === null || typeof item !== "object" || Array.isArray(item) || isUnknown(item)) return [];
            const name = (item as Record<string, Value>)["name"];
            return typeof name === "string" ? [{ name, path: `${attribute}[${i}].name` }] : [];
          })
        : [];
    default:
      return [];
  }
}

export function environmentProblems(codec: FormCodec, config: Attributes): Diagnostic[] {
  const seen = new Map<string, string>();
  const out: Diagnostic[] = [];
  for (const field of codec.fields) {
    if (field.environment === undefined) continue;
    for (const o of occurrences(field.environment, field.attribute, config[field.attribute] ?? null)) {
      const first = seen.get(o.name);
      if (first === undefined) {
        seen.set(o.name, o.path);
        continue;
      }
      out.push({
        severity: "warning",
        summary: "Duplicate module environment name",
        detail: `${o.path} projects the name ${JSON.stringify(o.name)} into the module environment, which ${first} already does. Variables, required sensitive variables and bindings share one namespace; the host refuses this version when it is applied (invalid_argument), and nothing that depends on it is applied after it.`,
        code: providerCode("host-will-refuse"),
        attribute: o.path,
        repair: `Rename one of the two so every environment name is used once.`,
      });
    }
  }
  return out;
}
