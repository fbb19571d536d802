// The moves a plan derives from `moved` blocks and state (plan/moves.ts): chains followed to their
// end, deposed objects moved with their resource, every edge naming a moved address renamed, a
// destination already held refused naming the block, and --target covering both addresses.

import { describe, expect, it } from "vitest";
import type { MovedConfig } from "../../../src/engine/config/index.ts";
import { movesExcludedByTargeting, resolveMoves } from "../../../src/engine/plan/moves.ts";
import type { ResourceRecord } from "../../../src/state/index.ts";

const B = "takoform_edge_object_bucket";

function record(address: string, dependencies: string[] = [], contributions: ResourceRecord["contributions"] = []): ResourceRecord {
  return {
    address,
    type: B,
    status: "ready",
    ref: null,
    packageDigest: null,
    space: "default",
    name: address,
    uid: `uid-${address}`,
    generation: "1",
    revision: "1",
    pendingOperationId: null,
    relationDriftReason: null,
    attributes: {},
    outputs: {},
    conditions: [],
    dependencies,
    contributions,
    intent: null,
    serial: 1,
  } as ResourceRecord;
}

const moved = (...pairs: [string, string][]): MovedConfig[] => pairs.map(([from, to], index) => ({ from: `${B}.${from}`, to: `${B}.${to}`, index }));

describe("resolveMoves", () => {
  it("follows a chain to its end and moves deposed objects and edges with the resource", () => {
    const state = [
      record(`${B}.a`),
      record(`${B}.a#deposed:k1`),
      record(`${B}.user`, [`${B}.a`, `${B}.other`], [{ from: `${B}.a`, fields: ["x"] }]),
      record(`${B}.other`),
    ];
    const resolved = resolveMoves(moved(["a", "b"], ["b", "c"]), state);
    expect(resolved.diagnostics).toEqual([]);
    expect(resolved.moves).toEqual([{ from: `${B}.a`, to: `${B}.c`, blocks: [0, 1] }]);
    expect(resolved.records.map((r) => r.address)).toEqual([`${B}.c`, `${B}.c#deposed:k1`, `${B}.user`, `${B}.other`]);
    const user = resolved.records.find((r) => r.address === `${B}.user`)!;
    expect(user.dependencies).toEqual([`${B}.c`, `${B}.other`]);
    expect(user.contributions).toEqual([{ from: `${B}.c`, fields: ["x"] }]);
    // The uid and everything else of the moved record are its own.
    expect(resolved.records[0]!.uid).toBe(`uid-${B}.a`);
    // A record that names nothing moved is the same object.
    expect(resolved.records[3]).toBe(state[3]);
  });

  it("moves nothing for blocks whose source state does not hold (already moved, or never there)", () => {
    const state = [record(`${B}.c`)];
    const resolved = resolveMoves(moved(["a", "b"], ["b", "c"]), state);
    expect(resolved).toEqual({ moves: [], records: state, diagnostics: [] });
  });

  it("refuses a move onto an address state already holds, naming the block, and moves nothing", () => {
    const state = [record(`${B}.a`), record(`${B}.b`), record(`${B}.x`)];
    const resolved = resolveMoves(moved(["x", "y"], ["a", "b"]), state);
    expect(resolved.moves).toEqual([]);
    expect(resolved.records).toEqual(state);
    expect(resolved.diagnostics).toHaveLength(1);
    expect(resolved.diagnostics[0]).toMatchObject({
      code: "takoform.engine/move-target-exists",
      summary: `moved[1] cannot move ${B}.a to ${B}.b: state already manages ${B}.b`,
      pointer: "/moved/1",
    });
    // Through a chain: the block where the chain meets the held address is the one named.
    const chained = resolveMoves(moved(["a", "m"], ["m", "b"]), [record(`${B}.a`), record(`${B}.b`)]);
    expect(chained.diagnostics[0]!.summary).toBe(`moved[1] cannot move ${B}.m to ${B}.b: state already manages ${B}.b`);
    expect(chained.diagnostics[0]!.detail).toContain(`reached through moved[0]`);
  });

  it("with --target, both addresses of every move must be targeted", () => {
    const moves = [{ from: `${B}.a`, to: `${B}.b`, blocks: [0] }];
    expect(movesExcludedByTargeting(moves, [`${B}.a`, `${B}.b`])).toBeNull();
    const excluded = movesExcludedByTargeting(moves, [`${B}.b`]);
    expect(excluded).toMatchObject({ code: "takoform.engine/moves-excluded-by-targeting", summary: "Moved resource instances excluded by targeting" });
    expect(excluded!.repair).toContain(`--target=${B}.a`);
  });
});
