// Applying against the local host over HTTP: failures stop dependents only, an inconsistent
// final plan is refused, saved plans round-trip and go stale, imports, refresh-only drift, the
// drift-forced replacement of a held revision repaired side by side (also from a saved plan),
// and sensitive outputs.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { WorkerApp } from "../../src/constructs/worker-app.ts";
import type { FormRef } from "../../src/core/protocol.ts";
import { UNKNOWN } from "../../src/core/values.ts";
import { applyPlan } from "../../src/engine/apply/execute.ts";
import { createPlan } from "../../src/engine/plan/build.ts";
import { decodePlanFile, encodePlanFile } from "../../src/engine/plan/file.ts";
import type { Plan } from "../../src/engine/plan-data.ts";
import { renderPlan } from "../../src/views/human.ts";
import { readSnapshot, runApply } from "../../src/engine/run.ts";
import { resolveVariables } from "../../src/engine/config/variables/resolve.ts";
import { bundledRegistry } from "../../src/registry/bundled.ts";
import { apply, moduleSource, plan, stackOf, synthStack, timeline, useEngine, withScratch } from "../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";
const Q = "takoform_at_least_once_queue";

function defaultRef(kind: string): FormRef {
  const ref = bundledRegistry.defaultCreates.find((r) => r.kind === kind && r.apiVersion === "edge.takoform-cdk.dev/v1beta1")!;
  return { apiVersion: ref.apiVersion, kind: ref.kind, definitionVersion: ref.definitionVersion, schemaDigest: ref.schemaDigest };
}

