// Plan phases of the refactoring blocks: `moved` blocks re-key state as the plan reads it (before
// anything else reads state), the changes of moved objects say where they came from, and a rename
// no block declares is pointed out.

import { deposedAddress, parseStateAddress } from "../../../state/index.ts";
import type { PlanContext } from "../context.ts";
import { movesExcludedByTargeting, resolveMoves } from "../moves.ts";
import { unmarkedRenames } from "../renames.ts";

/**
 * State as the moved blocks leave it: every later phase reads the moved records. With --target,
 * the moves must be covered at both addresses, and a target naming an old address means the new.
 */
export function applyMoves(ctx: PlanContext): void {
  const resolution = resolveMoves(ctx.stack.moved, ctx.state.records);
  ctx.diagnostics.append(resolution.diagnostics);
  if (resolution.moves.length === 0) return;
  ctx.moves = resolution.moves;
  ctx.state = { ...ctx.state, records: resolution.records };
  if (!ctx.targeted) return;
  const excluded = movesExcludedByTargeting(resolution.moves, ctx.targets!);
  if (excluded !== null) {
    ctx.diagnostics.append([excluded]);
    return;
  }
  const destination = new Map(resolution.moves.map((m) => [m.from, m.to]));
  ctx.targets = [...new Set(ctx.targets!.map((t) => destination.get(t) ?? t))];
}

/** A change of a moved object names the address it moved from (Terraform's `previous_address`). */
export function markMoves(ctx: PlanContext): void {
  if (ctx.moves.length === 0) return;
  const source = new Map(ctx.moves.map((m) => [m.to, m.from]));
  for (const change of ctx.changes.values()) {
    const { address, deposed } = parseStateAddress(change.address);
    const from = source.get(address);
    if (from === undefined || !ctx.records.has(change.address)) continue;
    change.previousAddress = deposed === null ? from : deposedAddress(from, deposed);
    // Moved to an address the configuration does not declare: deleted, and said why.
    if (change.actionReason === "delete_because_no_resource_config") change.actionReason = "delete_because_no_move_target";
  }
}

/** An orphan whose object a new address of its type creates again: warned about, with the move that keeps it. */
export function recognizeRenames(ctx: PlanContext): void {
  for (const d of unmarkedRenames(ctx.provider, ctx.stack, ctx.changes.values())) ctx.diagnostics.append([d], d.address);
}
