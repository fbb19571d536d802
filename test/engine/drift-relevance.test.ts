// Which drift a plan reports (src/engine/plan/relevance.ts), against the local host over HTTP.
// Refresh keeps every difference (`resourceDrift`, `resource_drift` in JSON); a plan's note shows,
// per object, only the attributes its configuration sets (less ignore_changes) and those a planned
// change or a changed output reads; a refresh-only plan shows all of it.

import { TerraformOutput } from "cdktf";
import { describe, expect, it } from "vitest";
import { WorkerApp } from "../../src/constructs/worker-app.ts";
import { relevantAttributes } from "../../src/engine/plan/relevance.ts";
import type { ResourceChange } from "../../src/engine/plan-data.ts";
import type { StateStore } from "../../src/state/types.ts";
import { renderPlan } from "../../src/views/human.ts";
import { planToJson } from "../../src/views/json.ts";
import { apply, formRefOf, moduleSource, plan, stackOf, synthStack, useEngine, withScratch } from "../scenario/harness.ts";

const NOTE = "Note: Objects have changed outside of Takoform";
const Q = "takoform_at_least_once_queue";
const KV = "takoform_edge_kv_namespace";

/** The top-level attributes a drift entry changes. */
function changed(change: ResourceChange): string[] {
  const names = new Set([...Object.keys(change.before ?? {}), ...Object.keys(change.after ?? {})]);
  return [...names].filter((n) => JSON.stringify(change.before?.[n] ?? null) !== JSON.stringify(change.after?.[n] ?? null)).sort();
}

