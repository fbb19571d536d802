// Whether a plan made again after the upstream stacks applied stays within the plan shown
// (engine/stacks/consistent.ts): the same resources, the same actions, and the same planned values
// wherever the shown plan knew them; a value only known after apply may be anything. A saved plan
// holds its sensitive values as seals, and the re-planned value is compared with the seal.

import { describe, expect, it } from "vitest";
import { Unknown, UNKNOWN, type Attributes } from "../../src/core/index.ts";
import type { Plan, ResourceChange, TerraformActions } from "../../src/engine/plan-data.ts";
import { replanDifferences } from "../../src/engine/stacks/consistent.ts";
import { sealSensitive } from "../../src/secrets/index.ts";

const LINEAGE = "lineage-1";

function change(address: string, actions: TerraformActions, after: Attributes | null): ResourceChange {
  const [type, name] = address.split(".") as [string, string];
  return { address, type, name, actions, before: actions[0] === "create" ? null : {}, after, replacePaths: [], replaceReasons: [], sensitivePaths: [] };
}

function plan(...resourceChanges: ResourceChange[]): Plan {
  return {
    formatVersion: 1,
    stateLineage: LINEAGE,
    stateSerial: 3,
    resourceChanges,
    outputChanges: [],
    steps: [],
    diagnostics: [],
    destroy: false,
    refreshOnly: false,
  };
}

const details = (shown: Plan, replanned: Plan): string[] => replanDifferences("api", shown, replanned).map((d) => d.detail ?? "");

describe("a re-plan within the plan shown", () => {
  it("accepts values that were unknown until the upstream applied, and a change that became a no-op", () => {
    const shown = plan(
      change("takoform_edge_kv_namespace.own", ["update"], { name: "own", tags: { uid: Unknown.of("shared"), team: "a" }, list: [UNKNOWN, 2] }),
      change("takoform_edge_kv_namespace.other", ["update"], { name: "other", uid: Unknown.of("shared") }),
    );
    const replanned = plan(
      change("takoform_edge_kv_namespace.own", ["update"], { name: "own", tags: { uid: "u-7", team: "a" }, list: [{ deep: 1 }, 2] }),
      change("takoform_edge_kv_namespace.other", ["no-op"], { name: "other", uid: "u-7" }),
    );
    expect(replanDifferences("api", shown, replanned)).toEqual([]);
  });

  it("refuses another value where the plan shown knew one, naming the attribute and never the value", () => {
    const shown = plan(change("takoform_edge_kv_namespace.own", ["update"], { name: "own", tags: { team: "a", uid: UNKNOWN }, list: [1, 2] }));
    const cases: [Attributes, string][] = [
      [{ name: "own", tags: { team: "b", uid: "u" }, list: [1, 2] }, "another tags.team"],
      [{ name: "own", tags: { team: "a", uid: "u" }, list: [1, 3] }, "another list[1]"],
      [{ name: "own", tags: { team: "a", uid: "u" }, list: [1] }, "another list"],
      [{ name: "own", tags: { team: "a", uid: "u", extra: true }, list: [1, 2] }, "another tags.extra"],
      [{ name: "own", tags: { team: "a", uid: "u" } }, "another list"],
    ];
    for (const [after, at] of cases) {
      const [detail] = details(shown, plan(change("takoform_edge_kv_namespace.own", ["update"], after)));
      expect(detail).toBe(
        `Planned again with their applied values, it holds changes the plan shown did not: takoform_edge_kv_namespace.own: update, planning ${at} than the plan shown. Nothing of this stack was applied.`,
      );
      expect(detail).not.toContain('"b"');
    }
  });

  it("refuses another resource or another action, as before", () => {
    const shown = plan(change("takoform_edge_kv_namespace.own", ["update"], { name: "own" }));
    expect(
      details(
        shown,
        plan(
          change("takoform_edge_kv_namespace.own", ["delete", "create"], { name: "own" }),
          change("takoform_edge_kv_namespace.new", ["create"], { name: "new" }),
        ),
      ),
    ).toEqual([
      "Planned again with their applied values, it holds changes the plan shown did not: takoform_edge_kv_namespace.own: delete,create (the plan shown: update); takoform_edge_kv_namespace.new: create (not in the plan shown). Nothing of this stack was applied.",
    ]);
  });

  it("compares a saved plan's sealed sensitive value with the re-planned value under the plan's lineage", () => {
    const shown = plan(change("takoform_edge_kv_namespace.own", ["update"], { name: "own", secret: sealSensitive("s3cret", LINEAGE) }));
    const same = plan(change("takoform_edge_kv_namespace.own", ["update"], { name: "own", secret: "s3cret" }));
    expect(replanDifferences("api", shown, same)).toEqual([]);
    const other = details(shown, plan(change("takoform_edge_kv_namespace.own", ["update"], { name: "own", secret: "other" })));
    expect(other).toEqual([
      "Planned again with their applied values, it holds changes the plan shown did not: takoform_edge_kv_namespace.own: update, planning another secret than the plan shown. Nothing of this stack was applied.",
    ]);
    // Sealed under another salt, the same value is not the value shown.
    const foreign = plan(change("takoform_edge_kv_namespace.own", ["update"], { name: "own", secret: sealSensitive("s3cret", "lineage-2") }));
    expect(details(shown, foreign)).toHaveLength(1);
  });
});
