// The `provider` block. Only `takoform` is understood, once, with endpoint, space, token (token is
// sensitive) and lane (the Host API lane pin: docs/client.md §1). Its values may use variables but not resource attributes: the provider
// must be configured before any resource is read.

import { configCode, isPlainObject, type Problems } from "../diagnostics.ts";
import { parseExpression } from "../expression/parse.ts";
import type { Expression, ProviderConfig } from "../types.ts";

const ARGUMENTS = ["endpoint", "space", "token", "lane"] as const;

export function readProvider(block: unknown, problems: Problems): ProviderConfig | null {
  if (!isPlainObject(block)) {
    problems.error({ code: configCode("invalid-structure"), summary: "The provider block must be an object", repair: "Synthesize the stack with cdktf." });
    return null;
  }
  let config: ProviderConfig | null = null;
  for (const [name, entry] of Object.entries(block)) {
    if (name !== "takoform") {
      problems.error({
        code: configCode("unsupported-provider"),
        summary: `The provider "${name}" is not supported`,
        detail: "takoform deploys Takoform resources only, through its own provider.",
        repair: `Remove the ${name} provider and its resources from this stack.`,
      });
      continue;
    }
    // cdktf writes a list of configurations; hand-written JSON may give one object.
    const entries = Array.isArray(entry) ? entry : [entry];
    if (entries.length !== 1) {
      problems.error({
        code: configCode("unsupported-provider"),
        summary: `The takoform provider is configured ${entries.length} times`,
        detail: "One stack talks to one host; several configurations (aliases) are not supported.",
        repair: "Keep a single TakoformProvider in the stack; deploy to another host from another stack.",
      });
      continue;
    }
    const body = entries[0];
    if (!isPlainObject(body)) {
      problems.error({
        code: configCode("invalid-structure"),
        summary: "The takoform provider configuration must be an object",
        repair: "Configure it with TakoformProvider.",
      });
      continue;
    }
    config = {};
    for (const [key, value] of Object.entries(body)) {
      if (key === "//") continue;
      if (!(ARGUMENTS as readonly string[]).includes(key)) {
        problems.error({
          code: configCode("unsupported-provider"),
          summary: `The takoform provider has no argument "${key}"`,
          detail: key === "alias" ? "Provider aliases are not supported." : "It takes endpoint, space, token and lane.",
          repair: `Remove ${key} from the provider configuration.`,
          attribute: key,
        });
        continue;
      }
      const expr = parseExpression(
        value,
        (found) =>
          problems.error({
            code: configCode("unsupported-expression"),
            summary: `${found.summary} in the takoform provider`,
            detail: `At ${found.path}: ${found.detail}`,
            repair: found.repair,
            attribute: found.path,
          }),
        key,
      );
      if (refersToResources(expr)) {
        problems.error({
          code: configCode("unsupported-expression"),
          summary: `The takoform provider's ${key} refers to a resource or another stack's output`,
          detail: "The provider is configured before anything is read or planned, so its arguments may use only literals and variables.",
          repair: "Use a literal, a variable, or the TAKOFORM_* environment variables.",
          attribute: key,
        });
      }
      config[key as (typeof ARGUMENTS)[number]] = expr;
    }
  }
  return config;
}

function refersToResources(expr: Expression): boolean {
  switch (expr.kind) {
    case "literal":
    case "variable":
      return false;
    case "reference":
    case "data":
      return true;
    case "template":
      return expr.parts.some((part) => typeof part !== "string" && part.kind !== "variable");
    case "list":
      return expr.items.some(refersToResources);
    case "object":
      return Object.values(expr.entries).some(refersToResources);
  }
}
