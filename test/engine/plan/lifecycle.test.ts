// Planning behaviour against the local host over HTTP: unknown propagation, ignore_changes,
// replace_triggered_by, create_before_destroy inheritance, prevent_destroy, --target, orphans
// and destroy order, and cycles.

import { describe, expect, it } from "vitest";
import { isUnknown } from "../../../src/core/values.ts";
import { renderPlan } from "../../../src/views/human.ts";
import { planToJson } from "../../../src/views/json.ts";
import { apply, plan, stackOf, timeline, useEngine, withScratch } from "../../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";
const Q = "takoform_at_least_once_queue";

describe("planning", () => {
  const ctx = useEngine();

  it("shows a reference to a not-yet-known attribute as (known after apply), never a placeholder string", () =>
    withScratch(async (local, store) => {
      const stack = await stackOf(local, {
        resource: { [KV]: { a: { name: "unk-a" }, b: { name: `\${${KV}.a.uid}` }, c: { name: `c-\${${KV}.a.uid}` } } },
        output: { b_name: { value: `\${${KV}.b.name}` } },
      });
      const { plan: p, ok } = await plan(ctx.engine, stack, store);
      expect(ok).toBe(true);
      const b = p.resourceChanges.find((c) => c.address === `${KV}.b`)!;
      const c = p.resourceChanges.find((x) => x.address === `${KV}.c`)!;
      expect(isUnknown(b.after!["name"])).toBe(true);
      expect(isUnknown(c.after!["name"])).toBe(true); // a template with an unknown part is unknown as a whole
      const text = renderPlan(p, { color: false });
      expect(text).toMatch(/\+ name\s+= \(known after apply\)/);
      expect(text).toContain("+ b_name = (known after apply)");
      const json = planToJson(p);
      const jb = (json["resource_changes"] as Record<string, any>[]).find((r) => r["address"] === `${KV}.b`)!;
      expect(jb["change"].after_unknown.name).toBe(true);
      expect(jb["change"].after.name).toBeUndefined();
      expect(JSON.stringify(json)).not.toContain("${");
      const run = await apply(ctx.engine, stack, store);
      expect(run.result?.ok).toBe(true);
      const records = await store.list();
      const a = records.find((r) => r.address === `${KV}.a`)!;
      expect(records.find((r) => r.address === `${KV}.b`)!.name).toBe(a.uid);
      expect(records.find((r) => r.address === `${KV}.c`)!.name).toBe(`c-${a.uid}`);
      expect(run.result?.outputs["b_name"]).toEqual({ value: a.uid, sensitive: false });
    }));

  it("ignores configured changes listed in ignore_changes", () =>
    withScratch(async (local, store) => {
      const doc = (retention: number, ignore: boolean) => ({
        resource: {
          [Q]: {
            q: { name: "ign-q", message_retention_seconds: retention, ...(ignore ? { lifecycle: { ignore_changes: ["message_retention_seconds"] } } : {}) },
          },
        },
      });
      expect((await apply(ctx.engine, await stackOf(local, doc(3600, true)), store)).result?.ok).toBe(true);
      const ignored = await plan(ctx.engine, await stackOf(local, doc(7200, true)), store);
      expect(ignored.plan.resourceChanges.map((c) => c.actions)).toEqual([["no-op"]]);
      const honoured = await plan(ctx.engine, await stackOf(local, doc(7200, false)), store);
      expect(honoured.plan.resourceChanges.map((c) => c.actions)).toEqual([["update"]]);
      expect(honoured.plan.resourceChanges[0]!.after!["message_retention_seconds"]).toBe(7200);
    }));

  it("replaces a resource when a replace_triggered_by reference changes", () =>
    withScratch(async (local, store) => {
      const doc = (retention: number, trigger: string) => ({
        resource: {
          [Q]: { q: { name: "trg-q", message_retention_seconds: retention } },
          [KV]: { k: { name: "trg-k", lifecycle: { replace_triggered_by: [trigger] } } },
        },
      });
      expect((await apply(ctx.engine, await stackOf(local, doc(3600, `\${${Q}.q}`)), store)).result?.ok).toBe(true);
      const unchanged = await plan(ctx.engine, await stackOf(local, doc(3600, `\${${Q}.q}`)), store);
      expect(unchanged.plan.resourceChanges.every((c) => c.actions[0] === "no-op")).toBe(true);

      const whole = await plan(ctx.engine, await stackOf(local, doc(7200, `\${${Q}.q}`)), store);
      const k = whole.plan.resourceChanges.find((c) => c.address === `${KV}.k`)!;
      expect(k.actions).toEqual(["delete", "create"]);
      expect(k.actionReason).toBe("replace_by_triggers");
      expect(renderPlan(whole.plan, { color: false })).toContain("(replace_triggered_by)");

      const attribute = await plan(ctx.engine, await stackOf(local, doc(7200, `\${${Q}.q.delivery_delay_seconds}`)), store);
      expect(attribute.plan.resourceChanges.find((c) => c.address === `${KV}.k`)!.actions).toEqual(["no-op"]);
      const attribute2 = await plan(ctx.engine, await stackOf(local, doc(7200, `\${${Q}.q.message_retention_seconds}`)), store);
      expect(attribute2.plan.resourceChanges.find((c) => c.address === `${KV}.k`)!.actions).toEqual(["delete", "create"]);

      ctx.host.mutations.length = 0;
      const run = await apply(ctx.engine, await stackOf(local, doc(7200, `\${${Q}.q}`)), store);
      expect(run.result?.ok).toBe(true);
      // The old k may go while q is updated; the new k waits for both.
      const t = timeline(ctx.host.mutations);
      expect([...t].sort()).toEqual(["DELETE EdgeKVNamespace trg-k 204", "PUT AtLeastOnceQueue trg-q 200", "PUT EdgeKVNamespace trg-k 201"]);
      expect(t[2]).toBe("PUT EdgeKVNamespace trg-k 201");
    }));

  it("makes a dependency of a create_before_destroy resource create-before-destroy as well", () =>
    withScratch(async (local, store) => {
      const doc = (name: string) => ({
        resource: { [KV]: { a: { name }, b: { name: `\${${KV}.a.name}-b`, lifecycle: { create_before_destroy: true } } } },
      });
      expect((await apply(ctx.engine, await stackOf(local, doc("inh-a")), store)).result?.ok).toBe(true);
      const p = await plan(ctx.engine, await stackOf(local, doc("inh-a2")), store);
      expect(p.ok).toBe(true);
      expect(p.plan.resourceChanges.map((c) => [c.address, c.actions.join(",")])).toEqual([
        [`${KV}.a`, "create,delete"],
        [`${KV}.b`, "create,delete"],
      ]);
      ctx.host.mutations.length = 0;
      const run = await apply(ctx.engine, await stackOf(local, doc("inh-a2")), store);
      expect(run.result?.ok).toBe(true);
      expect(timeline(ctx.host.mutations)).toEqual([
        "PUT EdgeKVNamespace inh-a2 201",
        "PUT EdgeKVNamespace inh-a2-b 201",
        "DELETE EdgeKVNamespace inh-a-b 204",
        "DELETE EdgeKVNamespace inh-a 204",
      ]);
      expect((await store.list()).map((r) => r.name)).toEqual(["inh-a2", "inh-a2-b"]);
    }));

  it("refuses to plan the destruction or replacement of a prevent_destroy resource, and mutates nothing", () =>
    withScratch(async (local, store) => {
      const doc = (name: string) => ({ resource: { [KV]: { p: { name, lifecycle: { prevent_destroy: true } } } } });
      expect((await apply(ctx.engine, await stackOf(local, doc("pd-a")), store)).result?.ok).toBe(true);
      ctx.host.mutations.length = 0;
      const replace = await apply(ctx.engine, await stackOf(local, doc("pd-b")), store);
      expect(replace.status).toBe("plan-failed");
      expect(replace.diagnostics.map((d) => d.code)).toContain("takoform.engine/prevent-destroy");
      const destroy = await apply(ctx.engine, await stackOf(local, doc("pd-a")), store, { plan: { mode: "destroy" } });
      expect(destroy.status).toBe("plan-failed");
      expect(destroy.diagnostics.find((d) => d.code === "takoform.engine/prevent-destroy")!.summary).toContain(`${KV}.p`);
      expect(ctx.host.mutations).toEqual([]);
    }));

  it("restricts a plan to --target and its dependencies, and a destroy to the target and its dependents", () =>
    withScratch(async (local, store) => {
      const doc = {
        resource: {
          [KV]: { base: { name: "tg-base" }, mid: { name: `\${${KV}.base.name}-mid` }, top: { name: `\${${KV}.mid.name}-top` }, other: { name: "tg-other" } },
        },
      };
      const stack = await stackOf(local, doc);
      const targeted = await plan(ctx.engine, stack, store, { targets: [`${KV}.mid`] });
      expect(targeted.plan.resourceChanges.map((c) => c.address)).toEqual([`${KV}.base`, `${KV}.mid`]);
      const run = await apply(ctx.engine, stack, store, { plan: { targets: [`${KV}.mid`] } });
      expect(run.result?.ok).toBe(true);
      expect((await store.list()).map((r) => r.address)).toEqual([`${KV}.base`, `${KV}.mid`]);
      expect((await apply(ctx.engine, stack, store)).result?.ok).toBe(true);
      ctx.host.mutations.length = 0;
      const destroy = await apply(ctx.engine, stack, store, { plan: { mode: "destroy", targets: [`${KV}.mid`] } });
      expect(destroy.result?.ok).toBe(true);
      expect(timeline(ctx.host.mutations)).toEqual(["DELETE EdgeKVNamespace tg-base-mid-top 204", "DELETE EdgeKVNamespace tg-base-mid 204"]);
      const unknown = await plan(ctx.engine, stack, store, { targets: [`${KV}.nope`] });
      expect(unknown.ok).toBe(false);
      expect(unknown.plan.diagnostics[0]!.code).toBe("takoform.engine/target-unknown");
    }));

  it("deletes resources removed from the configuration, dependents first", () =>
    withScratch(async (local, store) => {
      const full = await stackOf(local, { resource: { [KV]: { a: { name: "orph-a" }, b: { name: `\${${KV}.a.name}-b` }, keep: { name: "orph-keep" } } } });
      expect((await apply(ctx.engine, full, store)).result?.ok).toBe(true);
      const reduced = await stackOf(local, { resource: { [KV]: { keep: { name: "orph-keep" } } } });
      const p = await plan(ctx.engine, reduced, store);
      const deletes = p.plan.resourceChanges.filter((c) => c.actions[0] === "delete");
      expect(deletes.map((c) => [c.address, c.actionReason])).toEqual([
        [`${KV}.a`, "delete_because_no_resource_config"],
        [`${KV}.b`, "delete_because_no_resource_config"],
      ]);
      expect(renderPlan(p.plan, { color: false })).toContain(`# ${KV}.a will be destroyed (not in configuration)`);
      ctx.host.mutations.length = 0;
      expect((await apply(ctx.engine, reduced, store)).result?.ok).toBe(true);
      expect(timeline(ctx.host.mutations)).toEqual(["DELETE EdgeKVNamespace orph-a-b 204", "DELETE EdgeKVNamespace orph-a 204"]);
    }));

  it("plans against state as recorded with refresh off, and against the host with it on", () =>
    withScratch(async (local, store) => {
      const stack = await stackOf(local, { resource: { [KV]: { r: { name: "rf-r" } } } });
      expect((await apply(ctx.engine, stack, store)).result?.ok).toBe(true);
      const record = (await store.get(`${KV}.r`))!;
      ctx.host.host.controls.deleteOutOfBand({ tenant: "dev", space: "default", apiVersion: record.ref!.apiVersion, kind: record.ref!.kind, name: "rf-r" });
      const blind = await plan(ctx.engine, stack, store, { refresh: false });
      expect(blind.plan.resourceChanges.map((c) => c.actions)).toEqual([["no-op"]]);
      expect(blind.plan.resourceDrift).toEqual([]);
      const seeing = await plan(ctx.engine, stack, store);
      expect(seeing.plan.resourceChanges.map((c) => c.actions)).toEqual([["create"]]);
      expect(seeing.plan.resourceDrift!.map((c) => c.actions)).toEqual([["delete"]]);
    }));

  it("refuses a resource type the provider does not serve", () =>
    withScratch(async (local, store) => {
      const outcome = await plan(ctx.engine, await stackOf(local, { resource: { takoform_nothing: { x: { name: "x" } } } }), store);
      expect(outcome.ok).toBe(false);
      expect(outcome.plan.diagnostics.map((d) => [d.code, d.address])).toEqual([["takoform.engine/unknown-resource-type", "takoform_nothing.x"]]);
    }));

  it("stops at a dependency cycle, naming its resources and the edge that closes it", () =>
    withScratch(async (local, store) => {
      const stack = await stackOf(local, {
        resource: { [KV]: { x: { name: `\${${KV}.y.name}-x` }, y: { name: `\${${KV}.x.name}-y` }, z: { name: "cyc-z" } } },
      });
      ctx.host.mutations.length = 0;
      const run = await apply(ctx.engine, stack, store);
      expect(run.status).toBe("plan-failed");
      const cycle = run.diagnostics.find((d) => d.code === "takoform.engine/cycle")!;
      expect(cycle.summary).toBe(`Dependency cycle between ${KV}.x, ${KV}.y`);
      expect(cycle.detail).toContain("The edge that closes it:");
      expect(cycle.detail).toContain(`name uses \${${KV}.`);
      expect(ctx.host.mutations).toEqual([]);
    }));
});
