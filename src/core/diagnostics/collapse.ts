// Identical findings on many resources, as one (issue 14 item 6): when the same problem is found
// on 300 resources, a person reads it once, with a count and the first few addresses, not 300
// times. "The same problem" is everything a diagnostic says except which resource it is about
// (address, type, space, name, Form, fences) and the text of the individual failure (its cause,
// the host's message and request id, which name that resource's request). Diagnostics that name
// no resource are never grouped (the collection already drops exact repeats).
//
// This is a way of PRINTING a list; the list itself keeps every diagnostic, and the JSON form
// keeps each one too, marking the members of a group (json.ts).

import type { Diagnostic } from "./types.ts";

/** How many addresses a collapsed group names before "and N more". */
export const GROUP_ADDRESSES_SHOWN = 3;

export interface DiagnosticGroup {
  /** The first member: what is printed. */
  first: Diagnostic;
  /** Every member, the first included, in list order. */
  members: Diagnostic[];
}

function sameProblem(d: Diagnostic): string {
  const host = d.host === undefined ? null : [d.host.code ?? null, d.host.status ?? null, d.host.protocolInvalid, d.host.accepted, d.host.retryable];
  return JSON.stringify([
    d.severity,
    d.code ?? null,
    d.summary,
    d.detail ?? null,
    d.attribute ?? null,
    d.pointer ?? null,
    d.file ?? null,
    d.repair ?? null,
    host,
  ]);
}

/** The list as groups, in the order each group's first member appears. */
export function collapseDiagnostics(list: readonly Diagnostic[]): DiagnosticGroup[] {
  const groups: DiagnosticGroup[] = [];
  const byProblem = new Map<string, DiagnosticGroup>();
  for (const d of list) {
    if (d.address === undefined) {
      groups.push({ first: d, members: [d] });
      continue;
    }
    const key = sameProblem(d);
    const group = byProblem.get(key);
    if (group !== undefined && !group.members.some((m) => m.address === d.address)) {
      group.members.push(d);
      continue;
    }
    const fresh = { first: d, members: [d] };
    if (group === undefined) byProblem.set(key, fresh);
    groups.push(fresh);
  }
  return groups;
}

/** `a, b, c and 297 more (300 resources)` — the resources a group is about. */
export function groupAddresses(group: DiagnosticGroup): string {
  const addresses = group.members.map((m) => m.address!);
  const shown = addresses.slice(0, GROUP_ADDRESSES_SHOWN).join(", ");
  const rest = addresses.length - GROUP_ADDRESSES_SHOWN;
  return rest > 0 ? `${shown} and ${rest} more (${addresses.length} resources)` : `${shown} (${addresses.length} resources)`;
}