describe("drift a plan reports", () => {
  const ctx = useEngine();

  it("a ModuleWorker re-rendered by its own deployment's create is drift, but not reported unless the plan reads it", () =>
    withScratch(async (scratch, store) => {
      scratch.write("dist/index.js", moduleSource(1));
      const dist = scratch.path("dist");
      let worker = "";
      const build = (withOutput: boolean) =>
        synthStack(scratch, (stack) => {
          const app = new WorkerApp(stack, "app", { name: "counter", contentDir: dist });
          worker = `takoform_module_worker.${app.worker.friendlyUniqueId}`;
          if (withOutput) new TerraformOutput(stack, "worker_ready", { value: app.worker.ready });
        });
      const first = await apply(ctx.engine, (await build(false)).stack, store);
      expect(first.result?.ok).toBe(true);
      expect((await store.get(worker))!.attributes["ready"]).toBe(false); // recorded from its create response

      // The deployment landed after the worker's create: the host re-rendered the worker (§1.4).
      const quiet = await plan(ctx.engine, (await build(false)).stack, store);
      expect(quiet.ok).toBe(true);
      expect(quiet.plan.resourceDrift!.map((d) => [d.address, changed(d)])).toEqual([[worker, ["conditions", "ready", "revision"]]]);
      expect(quiet.plan.relevantAttributes).toEqual([{ resource: worker, attribute: ["name"] }]);
      expect(renderPlan(quiet.plan, { color: false })).not.toContain(NOTE);
      const json = planToJson(quiet.plan);
      expect((json["resource_drift"] as { address: string }[]).map((d) => d.address)).toEqual([worker]);
      expect(json["relevant_attributes"]).toEqual([{ resource: worker, attribute: ["name"] }]);

      const everything = await plan(ctx.engine, (await build(false)).stack, store, { mode: "refresh-only" });
      const shown = renderPlan(everything.plan, { color: false });
      expect(shown).toContain(NOTE);
      expect(shown).toMatch(/~ revision\s+= "1" -> "2"/);

      // An output that reads the worker's readiness makes that one attribute relevant.
      const reading = await plan(ctx.engine, (await build(true)).stack, store);
      expect(reading.plan.outputChanges.map((o) => [o.name, o.actions, o.after])).toEqual([["worker_ready", ["create"], true]]);
      expect(reading.plan.relevantAttributes).toEqual([
        { resource: worker, attribute: ["name"] },
        { resource: worker, attribute: ["ready"] },
      ]);
      const text = renderPlan(reading.plan, { color: false });
      expect(text).toContain(NOTE);
      expect(text).toContain(`# ${worker} has changed`);
      expect(text).toMatch(/~ ready\s+= false -> true/);
      expect(text).not.toMatch(/~ revision/);
      expect(text).not.toMatch(/~ conditions/);
    }));

  it("an out-of-band edit shows what the configuration sets and what a planned change reads, never the host's bookkeeping", () =>
    withScratch(async (scratch, store) => {
      const document = {
        resource: {
          [Q]: { q: { name: "rel-q", message_retention_seconds: 3600 } },
          [KV]: { k: { name: `rel-k-\${${Q}.q.generation}` } },
        },
      };
      expect((await apply(ctx.engine, await stackOf(scratch, document), store)).result?.ok).toBe(true);
      await retainOutOfBand("rel-q", 7200, store);

      const p = await plan(ctx.engine, await stackOf(scratch, document), store);
      expect(p.ok).toBe(true);
      expect(p.plan.resourceChanges.map((c) => [c.address, c.actions])).toEqual([
        [`${Q}.q`, ["update"]],
        [`${KV}.k`, ["delete", "create"]],
      ]);
      expect(p.plan.resourceDrift!.map((d) => [d.address, changed(d)])).toEqual([
        [`${Q}.q`, ["conditions", "generation", "message_retention_seconds", "revision"]],
      ]);
      // q's own configured attributes, and the generation k's name reads.
      expect(p.plan.relevantAttributes).toEqual([
        { resource: `${Q}.q`, attribute: ["generation"] },
        { resource: `${Q}.q`, attribute: ["message_retention_seconds"] },
        { resource: `${Q}.q`, attribute: ["name"] },
      ]);
      const note = renderPlan(p.plan, { color: false }).split("Takoform will perform the following actions:")[0]!;
      expect(note).toContain(NOTE);
      expect(note).toContain(`# ${Q}.q has changed`);
      expect(note).toMatch(/~ message_retention_seconds\s+= 3600 -> 7200/);
      expect(note).toMatch(/~ generation\s+= "1" -> "2"/);
      expect(note).not.toMatch(/~ revision/);
      expect(note).not.toMatch(/~ conditions/);
    }));

  it("an edit to an attribute ignore_changes leaves to the host is kept as drift but not reported", () =>
    withScratch(async (scratch, store) => {
      const document = {
        resource: { [Q]: { q: { name: "ign-rel-q", message_retention_seconds: 3600, lifecycle: { ignore_changes: ["message_retention_seconds"] } } } },
      };
      expect((await apply(ctx.engine, await stackOf(scratch, document), store)).result?.ok).toBe(true);
      await retainOutOfBand("ign-rel-q", 7200, store);
      const p = await plan(ctx.engine, await stackOf(scratch, document), store);
      expect(p.plan.resourceChanges.map((c) => [c.address, c.actions])).toEqual([[`${Q}.q`, ["no-op"]]]);
      expect(p.plan.resourceDrift!.map((d) => [d.address, changed(d)])).toEqual([
        [`${Q}.q`, ["conditions", "generation", "message_retention_seconds", "revision"]],
      ]);
      expect(p.plan.relevantAttributes).toEqual([{ resource: `${Q}.q`, attribute: ["name"] }]);
      expect(renderPlan(p.plan, { color: false })).not.toContain(NOTE);
      const everything = await plan(ctx.engine, await stackOf(scratch, document), store, { mode: "refresh-only" });
      expect(renderPlan(everything.plan, { color: false })).toMatch(/~ message_retention_seconds\s+= 3600 -> 7200/);
    }));

  it("follows what a planned change reads through the configurations it reaches", () =>
    withScratch(async (scratch) => {
      const stack = await stackOf(scratch, {
        resource: {
          [KV]: {
            c: { name: "chain-c" },
            b: { name: `chain-\${${KV}.c.uid}` },
            d: { name: "chain-d" },
            untouched: { name: "chain-u" },
          },
          [Q]: { a: { name: `\${${KV}.b.uid}`, lifecycle: { replace_triggered_by: [`\${${KV}.d}`] } } },
        },
      });
      const change = (address: string, actions: ResourceChange["actions"]): ResourceChange => ({
        address,
        type: address.split(".")[0]!,
        name: address.split(".")[1]!,
        actions,
        before: null,
        after: null,
        replacePaths: [],
        replaceReasons: [],
        sensitivePaths: [],
      });
      const drift = [`${KV}.b`, `${KV}.c`, `${KV}.d`, `${KV}.untouched`].map((a) => change(a, ["update"]));
      // a reads b.uid, which b does not configure: a computed value reads all b reads, so c.uid;
      // replace_triggered_by reads the whole of d; nothing reads `untouched` beyond its own name.
      expect(relevantAttributes(stack, [change(`${Q}.a`, ["update"]), change(`${KV}.untouched`, ["no-op"])], [], drift)).toEqual([
        { resource: `${KV}.b`, attribute: ["name"] },
        { resource: `${KV}.b`, attribute: ["uid"] },
        { resource: `${KV}.c`, attribute: ["name"] },
        { resource: `${KV}.c`, attribute: ["uid"] },
        { resource: `${KV}.d`, attribute: [] },
        { resource: `${KV}.d`, attribute: ["name"] },
        { resource: `${KV}.untouched`, attribute: ["name"] },
      ]);
      // Nothing planned: only what each configuration sets.
      expect(relevantAttributes(stack, [change(`${Q}.a`, ["no-op"])], [], drift).map((r) => `${r.resource}.${r.attribute.join(".")}`)).toEqual([
        `${KV}.b.name`,
        `${KV}.c.name`,
        `${KV}.d.name`,
        `${KV}.untouched.name`,
      ]);
    }));

  /** Another client changes the queue's retention through the Host API, fenced on what it read. */
  async function retainOutOfBand(name: string, seconds: number, store: StateStore): Promise<void> {
    const record = (await store.get(`${Q}.q`))!;
    const stored = ctx.host.host.controls.resource({ tenant: "dev", space: "default", apiVersion: record.ref!.apiVersion, kind: record.ref!.kind, name })!;
    const spec = JSON.parse(stored.spec) as Record<string, unknown>;
    await ctx.engine.client.applyResource(
      { ref: formRefOf(record.attributes), name, space: "default", spec: { ...spec, messageRetentionSeconds: seconds } },
      { expectedUid: stored.uid, expectedGeneration: String(stored.generation) },
    );
  }
});
