// Deploying cycles over HTTP against the local host (RFC 0011 rules 1–5): the placeholder is
// created from its own configuration, its peers see it, it is finalized once they exist, and the
// loop settles in N + 1 passes. Exact step sequences and host mutation timelines.

import { describe, expect, it } from "vitest";
import { MeshService } from "../../src/constructs/generated/mesh-service.gen.ts";
import { planToJson } from "../../src/views/json.ts";
import { renderPlan } from "../../src/views/human.ts";
import type { Provider } from "../../src/provider/types.ts";
import { runApply } from "../../src/engine/run.ts";
import { apply, plan } from "../scenario/harness.ts";
import { boundTo, CONTAINER, hostSpec, mutationsSince, services, settles, stepSequence, SVC, synth, useWorld, WORKER, workerAndContainer } from "./fixtures.ts";

describe("deploying a cycle", () => {
  const w = useWorld();

  it("two services that bind to each other: placeholder, peer, finalize, then three settle passes", async () => {
    const stack = await synth(w, (s) =>
      services(s, [
        { id: "a", binds: ["b"] },
        { id: "b", binds: ["a"] },
      ]),
    );
    const planned = await plan(w.engine, stack, w.store);
    expect(planned.ok).toBe(true);
    expect(stepSequence(planned.plan)).toEqual([
      `create-placeholder ${SVC}.a`,
      `create ${SVC}.b`,
      `finalize ${SVC}.a`,
      ...settles(3, [`${SVC}.a`, `${SVC}.b`]),
    ]);
    // The placeholder shows as a create of its full configuration; what depends on its peer,
    // which does not exist yet, is unknown.
    const a = planned.plan.resourceChanges.find((c) => c.address === `${SVC}.a`)!;
    expect(a.actions).toEqual(["create"]);
    expect(a.placeholder).toBe(true);
    expect(a.actionReason).toBe("cycle_placeholder");
    const json = planToJson(planned.plan) as {
      resource_changes: { address: string; change: { after: Record<string, unknown>; after_unknown: Record<string, unknown> } }[];
    };
    const aJson = json.resource_changes.find((c) => c.address === `${SVC}.a`)!;
    expect(aJson.change.after_unknown["service_bindings"]).toEqual([{ service: true }]);
    expect(aJson.change.after["service_bindings"]).toEqual([{ name: "B", version: null }]);
    const steps = (planToJson(planned.plan) as { steps: Record<string, unknown>[] }).steps;
    expect(steps.slice(0, 4)).toEqual([
      { id: `create-placeholder:${SVC}.a`, address: `${SVC}.a`, action: "create-placeholder", depends_on: [] },
      { id: `create:${SVC}.b`, address: `${SVC}.b`, action: "create", depends_on: [`create-placeholder:${SVC}.a`] },
      { id: `finalize:${SVC}.a`, address: `${SVC}.a`, action: "finalize", depends_on: [`create-placeholder:${SVC}.a`, `create:${SVC}.b`] },
      {
        id: `settle:1:${SVC}.a`,
        address: `${SVC}.a`,
        action: "settle",
        depends_on: [`create-placeholder:${SVC}.a`, `create:${SVC}.b`, `finalize:${SVC}.a`],
        pass: 1,
      },
    ]);
    const text = renderPlan(planned.plan, { color: false });
    expect(text).toContain("# takoform_mesh_service.a will be created (as a cycle placeholder first)");
    expect(text).toContain("1. create-placeholder takoform_mesh_service.a");
    expect(text).toContain("3. finalize takoform_mesh_service.a");
    expect(text).toContain("4. settle (passes 1–3) takoform_mesh_service.a, takoform_mesh_service.b");
    expect(text).toContain("Cycle steps: 1 placeholder to complete, up to 3 settle passes, writing only what changes.");
    expect(text).toContain("Plan: 2 to add, 0 to change, 0 to destroy.");

    // What the host held right after each write: a starts without bindings, b binds the placeholder.
    const seen: { a?: string[]; b?: string[]; status?: string }[] = [];
    const run = await apply(w.engine, stack, w.store, {
      hooks: { afterWrite: () => void seen.push({ a: boundTo(w.host, "a"), b: boundTo(w.host, "b") }) },
    });
    expect(run.status, run.diagnostics.map((d) => d.summary).join("; ")).toBe("applied");
    expect(mutationsSince(w.host, 0)).toEqual(["PUT Service a 201", "PUT Service b 201", "PUT Service a 200"]);
    expect(seen).toEqual([
      { a: [], b: undefined },
      { a: [], b: ["a"] },
      { a: ["b"], b: ["a"] },
    ]);
    expect(run.result!.outcomes.map((o) => `${o.id} ${o.status}`)).toEqual([
      `create-placeholder:${SVC}.a ok`,
      `create:${SVC}.b ok`,
      `finalize:${SVC}.a ok`,
      ...settles(3, [`${SVC}.a`, `${SVC}.b`]).map((s) => `${s.replace(/^settle\((\d)\) /, "settle:$1:")} ok`),
    ]);
    for (const address of [`${SVC}.a`, `${SVC}.b`]) expect((await w.store.get(address))!.status).toBe("ready");
    const contributions = (await w.store.get(`${SVC}.a`))!.contributions;
    expect(contributions).toEqual([{ from: `${SVC}.b`, fields: ["service_bindings"] }]);

    const again = await plan(w.engine, stack, w.store);
    expect(again.plan.resourceChanges.map((c) => c.actions[0])).toEqual(["no-op", "no-op"]);
    expect(again.plan.steps).toEqual([]);
  });

  it("three services in a ring: one placeholder, the others in dependency order, four passes", async () => {
    // a binds b, b binds c, c binds a.
    const stack = await synth(w, (s) =>
      services(s, [
        { id: "a", binds: ["b"] },
        { id: "b", binds: ["c"] },
        { id: "c", binds: ["a"] },
      ]),
    );
    const planned = await plan(w.engine, stack, w.store);
    expect(stepSequence(planned.plan)).toEqual([
      `create-placeholder ${SVC}.a`,
      `create ${SVC}.c`,
      `create ${SVC}.b`,
      `finalize ${SVC}.a`,
      ...settles(4, [`${SVC}.a`, `${SVC}.c`, `${SVC}.b`]),
    ]);
    const run = await apply(w.engine, stack, w.store);
    expect(run.status).toBe("applied");
    expect(mutationsSince(w.host, 0)).toEqual(["PUT Service a 201", "PUT Service c 201", "PUT Service b 201", "PUT Service a 200"]);
    expect([boundTo(w.host, "a"), boundTo(w.host, "b"), boundTo(w.host, "c")]).toEqual([["b"], ["c"], ["a"]]);
    const again = await plan(w.engine, stack, w.store);
    expect(again.plan.steps).toEqual([]);
  });

  it("a worker and the container in its namespace", async () => {
    const stack = await synth(w, (s) => void workerAndContainer(s));
    const planned = await plan(w.engine, stack, w.store);
    expect(stepSequence(planned.plan)).toEqual([
      `create-placeholder ${CONTAINER}.sandbox`,
      `create ${WORKER}.worker`,
      `finalize ${CONTAINER}.sandbox`,
      ...settles(3, [`${CONTAINER}.sandbox`, `${WORKER}.worker`]),
    ]);
    const run = await apply(w.engine, stack, w.store);
    expect(run.status, run.diagnostics.map((d) => d.summary).join("; ")).toBe("applied");
    expect(mutationsSince(w.host, 0)).toEqual(["PUT Container sandbox 201", "PUT Worker worker 201", "PUT Container sandbox 200"]);
    const namespace = (await w.store.get(`${WORKER}.worker`))!.attributes["namespace_id"];
    expect(namespace).toMatch(/^ns-[0-9a-f]{16}$/);
    expect(hostSpec(w.host, "Container", "sandbox")!["namespaceId"]).toBe(namespace);
    expect(hostSpec(w.host, "Worker", "worker")!["containers"]).toEqual([
      { className: "Sandbox", container: { apiVersion: "mesh.takoform-cdk.dev/v1alpha1", kind: "Container", name: "sandbox" } },
    ]);
    expect((await plan(w.engine, stack, w.store)).plan.steps).toEqual([]);
  });

  it("resources outside the cycle wait for its last settle step and see final values", async () => {
    const stack = await synth(w, (s) => {
      const built = services(s, [
        { id: "a", binds: ["b"] },
        { id: "b", binds: ["a"] },
      ]);
      new MeshService(s, "edge", { name: "edge", entrypoint: "edge.js", serviceBindings: [{ name: "A", service: built.get("a")! }] });
    });
    const planned = await plan(w.engine, stack, w.store);
    const sequence = stepSequence(planned.plan);
    expect(sequence.at(-1)).toBe(`create ${SVC}.edge`);
    const edge = planned.plan.steps.find((s) => s.id === `create:${SVC}.edge`)!;
    expect(edge.dependsOn).toContain(`settle:3:${SVC}.b`);
    const run = await apply(w.engine, stack, w.store);
    expect(run.status).toBe("applied");
    expect(mutationsSince(w.host, 0)).toEqual(["PUT Service a 201", "PUT Service b 201", "PUT Service a 200", "PUT Service edge 201"]);
  });

  it("--target on one member plans its whole cycle", async () => {
    const stack = await synth(w, (s) => {
      services(s, [
        { id: "a", binds: ["b"] },
        { id: "b", binds: ["a"] },
      ]);
      new MeshService(s, "other", { name: "other", entrypoint: "other.js" });
    });
    for (const target of [`${SVC}.a`, `${SVC}.b`]) {
      const planned = await plan(w.engine, stack, w.store, { targets: [target] });
      expect(planned.plan.resourceChanges.map((c) => c.address)).toEqual([`${SVC}.a`, `${SVC}.b`]);
      expect(stepSequence(planned.plan).slice(0, 3)).toEqual([`create-placeholder ${SVC}.a`, `create ${SVC}.b`, `finalize ${SVC}.a`]);
    }
  });

  it("a cycle whose members pin each other's version never settles, and the deploy names the output", async () => {
    const stack = await synth(w, (s) =>
      services(s, [
        { id: "a", binds: ["b"], pin: true },
        { id: "b", binds: ["a"], pin: true },
      ]),
    );
    // Every write of the loop has its own idempotency scope (…:settle:<n>), so none is replayed.
    const setup = w.engine.setup(stack);
    const scopes: string[] = [];
    const base = setup.provider;
    const scope = (context: { idempotencyScope?: string }) => context.idempotencyScope!.replace(/^run:[0-9a-f]+/, "run");
    const provider: Provider = {
      schemas: () => base.schemas(),
      schema: (type) => base.schema(type),
      problems: () => base.problems(),
      validate: (type, config) => base.validate(type, config),
      plan: (request) => base.plan(request),
      create: (type, planned, context) => (scopes.push(`create ${scope(context)}`), base.create(type, planned, context)),
      update: (type, prior, planned, context) => (
        scopes.push(`update ${prior.attributes["name"]} ${scope(context)}`),
        base.update(type, prior, planned, context)
      ),
      delete: (type, prior, context) => base.delete(type, prior, context),
      read: (prior) => base.read(prior),
      relationTargets: (state) => base.relationTargets(state),
      hostNeeds: (type) => base.hostNeeds(type),
      importState: (type, id) => base.importState(type, id),
      laneSuccessor: (state, lane) => base.laneSuccessor(state, lane),
      resumeWrite: (intent, prior) => base.resumeWrite(intent, prior),
    };
    const run = await runApply({ ...setup, provider }, w.store, { lock: { holder: "test" } });
    expect(scopes).toEqual([
      "create run:placeholder",
      "create run",
      "update a run:finalize",
      "update b run:settle:1",
      "update a run:settle:2",
      "update b run:settle:2",
    ]);
    expect(run.status).toBe("applied");
    expect(run.result!.ok).toBe(false);
    // a pins b's version: finalize; then every pass moves both versions again.
    expect(mutationsSince(w.host, 0)).toEqual([
      "PUT Service a 201",
      "PUT Service b 201",
      "PUT Service a 200",
      "PUT Service b 200",
      "PUT Service a 200",
      "PUT Service b 200",
    ]);
    const failure = run.diagnostics.find((d) => d.code === "takoform.engine/cycle-unsettled")!;
    expect(failure.summary).toBe("The cycle does not settle: takoform_mesh_service.b.version_id changes on every update");
    expect(failure.address).toBe(`${SVC}.a`);
    expect(failure.detail).toContain("After 3 settle passes");
    expect(run.result!.outcomes.filter((o) => o.status !== "ok").map((o) => `${o.id} ${o.status}`)).toEqual([
      `settle:3:${SVC}.a failed`,
      `settle:3:${SVC}.b skipped`,
    ]);
    // Each settle write had its own idempotency key: no write was answered from a replay.
    expect(w.host.mutations.every((m) => m.status === 200 || m.status === 201)).toBe(true);
  });

  it("a ring of 20 services settles in passes that stop re-planning once a pass writes nothing", async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `s${String(i).padStart(2, "0")}`);
    const stack = await synth(w, (s) =>
      services(
        s,
        ids.map((id, i) => ({ id, binds: [ids[(i + 1) % ids.length]!] })),
      ),
    );
    const setup = w.engine.setup(stack);
    // Counts the provider's plan calls (the real provider answers each one).
    const provider = setup.provider;
    const real = provider.plan.bind(provider);
    let plans = 0;
    provider.plan = (request) => (plans++, real(request));
    const run = await runApply(setup, w.store, { lock: { holder: "test" } });
    expect(run.status, run.diagnostics.map((d) => d.summary).join("; ")).toBe("applied");
    const settleSteps = run.result!.outcomes.filter((o) => o.action === "settle");
    expect(settleSteps.length).toBe(20 * 21);
    expect(settleSteps.every((o) => o.status === "ok")).toBe(true);
    // Pass 1 re-plans all 20; nothing changes in it, so passes 2..21 are settled without planning.
    expect(settleSteps.filter((o) => o.noop !== true).length).toBe(0);
    const creates = run.result!.outcomes.filter((o) => o.action !== "settle").length;
    expect(plans).toBeLessThanOrEqual(creates + 20 + 20);
    expect(boundTo(w.host, "s19")).toEqual(["s00"]);
  });

  it("one strongly connected group of 400 services plans without exhausting the stack", async () => {
    const ids = Array.from({ length: 400 }, (_, i) => `r${i}`);
    const stack = await synth(w, (s) =>
      services(
        s,
        ids.map((id, i) => ({ id, binds: [ids[(i + 1) % ids.length]!] })),
      ),
    );
    const planned = await plan(w.engine, stack, w.store);
    expect(planned.ok, planned.plan.diagnostics.map((d) => d.summary).join("; ")).toBe(true);
    expect(planned.plan.steps.filter((s) => s.action === "settle").length).toBe(400 * 401);
    expect(renderPlan(planned.plan, { color: false })).toContain("settle (passes 1–401)");
  });

  it("a new member joining a peer that already exists: no placeholder, the existing peer is updated onto it", async () => {
    const first = await synth(w, (s) => services(s, [{ id: "b" }]));
    expect((await apply(w.engine, first, w.store)).status).toBe("applied");
    const from = w.host.mutations.length;
    const second = await synth(w, (s) =>
      services(s, [
        { id: "a", binds: ["b"] },
        { id: "b", binds: ["a"] },
      ]),
    );
    const planned = await plan(w.engine, second, w.store);
    expect(planned.ok).toBe(true);
    expect(stepSequence(planned.plan)).toEqual([`create ${SVC}.a`, `update ${SVC}.b`, ...settles(3, [`${SVC}.b`, `${SVC}.a`])]);
    const seen: (string[] | undefined)[][] = [];
    const run = await apply(w.engine, second, w.store, { hooks: { afterWrite: () => void seen.push([boundTo(w.host, "a"), boundTo(w.host, "b")]) } });
    expect(run.status, run.diagnostics.map((d) => d.summary).join("; ")).toBe("applied");
    // a is created complete (b exists, so its binding is known); b is then updated onto it.
    expect(mutationsSince(w.host, from)).toEqual(["PUT Service a 201", "PUT Service b 200"]);
    expect(seen).toEqual([
      [["b"], []],
      [["b"], ["a"]],
    ]);
  });
});
