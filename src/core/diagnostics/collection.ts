// Diagnostics as a collection, in the manner of Terraform's tfdiags: a run appends what it finds
// (every error, not only the first), asks whether any is an error, and hands the whole list on.
// A finding reported twice is kept once; the order is stable whatever the parallelism.

import type { Diagnostic } from "./types.ts";
import { collapseDiagnostics, type DiagnosticGroup } from "./collapse.ts";

export function hasErrors(diagnostics: Iterable<Diagnostic>): boolean {
  for (const d of diagnostics) if (d.severity === "error") return true;
  return false;
}

/** What makes two diagnostics the same finding: severity, code, summary, detail and where. */
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

/** The diagnostics about one resource: each that names no resource gets its address and type. */
export function located(diagnostics: readonly Diagnostic[], address: string, type: string): Diagnostic[] {
  return diagnostics.map((d) => (d.address !== undefined ? d : { ...d, address, ...(d.resourceType === undefined ? { resourceType: type } : {}) }));
}

/** The text of any thrown value, for a diagnostic's `cause`. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A run's diagnostics. Each may be filed under a group (a resource address): the list reads
 * ungrouped ones first, in the order they came, then each group in group order — the same list
 * however the work that found them was scheduled. Within a place, a finding already there is not
 * added again.
 */
export class Diagnostics {
  private readonly ungrouped: Diagnostic[] = [];
  private readonly groups = new Map<string, Diagnostic[]>();

  append(found: Diagnostic | readonly Diagnostic[], group?: string): this {
    const list = Array.isArray(found) ? (found as readonly Diagnostic[]) : [found as Diagnostic];
    if (group === undefined) appendUnique(this.ungrouped, list);
    else if (list.length > 0) this.groups.set(group, appendUnique([...(this.groups.get(group) ?? [])], list));
    return this;
  }

  /** Swaps what an earlier pass filed under `group` (`old`) for a new pass's findings. */
  replace(group: string, old: readonly Diagnostic[], found: readonly Diagnostic[]): this {
    if (old.length === 0 && found.length === 0) return this;
    const kept = (this.groups.get(group) ?? []).filter((d) => !old.includes(d));
    this.groups.set(group, appendUnique(kept, found));
    return this;
  }

  hasErrors(): boolean {
    return hasErrors(this.ungrouped) || [...this.groups.values()].some((list) => hasErrors(list));
  }

  /** Ungrouped first, then per group in group order. */
  toArray(): Diagnostic[] {
    const keys = [...this.groups.keys()].sort();
    return [...this.ungrouped, ...keys.flatMap((k) => this.groups.get(k)!)];
  }

  /** The list as people read it: the same finding on several resources as one group (collapse.ts). */
  collapsed(): DiagnosticGroup[] {
    return collapseDiagnostics(this.toArray());
  }
}
