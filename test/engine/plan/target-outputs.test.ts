// Root outputs under --target, as Terraform 1.x prunes them (internal/terraform/transform_targets.go,
// selectTargetedNodes): an output is in a targeted plan only when it reads at least one resource
// and every resource it reads is in the targeted set (the targets and their dependencies). Any
// other output — one reading an untargeted resource, one reading no resource at all, one removed
// from the configuration — is neither planned, shown, nor changed in state by the apply; every
// output is left alone by a targeted destroy. Against the local host over HTTP.

import { describe, expect, it } from "vitest";
import { renderPlan } from "../../../src/views/human.ts";
import { planToJson } from "../../../src/views/json.ts";
import type { OutputChange } from "../../../src/engine/plan-data.ts";
import { apply, plan, stackOf, useEngine, withScratch } from "../../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";

/** The output changes as `name action before -> after`, no-ops included. */
function outputs(changes: readonly OutputChange[]): string[] {
  return changes.map(
    (o) => `${o.name} ${o.actions.join("+")} ${JSON.stringify(o.before ?? null)} -> ${o.afterUnknown ? "(unknown)" : JSON.stringify(o.after ?? null)}`,
  );
}

/** Two resources (a name change replaces one), an output on each, one on both, one on none; `gone` only in the first version. */
function doc(version: number, extra: Record<string, unknown> = {}, prefix = "to") {
  return {
    resource: { [KV]: { a: { name: `${prefix}-a-${version}` }, b: { name: `${prefix}-b-${version}` }, ...extra } },
    output: {
      a_name: { value: `\${${KV}.a.name}` },
      b_name: { value: `\${${KV}.b.name}` },
      both: { value: `\${${KV}.a.name}+\${${KV}.b.name}` },
      fixed: { value: `fixed-${version}` },
      ...(version === 1 ? { gone: { value: `\${${KV}.a.name}` } } : {}),
    },
  };
}

describe("outputs under --target", () => {
  const ctx = useEngine();

  it("plans and applies only the outputs every resource of which is targeted; the others keep their recorded values", () =>
    withScratch(async (local, store) => {
      expect((await apply(ctx.engine, await stackOf(local, doc(1)), store)).result?.ok).toBe(true);
      const first = await store.outputs();
      expect(first).toEqual({
        a_name: { value: "to-a-1", sensitive: false },
        b_name: { value: "to-b-1", sensitive: false },
        both: { value: "to-a-1+to-b-1", sensitive: false },
        fixed: { value: "fixed-1", sensitive: false },
        gone: { value: "to-a-1", sensitive: false },
      });

      const v2 = await stackOf(local, doc(2));
      const targeted = await plan(ctx.engine, v2, store, { targets: [`${KV}.a`] });
      expect(targeted.ok).toBe(true);
      expect(targeted.plan.resourceChanges.map((c) => `${c.address} ${c.actions.join("+")}`)).toEqual([`${KV}.a delete+create`]);
      expect(outputs(targeted.plan.outputChanges)).toEqual(['a_name update "to-a-1" -> "to-a-2"']);
      const json = planToJson(targeted.plan);
      expect(json["output_changes"]).toEqual({
        a_name: { actions: ["update"], before: "to-a-1", after: "to-a-2", after_unknown: false, before_sensitive: false, after_sensitive: false },
      });
      const text = renderPlan(targeted.plan, { color: false });
      expect(text).toContain('Changes to Outputs:\n  ~ a_name = "to-a-1" -> "to-a-2"\n');
      for (const name of ["b_name", "both", "fixed", "gone"]) expect(text).not.toContain(name);

      const run = await apply(ctx.engine, v2, store, { plan: { targets: [`${KV}.a`] } });
      expect(run.result?.ok).toBe(true);
      expect(await store.outputs()).toEqual({ ...first, a_name: { value: "to-a-2", sensitive: false } });
      // What the apply reports is what state now holds, the untouched outputs included.
      expect(run.result?.outputs).toEqual({ ...first, a_name: { value: "to-a-2", sensitive: false } });

      // Without --target the remaining changes are all there.
      const whole = await plan(ctx.engine, v2, store);
      expect(outputs(whole.plan.outputChanges)).toEqual([
        'a_name no-op "to-a-2" -> "to-a-2"',
        'b_name update "to-b-1" -> "to-b-2"',
        'both update "to-a-1+to-b-1" -> "to-a-2+to-b-2"',
        'fixed update "fixed-1" -> "fixed-2"',
        'gone delete "to-a-1" -> null',
      ]);
      expect((await apply(ctx.engine, v2, store)).result?.ok).toBe(true);
      expect(await store.outputs()).toEqual({
        a_name: { value: "to-a-2", sensitive: false },
        b_name: { value: "to-b-2", sensitive: false },
        both: { value: "to-a-2+to-b-2", sensitive: false },
        fixed: { value: "fixed-2", sensitive: false },
      });
    }));

  it("keeps an output whose resources are a target's dependencies, and none in a targeted destroy", () =>
    withScratch(async (local, store) => {
      const c = { c: { name: `\${${KV}.a.name}-c` } };
      const version = (n: number) => {
        const base = doc(n, c, "td");
        return { ...base, output: { ...base.output, c_name: { value: `\${${KV}.c.name}` } } };
      };
      expect((await apply(ctx.engine, await stackOf(local, version(1)), store)).result?.ok).toBe(true);
      const stack = await stackOf(local, version(2));

      // c depends on a: targeting c plans a too, so a's output is kept along with c's.
      const targeted = await plan(ctx.engine, stack, store, { targets: [`${KV}.c`] });
      expect(targeted.ok).toBe(true);
      expect(targeted.plan.resourceChanges.map((r) => r.address)).toEqual([`${KV}.a`, `${KV}.c`]);
      expect(outputs(targeted.plan.outputChanges)).toEqual(['a_name update "td-a-1" -> "td-a-2"', 'c_name update "td-a-1-c" -> "td-a-2-c"']);

      // A refresh-only plan with --target considers the same outputs: b's alone here.
      const refresh = await plan(ctx.engine, stack, store, { mode: "refresh-only", targets: [`${KV}.b`] });
      expect(refresh.ok).toBe(true);
      expect(outputs(refresh.plan.outputChanges)).toEqual(['b_name no-op "td-b-1" -> "td-b-1"']);

      // A targeted destroy leaves every output as recorded (Terraform issue 27151).
      const recorded = await store.outputs();
      const destroyPlan = await plan(ctx.engine, stack, store, { mode: "destroy", targets: [`${KV}.b`] });
      expect(destroyPlan.plan.resourceChanges.map((r) => `${r.address} ${r.actions.join("+")}`)).toEqual([`${KV}.b delete`]);
      expect(destroyPlan.plan.outputChanges).toEqual([]);
      const destroyed = await apply(ctx.engine, stack, store, { plan: { mode: "destroy", targets: [`${KV}.b`] } });
      expect(destroyed.result?.ok).toBe(true);
      expect((await store.list()).map((r) => r.address)).toEqual([`${KV}.a`, `${KV}.c`]);
      expect(await store.outputs()).toEqual(recorded);
    }));
});
