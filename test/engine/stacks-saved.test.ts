// The file of a saved plan of several stacks (engine/stacks/saved.ts): each stack's saved plan as
// `plan --out` writes one, the order and dependencies, and what each stack read from others kept
// only as digests (never a value in the clear), checked again at apply.

import { describe, expect, it } from "vitest";
import { Unknown } from "../../src/core/index.ts";
import { decodeAnyPlanFile, encodePlanFile, encodeStacksPlanFile, PlanFileError, staleReads } from "../../src/engine/index.ts";
import type { RemoteStateValue } from "../../src/engine/config/types.ts";
import type { ResolvedVariables } from "../../src/engine/config/variables/resolve.ts";
import type { Plan } from "../../src/engine/plan-data.ts";

const plan = (lineage: string): Plan =>
  ({ stateLineage: lineage, stateSerial: 3, resourceChanges: [], resourceDrift: [], outputChanges: [], steps: [], diagnostics: [] }) as unknown as Plan;
const variables = { values: new Map([["secret", "hunter2-secret"]]), sensitive: new Set(["secret"]) } as unknown as ResolvedVariables;
const saved = (lineage: string) => ({ plan: plan(lineage), stackDocument: "{}", variables, mode: "normal" as const, refresh: true });
const read = (outputs: RemoteStateValue["outputs"]): Map<string, RemoteStateValue> =>
  new Map([["cross-stack-reference-input-shared", { stack: "shared", describe: "its plan in this run", outputs, sealed: new Set<string>(), missing: false }]]);

describe("a saved plan of several stacks", () => {
  const text = encodeStacksPlanFile({
    order: ["shared", "api"],
    dependencies: new Map([
      ["shared", []],
      ["api", ["shared"]],
    ]),
    stacks: new Map([
      ["shared", { saved: saved("L-shared"), remote: new Map() }],
      ["api", { saved: saved("L-api"), remote: read({ name: "shared-kv-name", uid: Unknown.of("shared") }) }],
    ]),
  });

  it("round-trips each stack's plan, the order and the dependencies, keeping what was read only as digests", () => {
    expect(text).not.toContain("hunter2-secret");
    expect(text).not.toContain("shared-kv-name");
    const file = decodeAnyPlanFile(text);
    if (!("several" in file)) throw new Error("not a file of several stacks");
    expect(file.several.order).toEqual(["shared", "api"]);
    expect([...file.several.dependencies]).toEqual([
      ["shared", []],
      ["api", ["shared"]],
    ]);
    expect(file.several.stacks.get("api")!.saved.plan.stateLineage).toBe("L-api");
    expect(file.several.stacks.get("api")!.readsUnknown).toBe(true);
    expect(file.several.stacks.get("shared")!.readsUnknown).toBe(false);
    expect(Object.keys(file.several.stacks.get("api")!.saved.sensitiveVariables)).toEqual(["secret"]);
  });

  it("refuses as stale a stack whose known reads changed; unknown ones are not compared", () => {
    const file = decodeAnyPlanFile(text);
    if (!("several" in file)) throw new Error("not a file of several stacks");
    const api = file.several.stacks.get("api")!;
    expect(staleReads("api", api, read({ name: "shared-kv-name", uid: "u123" }))).toEqual([]);
    const moved = staleReads("api", api, read({ name: "another", uid: "u123" }));
    expect(moved).toHaveLength(1);
    expect(moved[0]).toMatchObject({ code: "takoform.engine/plan-file-stale" });
    expect(moved[0]!.detail).toContain('stack "shared": output "name"');
    expect(staleReads("api", api, read({ uid: "u123" }))).toHaveLength(1);
  });

  it("refuses a file whose order repeats or leaves out a stack, or whose record of what a stack read is anything but digests and unknowns", () => {
    const edit = (change: (doc: Record<string, any>) => void): string => {
      const doc = JSON.parse(text);
      change(doc);
      return JSON.stringify(doc);
    };
    const source = "cross-stack-reference-input-shared";
    for (const [damaged, detail] of [
      [edit((d) => (d.order = ["shared", "api", "shared"])), 'Its order names stack "shared" twice.'],
      [edit((d) => (d.order = ["api"])), 'It holds a plan of stack "shared", which its order does not name.'],
      [
        edit((d) => (d.stacks.api.reads[source].outputs.uid = null)),
        `What stack "api" read through "${source}" is not a record of digests and unknown values.`,
      ],
      [
        edit((d) => (d.stacks.api.reads[source].outputs.uid = { unknown: false })),
        `What stack "api" read through "${source}" is not a record of digests and unknown values.`,
      ],
      [edit((d) => (d.stacks.api.reads[source].outputs = [])), `What stack "api" read through "${source}" is not a record of digests and unknown values.`],
      [edit((d) => (d.dependencies.api = "shared")), 'Its dependencies of stack "api" are not a list of stack names.'],
      [edit((d) => (d.dependencies.api = [])), 'It records that stack "api" read from stack "shared", but not that it depends on it.'],
      [
        edit((d) => {
          d.order = ["api"];
          delete d.stacks.shared;
        }),
        'It records values unknown to stack "api" from a stack it does not hold, which no apply of it makes known.',
      ],
    ] as const) {
      try {
        decodeAnyPlanFile(damaged);
        expect.unreachable(detail);
      } catch (error) {
        expect((error as PlanFileError).diagnostics[0], detail).toMatchObject({ code: "takoform.engine/plan-file-invalid", detail });
      }
    }
  });

  it("reads a plan file of one stack as one, and refuses what is neither", () => {
    expect("one" in decodeAnyPlanFile(encodePlanFile(saved("L")))).toBe(true);
    expect(() => decodeAnyPlanFile('{"format":"nope"}')).toThrow(PlanFileError);
    try {
      decodeAnyPlanFile('{"format":"takoform-stacks-plan@1","order":["a"],"dependencies":{},"stacks":{}}');
      expect.unreachable();
    } catch (error) {
      expect((error as PlanFileError).diagnostics[0]).toMatchObject({ code: "takoform.engine/plan-file-invalid", detail: 'It lacks the plan of stack "a".' });
    }
  });
});