describe("apply", () => {
  const ctx = useEngine();

  it("stops the dependents of a failed step, finishes independent branches, and exits not ok", () =>
    withScratch(async (local, store) => {
      await ctx.engine.client.applyResource({ ref: defaultRef("EdgeKVNamespace"), name: "fail-taken", space: "default", spec: {} });
      const stack = await stackOf(local, {
        resource: { [KV]: { dup: { name: "fail-taken" }, child: { name: `\${${KV}.dup.name}-child` }, indep: { name: "fail-indep" } } },
      });
      const run = await apply(ctx.engine, stack, store);
      expect(run.status).toBe("applied");
      expect(run.result?.ok).toBe(false);
      const outcome = Object.fromEntries(run.result!.outcomes.map((o) => [o.address, o.status]));
      expect(outcome).toEqual({ [`${KV}.dup`]: "failed", [`${KV}.child`]: "skipped", [`${KV}.indep`]: "ok" });
      expect(run.result!.outcomes.find((o) => o.status === "skipped")!.blockedBy).toBe(`create:${KV}.dup`);
      expect(run.diagnostics.some((d) => d.severity === "error" && d.address === `${KV}.dup`)).toBe(true);
      expect((await store.list()).map((r) => r.address)).toEqual([`${KV}.indep`]);
      expect(await store.inFlight()).toEqual([]);
    }));

  it("refuses a step whose final plan contradicts a value the shown plan knew", () =>
    withScratch(async (local, store) => {
      const stack = await stackOf(local, { resource: { [KV]: { a: { name: "incons-a" } } } });
      const setup = ctx.engine.setup(stack);
      const { plan: shown } = await createPlan({ ...setup, state: await readSnapshot(store) });
      const doctored: Plan = {
        ...shown,
        resourceChanges: shown.resourceChanges.map((c) => ({ ...c, after: { ...c.after, name: "something-else", uid: UNKNOWN } })),
      };
      ctx.host.mutations.length = 0;
      const result = await applyPlan({ ...setup, store, plan: doctored });
      expect(result.ok).toBe(false);
      expect(result.diagnostics[0]!.code).toBe("takoform.engine/inconsistent-final-plan");
      expect(result.diagnostics[0]!.detail).toContain("name");
      expect(ctx.host.mutations).toEqual([]);
    }));

  it("applies a saved plan exactly, and refuses one made before state moved", () =>
    withScratch(async (local, store) => {
      const document = { variable: { suffix: { type: "string" } }, resource: { [KV]: { a: { name: "pf-${var.suffix}" } } } };
      const stack = await stackOf(local, document);
      const variables = resolveVariables(stack.variables, { values: { suffix: "one" } });
      const setup = { provider: ctx.engine.setup(stack).provider, stack, variables };
      const made = await createPlan({ ...setup, state: await readSnapshot(store) });
      const text = encodePlanFile({ plan: made.plan, stackDocument: JSON.stringify(document), variables, mode: "normal", refresh: true });
      const saved = decodePlanFile(text);
      expect(saved.variables).toEqual({ suffix: "one" });
      expect(renderPlan(saved.plan, { color: false })).toBe(renderPlan(made.plan, { color: false }));
      const run = await runApply(setup, store, { lock: { holder: "test" }, saved });
      expect(run.status).toBe("applied");
      expect(run.result?.ok).toBe(true);
      expect((await store.list()).map((r) => r.name)).toEqual(["pf-one"]);

      // A plan made now, then state moves (another apply), then the saved plan is stale.
      const stackTwo = await stackOf(local, { resource: { [KV]: { a: { name: "pf-one" }, b: { name: "pf-two" } } } });
      const setupTwo = ctx.engine.setup(stackTwo);
      const second = decodePlanFile(
        encodePlanFile({
          plan: (await createPlan({ ...setupTwo, state: await readSnapshot(store) })).plan,
          stackDocument: "{}",
          variables: setupTwo.variables,
          mode: "normal",
          refresh: true,
        }),
      );
      const third = await createPlan({ ...setupTwo, state: await readSnapshot(store) });
      expect((await apply(ctx.engine, stackTwo, store, { saved: { ...second, plan: third.plan } })).status).toBe("applied");
      ctx.host.mutations.length = 0;
      const stale = await apply(ctx.engine, stackTwo, store, { saved: second });
      expect(stale.status).toBe("stale-plan");
      expect(stale.diagnostics[0]!.code).toBe("takoform.engine/plan-file-stale");
      expect(ctx.host.mutations).toEqual([]);
    }));

  it("imports an existing host resource from an import block by JSON id, then plans no changes", () =>
    withScratch(async (local, store) => {
      const ref = defaultRef("AtLeastOnceQueue");
      const created = await ctx.engine.client.applyResource({ ref, name: "imp-q", space: "default", spec: { messageRetentionSeconds: 600 } });
      const id = JSON.stringify({ space: "default", ...ref, name: "imp-q" });
      const stack = await stackOf(local, {
        import: [{ to: `${Q}.q`, id }],
        resource: { [Q]: { q: { name: "imp-q", message_retention_seconds: 600 } } },
      });
      const p = await plan(ctx.engine, stack, store);
      expect(p.plan.diagnostics).toEqual([]);
      const change = p.plan.resourceChanges[0]!;
      expect(change.importingId).toBe(id);
      expect(change.actions).toEqual(["no-op"]);
      expect(renderPlan(p.plan, { color: false })).toContain("Plan: 1 to import, 0 to add, 0 to change, 0 to destroy.");
      ctx.host.mutations.length = 0;
      const run = await apply(ctx.engine, stack, store);
      expect(run.result?.ok).toBe(true);
      expect(ctx.host.mutations).toEqual([]);
      const record = (await store.get(`${Q}.q`))!;
      expect(record.uid).toBe((created as { resource?: { metadata?: { uid?: string } } }).resource?.metadata?.uid ?? record.uid);
      const again = await plan(ctx.engine, stack, store);
      expect(again.plan.resourceChanges.map((c) => [c.actions, c.importingId])).toEqual([[["no-op"], undefined]]);
    }));

  it("shows and records what changed on the host (refresh-only), without touching the host", () =>
    withScratch(async (local, store) => {
      const stack = await stackOf(local, { resource: { [KV]: { gone: { name: "drift-gone" }, kept: { name: "drift-kept" } } } });
      expect((await apply(ctx.engine, stack, store)).result?.ok).toBe(true);
      const gone = (await store.get(`${KV}.gone`))!;
      ctx.host.host.controls.deleteOutOfBand({ tenant: "dev", space: "default", apiVersion: gone.ref!.apiVersion, kind: gone.ref!.kind, name: "drift-gone" });
      const p = await plan(ctx.engine, stack, store, { mode: "refresh-only" });
      expect(p.plan.resourceDrift!.map((c) => [c.address, c.actions])).toEqual([[`${KV}.gone`, ["delete"]]]);
      expect(renderPlan(p.plan, { color: false })).toContain(`# ${KV}.gone has been deleted`);
      expect(await store.get(`${KV}.gone`)).toBeDefined(); // a plan writes nothing
      ctx.host.mutations.length = 0;
      const run = await apply(ctx.engine, stack, store, { plan: { mode: "refresh-only" } });
      expect(run.status).toBe("applied");
      expect(ctx.host.mutations).toEqual([]);
      expect(await store.get(`${KV}.gone`)).toBeUndefined();
      const next = await plan(ctx.engine, stack, store);
      expect(next.plan.resourceChanges.find((c) => c.address === `${KV}.gone`)!.actions).toEqual(["create"]);
    }));

  it("repairs a drift-forced replacement of a held revision side by side, from a saved plan too: the apply names the successor exactly as the plan did", () =>
    withScratch(async (local, store) => {
      await ctx.engine.client.applyResource({ ref: defaultRef("EdgeKVNamespace"), name: "held-kv", space: "default", spec: {} });
      local.write("dist/index.js", moduleSource(1));
      const { stack, file } = await synthStack(
        local,
        (s) => void new WorkerApp(s, "app", { name: "held", contentDir: local.path("dist"), kvBindings: { CACHE: "held-kv" } }),
      );
      expect((await apply(ctx.engine, stack, store)).result?.ok).toBe(true);
      const held = (await store.list()).find((r) => r.type === "takoform_worker_version")!;
      // The bound namespace is re-created out of band: the version now holds a stale relation.
      ctx.host.host.controls.recreateOutOfBand({
        tenant: "dev",
        space: "default",
        apiVersion: "edge.takoform-cdk.dev/v1beta1",
        kind: "EdgeKVNamespace",
        name: "held-kv",
      });
      const setup = ctx.engine.setup(stack);
      const made = await createPlan({ ...setup, state: await readSnapshot(store) });
      expect(made.plan.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      const change = made.plan.resourceChanges.find((c) => c.address === held.address)!;
      expect(change.actions).toEqual(["create", "delete"]);
      expect(change.actionReason).toBe("relation_drift_recovery");
      const successor = change.after!["name"] as string;
      expect(successor).toMatch(new RegExp(`^${held.name}-[0-9a-f]{12}$`));
      const saved = decodePlanFile(
        encodePlanFile({ plan: made.plan, stackDocument: readFileSync(file, "utf8"), variables: setup.variables, mode: "normal", refresh: true }),
      );
      ctx.host.mutations.length = 0;
      const run = await runApply(setup, store, { lock: { holder: "test" }, saved });
      expect(run.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      expect(run.result?.ok).toBe(true);
      expect(timeline(ctx.host.mutations)).toEqual([
        `PUT WorkerVersion ${successor} 201`,
        "PUT WorkerDeployment held-deployment 200",
        `DELETE WorkerVersion ${held.name} 204`,
      ]);
      const again = await plan(ctx.engine, stack, store);
      expect(again.plan.resourceChanges.filter((c) => c.actions[0] !== "no-op").map((c) => c.address)).toEqual([]);
    }));

  it("stores outputs, sensitive ones only sealed, and a destroy removes them", () =>
    withScratch(async (local, store) => {
      const stack = await stackOf(local, {
        resource: { [KV]: { o: { name: "out-o" } } },
        output: { uid: { value: `\${${KV}.o.uid}` }, secret: { value: `\${${KV}.o.name}`, sensitive: true } },
      });
      const run = await apply(ctx.engine, stack, store);
      expect(run.result?.ok).toBe(true);
      const stored = await store.outputs();
      expect(stored["uid"]!.value).toBe((await store.get(`${KV}.o`))!.uid);
      expect(stored["secret"]!.sensitive).toBe(true);
      expect(JSON.stringify(stored)).not.toContain("out-o");
      const noChange = await plan(ctx.engine, stack, store);
      expect(noChange.plan.outputChanges.map((o) => o.actions[0])).toEqual(["no-op", "no-op"]);
      expect((await apply(ctx.engine, stack, store, { plan: { mode: "destroy" } })).result?.ok).toBe(true);
      expect(await store.outputs()).toEqual({});
      expect(timeline(ctx.host.mutations).at(-1)).toBe("DELETE EdgeKVNamespace out-o 204");
    }));

  it("keeps a stored sensitive output, still sealed, when a failed step leaves it unknown", () =>
    withScratch(async (local, store) => {
      const first = await stackOf(local, {
        resource: { [KV]: { k: { name: "keep-k" } } },
        output: { plain: { value: `\${${KV}.k.uid}` }, secret: { value: `\${${KV}.k.name}`, sensitive: true } },
      });
      expect((await apply(ctx.engine, first, store)).result?.ok).toBe(true);
      const before = await store.outputs();
      expect(before["secret"]).toMatchObject({ sensitive: true, value: { $sensitive: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) } });

      // The outputs now name a resource whose create fails (its name is taken on the host).
      await ctx.engine.client.applyResource({ ref: defaultRef("EdgeKVNamespace"), name: "keep-taken", space: "default", spec: {} });
      const second = await stackOf(local, {
        resource: { [KV]: { k: { name: "keep-k" }, t: { name: "keep-taken" } } },
        output: { plain: { value: `\${${KV}.t.uid}` }, secret: { value: `\${${KV}.t.name}`, sensitive: true } },
      });
      const run = await apply(ctx.engine, second, store);
      expect(run.result?.ok).toBe(false);
      // Both outputs keep what was stored; the sensitive one keeps its seal (not dropped, not sealed twice).
      expect(await store.outputs()).toEqual(before);
      expect(run.result?.outputs["secret"]).toEqual({ value: before["secret"]!.value, sensitive: true });
    }));
});
