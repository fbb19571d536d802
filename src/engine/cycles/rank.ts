// Ranking a loop's writes in one fixed order, so the optional orderings (order.ts) can be added
// without ever closing a loop of steps.

/**
 * One fixed order of the loop's writes (Kahn's algorithm; ties by walk rank, then revert before
 * make before full), so optional orderings can be added without ever closing a loop of steps.
 * Mandatory orderings always hold; preferred ones hold unless they would close a loop, in which
 * case the waiting step with the lowest rank goes first.
 */
export function rankSteps(
  members: readonly string[],
  rank: ReadonlyMap<string, number>,
  make: (a: string) => string | undefined,
  full: (a: string) => string | undefined,
  reverts: ReadonlySet<string>,
  edges: readonly { from: string; to: string }[],
  preferred: readonly { from: string; to: string }[],
): Map<string, number> {
  const key = new Map<string, number>();
  for (const a of members) {
    const r = rank.get(a)! * 3;
    if (reverts.has(a)) key.set(`revert:${a}`, r);
    const m = make(a);
    if (m !== undefined) key.set(m, r + 1);
    const f = full(a);
    if (f !== undefined && !key.has(f)) key.set(f, r + 2);
  }
  // Per step: how many mandatory and how many preferred orderings still hold it back.
  const hard = new Map<string, number>();
  const soft = new Map<string, number>();
  const released = new Map<string, { id: string; mandatory: boolean }[]>();
  for (const id of key.keys()) {
    hard.set(id, 0);
    soft.set(id, 0);
    released.set(id, []);
  }
  const link = (list: readonly { from: string; to: string }[], mandatory: boolean) => {
    for (const { from, to } of list) {
      if (!key.has(from) || !key.has(to) || from === to) continue;
      (mandatory ? hard : soft).set(from, (mandatory ? hard : soft).get(from)! + 1);
      released.get(to)!.push({ id: from, mandatory });
    }
  };
  link(edges, true);
  link(preferred, false);
  const position = new Map<string, number>();
  const byKey = (a: string, b: string) => key.get(a)! - key.get(b)!;
  for (;;) {
    const open = [...key.keys()].filter((id) => !position.has(id) && hard.get(id) === 0);
    if (open.length === 0) break;
    // Free of every ordering first; when preferred orderings form a loop, the lowest rank breaks it.
    const free = open.filter((id) => soft.get(id) === 0);
    const id = (free.length > 0 ? free : open).sort(byKey)[0]!;
    position.set(id, position.size);
    for (const next of released.get(id)!) (next.mandatory ? hard : soft).set(next.id, (next.mandatory ? hard : soft).get(next.id)! - 1);
  }
  // Steps on a loop of mandatory orderings (reported by the step graph) rank last.
  for (const id of key.keys()) if (!position.has(id)) position.set(id, Number.MAX_SAFE_INTEGER);
  return position;
}
