// The rules `moved` and `removed` blocks keep between themselves and with the resources the stack
// declares — Terraform's refactoring validation (ValidateMoves, and the removed block's checks),
// decided from the configuration alone, so they hold before state is read. What depends on state
// (a destination another record already holds) is the plan's (plan/moves.ts).
//
//   moved from = to                         Redundant move statement
//   moved across resource types             Resource type mismatch (a record keeps its type)
//   moved from an address still declared    Moved object still exists
//   two destinations for one source, or
//   two sources for one destination         Ambiguous move statements
//   a chain of moves that returns to itself Cyclic dependency in move statements
//   removed from an address still declared  Removed resource still exists
//   an address both moved and removed,
//   or removed twice                        Conflicting refactoring blocks

import { blockName } from "./blocks/refactoring.ts";
import { configCode, describeResource, type Problems } from "./diagnostics.ts";
import type { MovedConfig, StackConfig } from "./types.ts";

const typeOf = (address: string): string => address.slice(0, address.indexOf("."));

function describeMove(move: MovedConfig): string {
  return `${blockName("moved", move.index)} (${move.from} → ${move.to})`;
}

export function checkRefactoring(config: StackConfig, problems: Problems): void {
  const invalid = (summary: string, detail: string, repair: string) => problems.error({ code: configCode("invalid-moved"), summary, detail, repair });
  const bySource = new Map<string, MovedConfig>();
  const byDestination = new Map<string, MovedConfig>();
  let failed = false;
  for (const move of config.moved) {
    const name = describeMove(move);
    if (move.from === move.to) {
      failed = true;
      invalid(
        `Redundant move statement: ${name}`,
        `It declares a move from ${move.from} to the same address, which is the same as declaring no move at all.`,
        "Remove the moved block.",
      );
      continue;
    }
    if (typeOf(move.from) !== typeOf(move.to)) {
      failed = true;
      invalid(
        `Resource type mismatch: ${name}`,
        `It moves a ${typeOf(move.from)} to ${move.to}, a resource of another type. A record keeps its resource type: its attributes are in the shape of its type's Form, and a move changes only the address state keeps them under.`,
        `Move it to an address of type ${typeOf(move.from)}. To manage the host object as another type, forget it with a removed block (lifecycle destroy = false) and import it into the other resource.`,
      );
    }
    const declared = config.resources.get(move.from);
    if (declared !== undefined) {
      failed = true;
      invalid(
        `Moved object still exists: ${name}`,
        `It declares a move from ${move.from}, but that resource is still declared: ${describeResource(declared.address, declared.constructPath)}.`,
        `Change the configuration so this resource is declared as ${move.to} instead (rename the construct, or call moveToId on the old one), or remove the moved block.`,
      );
    }
    const earlier = bySource.get(move.from);
    if (earlier !== undefined && earlier.to !== move.to) {
      failed = true;
      invalid(
        `Ambiguous move statements: ${name}`,
        `${describeMove(earlier)} declared that ${move.from} moved to ${earlier.to}, but this block declares that it moved to ${move.to}. Each resource can move to only one destination.`,
        "Keep one of the two moved blocks.",
      );
    } else if (earlier === undefined) bySource.set(move.from, move);
    const arrived = byDestination.get(move.to);
    if (arrived !== undefined && arrived.from !== move.from) {
      failed = true;
      invalid(
        `Ambiguous move statements: ${name}`,
        `${describeMove(arrived)} declared that ${arrived.from} moved to ${move.to}, but this block declares that ${move.from} moved there. Each resource can have moved from only one source.`,
        "Keep one of the two moved blocks.",
      );
    } else if (arrived === undefined) byDestination.set(move.to, move);
  }
  // As Terraform: a cycle is reported only when nothing more specific was found.
  if (!failed) checkCycles(bySource, problems);
  checkRemoved(config, bySource, byDestination, problems);
}

/** Each source has one destination now, so every chain is a path; one walk per statement, each visited once. */
function checkCycles(bySource: ReadonlyMap<string, MovedConfig>, problems: Problems): void {
  const done = new Set<MovedConfig>();
  for (const start of bySource.values()) {
    if (done.has(start)) continue;
    const path: MovedConfig[] = [];
    const onPath = new Set<MovedConfig>();
    let at: MovedConfig | undefined = start;
    while (at !== undefined && !done.has(at) && !onPath.has(at)) {
      path.push(at);
      onPath.add(at);
      at = bySource.get(at.to);
    }
    if (at !== undefined && onPath.has(at)) {
      const loop = path.slice(path.indexOf(at));
      problems.error({
        code: configCode("invalid-moved"),
        summary: "Cyclic dependency in move statements",
        detail:
          `These chained moves form a cycle, so there is no final address to move the objects to: ${loop.map(describeMove).join(", ")}. ` +
          "A chain of moves must end with an address no other block moves from, typically one the configuration declares.",
        repair: `Remove the block that closes the cycle (${describeMove(loop[loop.length - 1]!)}), or point it at the address the resource is declared at now.`,
      });
    }
    for (const move of path) done.add(move);
  }
}

function checkRemoved(
  config: StackConfig,
  bySource: ReadonlyMap<string, MovedConfig>,
  byDestination: ReadonlyMap<string, MovedConfig>,
  problems: Problems,
): void {
  const seen = new Map<string, number>();
  for (const removed of config.removed) {
    const name = blockName("removed", removed.index);
    const fail = (summary: string, detail: string, repair: string) =>
      problems.error({ code: configCode("invalid-removed"), summary: `${summary}: ${name}`, detail, repair });
    const declared = config.resources.get(removed.from);
    if (declared !== undefined) {
      fail(
        "Removed resource still exists",
        `It declares that ${removed.from} was removed, but it is still declared: ${describeResource(declared.address, declared.constructPath)}.`,
        "Delete the construct, or remove the removed block.",
      );
    }
    const move = bySource.get(removed.from) ?? byDestination.get(removed.from);
    if (move !== undefined) {
      fail(
        "Conflicting refactoring blocks",
        `${removed.from} is both removed here and moved by ${describeMove(move)}; an object can be moved or removed, not both.`,
        "Keep the moved block to go on managing the object at its new address, or the removed block to stop managing it.",
      );
    }
    const twice = seen.get(removed.from);
    if (twice !== undefined) {
      fail("Conflicting refactoring blocks", `${blockName("removed", twice)} already removes ${removed.from}.`, "Keep one removed block per address.");
    }
    seen.set(removed.from, removed.index);
  }
}
