// One diagnostic per finding. Planning a replacement asks the provider twice (the plan against
// the prior object, then the create plan of its successor), and plan-time checks that do not
// depend on the prior (host support, availability) answer both times; a resource's diagnostics
// are therefore merged without repeats.

import type { Diagnostic } from "../../core/diagnostic.ts";

/** What makes two diagnostics the same finding about one resource. */
function identity(d: Diagnostic): string {
  return JSON.stringify([d.severity, d.code ?? null, d.summary, d.detail ?? null, d.pointer ?? null, d.attribute ?? null, d.address ?? null]);
}

/** Appends to `target` each diagnostic of `more` that `target` does not already hold; returns `target`. */
export function appendUnique(target: Diagnostic[], more: readonly Diagnostic[]): Diagnostic[] {
  if (more.length === 0) return target;
  const seen = new Set(target.map(identity));
  for (const d of more) {
    const key = identity(d);
    if (seen.has(key)) continue;
    seen.add(key);
    target.push(d);
  }
  return target;
}

/** The list with repeats dropped (the first of each is kept, in order). */
export function uniqueDiagnostics(list: readonly Diagnostic[]): Diagnostic[] {
  return appendUnique([], list);
}
