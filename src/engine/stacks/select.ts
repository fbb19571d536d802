// Which stacks a command runs (docs/stacks.md), as cdktf's CLI selects them: each name given
// positionally or with --stack is a glob (minimatch, as cdktf uses: `'*'`, `'api-*'`); a pattern
// that matches no stack is an error. Without any, an app of one stack runs that stack, and an app
// of several asks which.

import { createRequire } from "node:module";
import type { Diagnostic } from "../../core/index.ts";
import { configCode } from "../config/diagnostics.ts";

// minimatch is loaded only when a pattern needs it: loading it costs a command about 15 ms of
// CPU and each `minimatch(name, pattern)` compiles the pattern again (7 ms for '*' against 20
// stacks), all of it before the first stack starts. So a pattern is compiled once, and the two
// patterns nearly every run gives — '*' and a stack's plain name — are answered without it for
// a plain stack name (below), where minimatch's answer is certain: '*' matches it, a name only
// itself. Anything else is minimatch's to decide. CommonJS keeps selection synchronous; both
// builds are the same matcher.
const require = createRequire(import.meta.url);

/** A name no glob rule can read two ways: no separator, no leading dot, no glob character. */
const PLAIN = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/** Whether a name matches `pattern`, as minimatch(name, pattern) says. */
export function stackMatcher(pattern: string): (name: string) => boolean {
  let compiled: import("minimatch").Minimatch | undefined;
  const glob = (name: string): boolean => {
    compiled ??= new (require("minimatch") as typeof import("minimatch")).Minimatch(pattern);
    return compiled.match(name);
  };
  if (pattern === "*") return (name) => PLAIN.test(name) || glob(name);
  if (PLAIN.test(pattern)) return (name) => (PLAIN.test(name) ? name === pattern : glob(name));
  return glob;
}

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
    const matching = names.filter(stackMatcher(pattern));
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
