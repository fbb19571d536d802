// Which stacks a command runs (docs/stacks.md), as cdktf's CLI selects them: each name given
// positionally or with --stack is a glob (minimatch, as cdktf uses: `'*'`, `'api-*'`); a pattern
// that matches no stack is an error. Without any, an app of one stack runs that stack, and an app
// of several asks which.

import { createRequire } from "node:module";
import type { Diagnostic } from "../../core/index.ts";
import { configCode } from "../config/diagnostics.ts";

// minimatch is loaded only when a pattern is matched: a command of one stack, or `--config`,
// never matches one. CommonJS keeps selection synchronous; both builds are the same matcher.
const require = createRequire(import.meta.url);
const minimatch = (name: string, pattern: string): boolean => (require("minimatch") as typeof import("minimatch")).minimatch(name, pattern);

/** The stacks matching any of `patterns`, in name order; or why none can be chosen. */
export function selectStacks(all: readonly string[], patterns: readonly string[]): { selected: string[] } | { diagnostics: Diagnostic[] } {
  const names = [...all].sort();
  if (patterns.length === 0) {
    if (names.length === 1) return { selected: names };
    return {
      diagnostics: [
        names.length === 0
          ? { severity: "error", code: configCode("stack-not-found"), summary: "The app defines no stacks", repair: "Create a TerraformStack in the app." }
          : {
              severity: "error",
              code: configCode("stack-ambiguous"),
              summary: `The app defines ${names.length} stacks`,
              detail: `Its stacks are: ${names.join(", ")}.`,
              repair: `Name the stacks to use (takoform apply ${names[0]} …, or --stack NAME), or '*' for all of them.`,
            },
      ],
    };
  }
  const chosen = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  for (const pattern of patterns) {
    const matching = names.filter((name) => minimatch(name, pattern));
    if (matching.length === 0) {
      diagnostics.push({
        severity: "error",
        code: configCode("stack-not-found"),
        summary: /[*?[\]{}!]/.test(pattern) ? `No stack of the app matches "${pattern}"` : `The app has no stack named "${pattern}"`,
        detail: names.length > 0 ? `Its stacks are: ${names.join(", ")}.` : "It defines no stacks.",
        repair: names.length > 0 ? `Name one of: ${names.join(", ")} (a name may be a glob, such as '*').` : "Create a TerraformStack in the app.",
      });
    }
    for (const name of matching) chosen.add(name);
  }
  return diagnostics.length > 0 ? { diagnostics } : { selected: [...chosen].sort() };
}
