// `moved` blocks applied to state, as the plan sees it (Terraform's refactoring.ApplyMoves): each
// record whose address a block moves from follows the chain of blocks to its last address, and the
// plan is made from state re-keyed that way — refresh, plan and apply all see the object at its new
// address. Nothing is written here: the apply re-keys the stored records (store.moveResource, one
// fenced write each) before its first step, and never calls the host for a move.
//
// The configuration's own rules (one destination per source, no cycles, no move across types, no
// source still declared) were checked when the stack was loaded (config/refactoring-rules.ts).
// What only state can say is decided here: a move onto an address a record already holds is
// refused, naming the block. (Terraform leaves such a move undone with a warning and plans to
// destroy the object left behind; refusing keeps the plan from deleting what the author meant to
// keep, and the repair is one `state rm` or one block away.)

import type { Diagnostic } from "../../core/index.ts";
import { deposedAddress, parseStateAddress, renameEdges, type ResourceRecord } from "../../state/index.ts";
import { blockName } from "../config/blocks/refactoring.ts";
import type { MovedConfig } from "../config/types.ts";
import { engineCode } from "../codes.ts";
import type { PlanMove as AddressMove } from "../plan-data.ts";

export interface MoveResolution {
  moves: AddressMove[];
  /** State as the plan sees it: every moved record (and its deposed objects) at its new address, edges renamed. */
  records: ResourceRecord[];
  diagnostics: Diagnostic[];
}

export function resolveMoves(statements: readonly MovedConfig[], records: readonly ResourceRecord[]): MoveResolution {
  if (statements.length === 0) return { moves: [], records: [...records], diagnostics: [] };
  const bySource = new Map(statements.map((s) => [s.from, s]));
  const held = new Set(records.map((r) => parseStateAddress(r.address).address));
  const moves: AddressMove[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const base of [...held].sort()) {
    let at = base;
    const chain: MovedConfig[] = [];
    let blocked: MovedConfig | null = null;
    for (let step = bySource.get(at); step !== undefined; step = bySource.get(at)) {
      if (held.has(step.to)) {
        blocked = step;
        break;
      }
      chain.push(step);
      at = step.to;
    }
    if (blocked !== null) diagnostics.push(occupied(base, blocked, chain));
    else if (chain.length > 0) moves.push({ from: base, to: at, blocks: chain.map((s) => s.index) });
  }
  if (moves.length === 0 || diagnostics.length > 0) return { moves: diagnostics.length > 0 ? [] : moves, records: [...records], diagnostics };
  return { moves, records: rekeyed(records, moves), diagnostics };
}

/** The records with every move applied: one pass, the edges of every record renamed at once. */
function rekeyed(records: readonly ResourceRecord[], moves: readonly AddressMove[]): ResourceRecord[] {
  const destination = new Map(moves.map((m) => [m.from, m.to]));
  const rename = (address: string): string | null => {
    const { address: base, deposed } = parseStateAddress(address);
    const to = destination.get(base);
    if (to === undefined) return null;
    return deposed === null ? to : deposedAddress(to, deposed);
  };
  return records.map((record) => {
    const address = rename(record.address) ?? record.address;
    const edges = renameEdges(record.dependencies, record.contributions, rename);
    if (address === record.address && edges === null) return record;
    return { ...record, address, ...(edges ?? {}) };
  });
}

function occupied(base: string, blocked: MovedConfig, before: readonly MovedConfig[]): Diagnostic {
  const via = before.length > 0 ? ` (reached through ${before.map((s) => blockName("moved", s.index)).join(", ")})` : "";
  return {
    severity: "error",
    code: engineCode("move-target-exists"),
    summary: `${blockName("moved", blocked.index)} cannot move ${blocked.from} to ${blocked.to}: state already manages ${blocked.to}`,
    detail:
      `The record of ${base}${via} would move onto ${blocked.to}, which state already holds for another host object. ` +
      "A move never replaces a record: the object recorded there would no longer be managed by anything. Nothing was changed.",
    address: blocked.to,
    pointer: `/moved/${blocked.index}`,
    repair:
      `If ${blocked.to}'s object should no longer be managed, forget it first (\`takoform state rm ${blocked.to}\`, or a removed block with lifecycle destroy = false) and plan again; ` +
      `otherwise point ${blockName("moved", blocked.index)} at another address.`,
  };
}

/**
 * With --target, every moved object must be covered by the targets at both its addresses
 * (Terraform's "Moved resource instances excluded by targeting"): a plan of only part of a move
 * would apply it half. Null when the targets cover every move.
 */
export function movesExcludedByTargeting(moves: readonly AddressMove[], targets: readonly string[]): Diagnostic | null {
  const given = new Set(targets);
  const missing = [...new Set(moves.flatMap((m) => [m.from, m.to]).filter((a) => !given.has(a)))].sort();
  if (missing.length === 0) return null;
  return {
    severity: "error",
    code: engineCode("moves-excluded-by-targeting"),
    summary: "Moved resource instances excluded by targeting",
    detail:
      "Resources in the current state have moved to new addresses in the configuration. The plan must include them to give a correct result, " +
      "but the --target options do not cover all of them.",
    repair: `Remove the --target options, or add these: ${missing.map((a) => `--target=${a}`).join(" ")}.`,
  };
}
