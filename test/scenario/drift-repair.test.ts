// Relation drift under a held revision (issue 11 item 11; decision 0015 rule 9 meeting decision
// 0029). The KV namespace a WorkerVersion binds is deleted and created again out of band, over
// the host's HTTP API, while the deployment holds that version. The repair is one `takoform apply`:
//
//   PUT    WorkerVersion    <derived>-<12 hex of SHA-256(old version uid)> 201   (pinned to the new namespace)
//   PUT    WorkerDeployment <name>-deployment 200                                 (moves to it, in place)
//   DELETE WorkerVersion    <derived> 204                                         (the drifted one)
//
// while a second client samples the ModuleWorker's Ready condition and never sees it False; the
// next plan is empty. The same holds for a namespace the stack manages itself, once the user has
// adopted its new incarnation (uid-mismatch, decision 0017). A pinned revision name cannot move
// aside, so the same situation is refused at plan with a repair that is then followed and works;
// a derived name without create_before_destroy is refused too (the held revision's delete would
// come first), and a replace_triggered_by replacement gets a repair about the trigger.

import { createHash, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Construct } from "constructs";
import { HostClient } from "../../src/client/client.ts";
import { AtLeastOnceQueue, EdgeKVNamespace, ModuleWorker, WorkerBundle, WorkerDeployment, WorkerVersion } from "../../src/constructs/index.ts";
import { WorkerApp } from "../../src/constructs/worker-app.ts";
import type { FormRef } from "../../src/core/protocol.ts";
import { renderPlan } from "../../src/views/human.ts";
import { DEV_TOKEN } from "../../src/host/index.ts";
import { bundledRegistry } from "../../src/registry/bundled.ts";
import { openLocalStateReadOnly } from "../../src/state/index.ts";
import type { ResourceRecord } from "../../src/state/types.ts";
import { HttpClient } from "../host/harness.ts";
import {
  apply,
  EDGE_GROUP,
  formRefOf,
  moduleSource,
  plan,
  ReadySampler,
  runCli,
  SCENARIO_LANE,
  Scratch,
  SCENARIO_STACK,
  synthStack,
  timeline,
  useEngine,
  withScratch,
} from "./harness.ts";

/** The scenario hosts serve the run's lane only (harness.ts). */
const API = SCENARIO_LANE.apiRoot;

const KV_REF: FormRef = (() => {
  const ref = bundledRegistry.defaultCreates.find((r) => r.kind === "EdgeKVNamespace" && r.apiVersion === EDGE_GROUP)!;
  return { apiVersion: ref.apiVersion, kind: ref.kind, definitionVersion: ref.definitionVersion, schemaDigest: ref.schemaDigest };
})();

const hex12 = (text: string): string => createHash("sha256").update(text).digest("hex").slice(0, 12);

describe("relation drift under a held revision", () => {
  const ctx = useEngine({ conformanceProbes: true });
  const env = () => ({ TAKOFORM_ENDPOINT: ctx.host.url, TAKOFORM_TOKEN: DEV_TOKEN.token });

  /** A namespace another team owns: created beside the stack, bound by name. */
  async function foreignNamespace(name: string): Promise<string> {
    const created = await ctx.engine.client.applyResource({ ref: KV_REF, name, space: "default", spec: {} });
    return created.resource.metadata.uid;
  }

  /**
   * Deletes the namespace and creates it again, over HTTP, as someone outside this state would:
   * the delete carries the runner-only `external-change` probe (a held target cannot otherwise be
   * deleted: dependency_in_use), the create is an ordinary one from another client. Returns the new uid.
   */
  async function recreateOverHttp(name: string): Promise<string> {
    const http = new HttpClient(ctx.host.url, DEV_TOKEN.token);
    const other = await HostClient.connect({ endpoint: ctx.host.url, token: DEV_TOKEN.token });
    try {
      const query = new URLSearchParams({
        space: "default",
        group: KV_REF.apiVersion,
        kind: KV_REF.kind,
        definitionVersion: KV_REF.definitionVersion,
        schemaDigest: KV_REF.schemaDigest,
      });
      const path = `${API}/resources/${KV_REF.apiVersion}/${KV_REF.kind}/${name}?${query}`;
      const current = await http.request("GET", path);
      expect(current.status).toBe(200);
      const plain = await http.request("DELETE", path, {
        headers: { "Idempotency-Key": randomUUID(), "Takoform-Expected-Generation": current.json.metadata.generation },
      });
      expect(plain.json.error.code).toBe("dependency_in_use");
      const gone = await http.request("DELETE", path, {
        headers: {
          "Idempotency-Key": randomUUID(),
          "Takoform-Expected-Generation": current.json.metadata.generation,
          "Takoform-Conformance-Probe": "external-change",
        },
      });
      expect(gone.status, gone.text).toBe(204);
      const created = await other.applyResource({ ref: KV_REF, name, space: "default", spec: {} });
      expect(created.resource.metadata.uid).not.toBe(current.json.metadata.uid);
      return created.resource.metadata.uid;
    } finally {
      other.close();
    }
  }

  async function records(scratch: Scratch): Promise<ResourceRecord[]> {
    const reader = openLocalStateReadOnly(scratch.statePath(SCENARIO_STACK));
    try {
      return await reader.list();
    } finally {
      await reader.close();
    }
  }

  const one = (all: ResourceRecord[], type: string): ResourceRecord => {
    const found = all.filter((r) => r.type === type);
    expect(found.map((r) => r.address)).toHaveLength(1);
    return found[0]!;
  };

  it("a WorkerApp converges in one `takoform apply`: successor version beside the held one, deployment moved, old version deleted, Ready never False, next plan empty", async () => {
    const scratch = new Scratch();
    try {
      await foreignNamespace("drift-cache");
      scratch.write("dist/index.js", moduleSource(1));
      const { file } = await synthStack(
        scratch,
        (s) => void new WorkerApp(s, "app", { name: "drift", contentDir: scratch.path("dist"), kvBindings: { CACHE: "drift-cache" }, endpoint: true }),
      );
      const first = await runCli(["apply", "--config", file, "--auto-approve"], { cwd: scratch.dir, env: env() });
      expect(first.code, `${first.stdout}\n${first.stderr}`).toBe(0);
      const deployed = await records(scratch);
      const held = one(deployed, "takoform_worker_version");
      const worker = one(deployed, "takoform_module_worker");
      const endpoint = one(deployed, "takoform_worker_endpoint");
      expect(held.name).toMatch(new RegExp(`^version-[0-9a-f]{12}-${hex12("drift")}$`));

      const sampler = new ReadySampler(ctx.engine.client, "default", formRefOf(worker.attributes), "drift");
      try {
        await recreateOverHttp("drift-cache");
        // The host reports the held version drifted; its worker is still served.
        const version = await ctx.engine.client.getResource("default", formRefOf(held.attributes), held.name!);
        expect(version.status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({ status: "False", reason: "ExternalChange" });

        // The plan proposes the repair: a replacement beside the held version, no refusal.
        const shown = await runCli(["plan", "--config", file], { cwd: scratch.dir, env: env() });
        expect(shown.code, `${shown.stdout}\n${shown.stderr}`).toBe(0);
        const successor = `${held.name}-${hex12(held.uid!)}`;
        expect(shown.stdout).toContain("references a resource that changed out of band");
        expect(shown.stdout).toContain(`"${held.name}" -> "${successor}"`);
        expect(shown.stdout).toContain("Plan: 1 to add, 1 to change, 1 to destroy.");
        expect(shown.stdout).not.toContain("revision-replacement-blocked");
        expect(shown.stdout).toContain(
          "# name: the replacement takes the drifted revision's successor name, so it never reuses the name the old one still holds",
        );

        ctx.host.mutations.length = 0;
        const repair = await runCli(["apply", "--config", file, "--auto-approve"], { cwd: scratch.dir, env: env() });
        expect(repair.code, `${repair.stdout}\n${repair.stderr}`).toBe(0);
        expect(timeline(ctx.host.mutations)).toEqual([
          `PUT WorkerVersion ${successor} 201`,
          "PUT WorkerDeployment drift-deployment 200",
          `DELETE WorkerVersion ${held.name} 204`,
        ]);

        const after = await runCli(["plan", "--config", file, "--detailed-exitcode"], { cwd: scratch.dir, env: env() });
        expect(after.code, after.stdout).toBe(0);
        expect(after.stdout).toContain("No changes.");

        const repaired = await records(scratch);
        const current = one(repaired, "takoform_worker_version");
        expect(current).toMatchObject({ name: successor });
        expect(current.attributes).toMatchObject({ relation_drift_reason: null, ready: true });
        expect(current.uid).not.toBe(held.uid);
        expect(repaired.map((r) => r.address).filter((a) => a.includes("#deposed"))).toEqual([]);
        // Everything else kept its incarnation: the endpoint its address, the worker its uid.
        expect(one(repaired, "takoform_worker_endpoint")).toMatchObject({
          uid: endpoint.uid,
          attributes: expect.objectContaining({ url: endpoint.attributes["url"] }),
        });
        expect(one(repaired, "takoform_module_worker").uid).toBe(worker.uid);
        const deployment = await ctx.engine.client.getResource(
          "default",
          formRefOf(one(repaired, "takoform_worker_deployment").attributes),
          "drift-deployment",
        );
        expect((deployment.spec as { versions: { workerVersion: { name: string } }[] }).versions.map((v) => v.workerVersion.name)).toEqual([successor]);
        // The successor is pinned to the namespace that exists now: no drift left on the host.
        const served = await ctx.engine.client.getResource("default", formRefOf(current.attributes), successor);
        expect(served.status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({ status: "True" });
      } finally {
        await sampler.stop();
      }
      expect(sampler.ready).toBeGreaterThan(0);
      expect({ notReady: sampler.notReady, observations: sampler.observations.slice(0, 5) }).toEqual({ notReady: 0, observations: [] });
    } finally {
      scratch.cleanup();
    }
  }, 120_000);

  it("a namespace managed by the same stack: refresh refuses the new incarnation (uid-mismatch) until it is imported, then one `takoform apply` repairs the version", async () => {
    const scratch = new Scratch();
    try {
      scratch.write("dist/index.js", moduleSource(1));
      const { file } = await synthStack(scratch, (s) => {
        const cache = new EdgeKVNamespace(s, "cache", { name: "owned-cache" });
        new WorkerApp(s, "app", { name: "owned", contentDir: scratch.path("dist"), kvBindings: { CACHE: cache } });
      });
      const run = (args: string[]) => runCli([...args.slice(0, 1), "--config", file, ...args.slice(1)], { cwd: scratch.dir, env: env() });
      const first = await run(["apply", "--auto-approve"]);
      expect(first.code, `${first.stdout}\n${first.stderr}`).toBe(0);
      const deployed = await records(scratch);
      const held = one(deployed, "takoform_worker_version");
      const kv = one(deployed, "takoform_edge_kv_namespace");
      const worker = one(deployed, "takoform_module_worker");

      const sampler = new ReadySampler(ctx.engine.client, "default", formRefOf(worker.attributes), "owned");
      try {
        const newKvUid = await recreateOverHttp("owned-cache");
        ctx.host.mutations.length = 0;
        // State names the old incarnation: the plan stops and says how to choose (decision 0017).
        const refused = await run(["plan"]);
        expect(refused.code).toBe(1);
        expect(refused.stderr + refused.stdout).toContain("takoform.provider/uid-mismatch");
        // The user adopts the new namespace…
        const rm = await runCli(["state", "rm", "--config", file, kv.address], { cwd: scratch.dir, env: env() });
        expect(rm.code, rm.stderr).toBe(0);
        const imported = await run(["import", kv.address, "default/owned-cache"]);
        expect(imported.code, `${imported.stdout}\n${imported.stderr}`).toBe(0);
        expect(one(await records(scratch), "takoform_edge_kv_namespace").uid).toBe(newKvUid);
        // …and one apply moves the worker onto a version pinned to it.
        const repair = await run(["apply", "--auto-approve"]);
        expect(repair.code, `${repair.stdout}\n${repair.stderr}`).toBe(0);
        const successor = `${held.name}-${hex12(held.uid!)}`;
        expect(timeline(ctx.host.mutations)).toEqual([
          `PUT WorkerVersion ${successor} 201`,
          "PUT WorkerDeployment owned-deployment 200",
          `DELETE WorkerVersion ${held.name} 204`,
        ]);
        const after = await run(["plan", "--detailed-exitcode"]);
        expect(after.code, after.stdout).toBe(0);
      } finally {
        await sampler.stop();
      }
      expect(sampler.ready).toBeGreaterThan(0);
      expect({ notReady: sampler.notReady, observations: sampler.observations.slice(0, 5) }).toEqual({ notReady: 0, observations: [] });
    } finally {
      scratch.cleanup();
    }
  }, 120_000);

  /** A raw worker aggregate binding `kv`; `version` says how the version is named and replaced. */
  function rawStack(stack: Construct, dist: string, owner: string, version: { name?: string; createBeforeDestroy?: boolean }): void {
    const worker = new ModuleWorker(stack, "worker", { name: owner });
    const bundle = new WorkerBundle(stack, "bundle", {
      revisionOwner: owner,
      mainModule: "index.js",
      modules: [{ name: "index.js", contentType: "application/javascript+module", contentFile: `${dist}/index.js` }],
      lifecycle: { createBeforeDestroy: true },
    });
    const v = new WorkerVersion(stack, "version", {
      ...(version.name !== undefined ? { name: version.name } : { revisionOwner: owner }),
      worker,
      bundle,
      handlers: ["fetch"],
      kvBindings: [{ name: "CACHE", targetName: `${owner}-kv` }],
      ...(version.createBeforeDestroy ? { lifecycle: { createBeforeDestroy: true } } : {}),
    });
    new WorkerDeployment(stack, "deployment", { name: `${owner}-deployment`, worker, versions: [{ workerVersion: v, weight: 10000 }] });
  }

  it("a pinned version name is refused at plan with a repair that works: a new name with create_before_destroy converges in one apply", () =>
    withScratch(async (scratch, store) => {
      await foreignNamespace("pinned-kv");
      scratch.write("dist/index.js", moduleSource(1));
      const build = (version: { name?: string; createBeforeDestroy?: boolean }) =>
        synthStack(scratch, (s) => rawStack(s, scratch.path("dist"), "pinned", version));
      const first = await apply(ctx.engine, (await build({ name: "pinned-v1" })).stack, store);
      expect(first.result?.ok, JSON.stringify(first.diagnostics)).toBe(true);
      const held = (await store.get("takoform_worker_version.version"))!;
      await recreateOverHttp("pinned-kv");

      ctx.host.mutations.length = 0;
      const refused = await plan(ctx.engine, (await build({ name: "pinned-v1" })).stack, store);
      expect(refused.ok).toBe(false);
      const blocked = refused.plan.diagnostics.filter((d) => d.severity === "error");
      expect(blocked.map((d) => d.code)).toEqual(["takoform.engine/revision-replacement-blocked"]);
      const d = blocked[0]!;
      expect(d.summary).toBe(
        'takoform_worker_version.version cannot be replaced under the same name "pinned-v1" while takoform_worker_deployment.deployment holds it',
      );
      expect(d.detail).toContain("dependency_in_use (409)");
      expect(d.detail).toContain("invalid_argument (400)");
      expect(d.detail).toContain("a relation target was re-created out of band");
      expect(d.repair).toBe(
        'The name "pinned-v1" is pinned in the configuration, so the replacement cannot move aside. Give takoform_worker_version.version a new name and set lifecycle create_before_destroy on it, ' +
          "so the new revision is created first and takoform_worker_deployment.deployment moves to it before the old one is deleted — " +
          "or remove `name` and set `revision_owner` (the WorkerApp construct does both): a derived name moves aside by itself.",
      );
      const text = renderPlan(refused.plan, { color: false });
      expect(text).toContain("takoform.engine/revision-replacement-blocked");
      expect(ctx.host.mutations).toEqual([]);

      // Following the repair converges in one apply, and the next plan is empty.
      const repaired = (await build({ name: "pinned-v2", createBeforeDestroy: true })).stack;
      const run = await apply(ctx.engine, repaired, store);
      expect(run.result?.ok, JSON.stringify(run.diagnostics)).toBe(true);
      expect(timeline(ctx.host.mutations)).toEqual([
        "PUT WorkerVersion pinned-v2 201",
        "PUT WorkerDeployment pinned-deployment 200",
        `DELETE WorkerVersion ${held.name} 204`,
      ]);
      const next = await plan(ctx.engine, repaired, store);
      expect(next.plan.resourceChanges.filter((c) => c.actions[0] !== "no-op").map((c) => c.address)).toEqual([]);
    }));

  it("a derived version name without create_before_destroy is refused at plan (its delete would come first); with it, one apply converges", () =>
    withScratch(async (scratch, store) => {
      await foreignNamespace("derived-kv");
      scratch.write("dist/index.js", moduleSource(1));
      const build = (cbd: boolean) => synthStack(scratch, (s) => rawStack(s, scratch.path("dist"), "derived", { createBeforeDestroy: cbd }));
      const first = await apply(ctx.engine, (await build(false)).stack, store);
      expect(first.result?.ok, JSON.stringify(first.diagnostics)).toBe(true);
      const held = (await store.get("takoform_worker_version.version"))!;
      await recreateOverHttp("derived-kv");
      const successor = `${held.name}-${hex12(held.uid!)}`;

      ctx.host.mutations.length = 0;
      const refused = await apply(ctx.engine, (await build(false)).stack, store);
      expect(refused.status).toBe("plan-failed");
      const blocked = refused.diagnostics.filter((d) => d.severity === "error");
      expect(blocked.map((d) => d.code)).toEqual(["takoform.engine/revision-replacement-blocked"]);
      expect(blocked[0]!.summary).toBe(
        `takoform_worker_version.version would be deleted before its replacement "${successor}" exists, while takoform_worker_deployment.deployment holds it`,
      );
      expect(blocked[0]!.repair).toBe(
        "Set lifecycle create_before_destroy on takoform_worker_version.version (the WorkerApp construct sets it on both revisions), so the new revision is created first and takoform_worker_deployment.deployment moves to it before the old one is deleted.",
      );
      expect(ctx.host.mutations).toEqual([]);

      const repaired = (await build(true)).stack;
      const run = await apply(ctx.engine, repaired, store);
      expect(run.result?.ok, JSON.stringify(run.diagnostics)).toBe(true);
      expect(timeline(ctx.host.mutations)).toEqual([
        `PUT WorkerVersion ${successor} 201`,
        "PUT WorkerDeployment derived-deployment 200",
        `DELETE WorkerVersion ${held.name} 204`,
      ]);
      const next = await plan(ctx.engine, repaired, store);
      expect(next.plan.resourceChanges.filter((c) => c.actions[0] !== "no-op").map((c) => c.address)).toEqual([]);
    }));
  it("a replace_triggered_by replacement of a held derived revision is refused with a repair about the trigger, not about derived names", () =>
    withScratch(async (scratch, store) => {
      scratch.write("dist/index.js", moduleSource(1));
      const build = (retention: number) =>
        synthStack(scratch, (s) => {
          const queue = new AtLeastOnceQueue(s, "jobs", { name: "trig-jobs", messageRetentionSeconds: retention });
          const worker = new ModuleWorker(s, "worker", { name: "trig" });
          const bundle = new WorkerBundle(s, "bundle", {
            revisionOwner: "trig",
            mainModule: "index.js",
            modules: [{ name: "index.js", contentType: "application/javascript+module", contentFile: `${scratch.path("dist")}/index.js` }],
            lifecycle: { createBeforeDestroy: true },
          });
          const version = new WorkerVersion(s, "version", {
            revisionOwner: "trig",
            worker,
            bundle,
            handlers: ["fetch"],
            lifecycle: { createBeforeDestroy: true, replaceTriggeredBy: [queue] },
          });
          new WorkerDeployment(s, "deployment", { name: "trig-deployment", worker, versions: [{ workerVersion: version, weight: 10000 }] });
        });
      const first = await apply(ctx.engine, (await build(600)).stack, store);
      expect(first.result?.ok, JSON.stringify(first.diagnostics)).toBe(true);
      const held = (await store.get("takoform_worker_version.version"))!;
      ctx.host.mutations.length = 0;
      const refused = await plan(ctx.engine, (await build(900)).stack, store);
      const blocked = refused.plan.diagnostics.filter((d) => d.severity === "error");
      expect(blocked.map((d) => d.code)).toEqual(["takoform.engine/revision-replacement-blocked"]);
      expect(blocked[0]!.detail).toContain("lifecycle.replace_triggered_by forces it");
      expect(blocked[0]!.repair).toBe(
        `The revision's content did not change, so its derived name stays "${held.name}". Remove the lifecycle.replace_triggered_by entry that forces this replacement ` +
          "(an immutable revision is replaced by changing its content), or move takoform_worker_deployment.deployment off this revision first (point it at another revision and apply).",
      );
      expect(blocked[0]!.repair).not.toContain("WorkerApp");
      expect(ctx.host.mutations).toEqual([]);
    }));
});
