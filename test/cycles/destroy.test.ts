// Destroying cycles (RFC 0011 rule 6): each member is reverted to its placeholder (an update that
// drops its references to its peers) before anything is deleted, so the host never answers
// dependency_in_use — for a cycle still in code, and for one removed from code, found from the
// edges state recorded.

import { describe, expect, it } from "vitest";
import { MeshService } from "../../src/constructs/generated/mesh-service.gen.ts";
import { refuseCycles } from "../../src/engine/cycles/index.ts";
import { apply, plan } from "../scenario/harness.ts";
import {
  boundTo,
  CONTAINER,
  hostSpec,
  mutationsSince,
  noDependencyInUse,
  services,
  stepSequence,
  SVC,
  synth,
  useWorld,
  WORKER,
  workerAndContainer,
} from "./fixtures.ts";

describe("destroying a cycle", () => {
  const w = useWorld();

  it("reverts both services, then deletes them", async () => {
    const stack = await synth(w, (s) =>
      services(s, [
        { id: "a", binds: ["b"] },
        { id: "b", binds: ["a"] },
      ]),
    );
    expect((await apply(w.engine, stack, w.store)).status).toBe("applied");
    const from = w.host.mutations.length;

    const planned = await plan(w.engine, stack, w.store, { mode: "destroy" });
    expect(planned.ok).toBe(true);
    expect(stepSequence(planned.plan)).toEqual([`revert ${SVC}.a`, `revert ${SVC}.b`, `delete ${SVC}.a`, `delete ${SVC}.b`]);
    const seen: (string[] | undefined)[][] = [];
    const run = await apply(w.engine, stack, w.store, {
      plan: { mode: "destroy" },
      parallelism: 1,
      hooks: { afterWrite: () => void seen.push([boundTo(w.host, "a"), boundTo(w.host, "b")]) },
    });
    expect(run.status, run.diagnostics.map((d) => d.summary).join("; ")).toBe("applied");
    expect(mutationsSince(w.host, from)).toEqual(["PUT Service a 200", "PUT Service b 200", "DELETE Service a 204", "DELETE Service b 204"]);
    expect(seen).toEqual([
      [[], ["a"]],
      [[], []],
      [undefined, []],
      [undefined, undefined],
    ]);
    expect(await w.store.list()).toEqual([]);
    expect(w.host.host.controls.resourceCount()).toBe(0);
  });

  it("reverts from what was applied, not from code edited since: an immutable edit does not fail the destroy", async () => {
    const applied = await synth(w, (s) =>
      services(s, [
        { id: "a", binds: ["b"] },
        { id: "b", binds: ["a"] },
      ]),
    );
    expect((await apply(w.engine, applied, w.store)).status).toBe("applied");
    const from = w.host.mutations.length;
    // tier is immutable; a revert written from this code would be refused (or, if mutable, write the edit).
    const edited = await synth(w, (s) =>
      services(s, [
        { id: "a", tier: "edge", binds: ["b"] },
        { id: "b", tier: "edge", binds: ["a"] },
      ]),
    );
    const seen: unknown[] = [];
    const run = await apply(w.engine, edited, w.store, {
      plan: { mode: "destroy" },
      parallelism: 1,
      hooks: { afterWrite: (n) => void (n === 2 ? seen.push(hostSpec(w.host, "Service", "a"), hostSpec(w.host, "Service", "b")) : undefined) },
    });
    expect(run.status, run.diagnostics.map((d) => d.summary).join("; ")).toBe("applied");
    expect(mutationsSince(w.host, from)).toEqual(["PUT Service a 200", "PUT Service b 200", "DELETE Service a 204", "DELETE Service b 204"]);
    expect(seen).toEqual([
      { entrypoint: "a.js", tier: "standard", serviceBindings: [] },
      { entrypoint: "b.js", tier: "standard", serviceBindings: [] },
    ]);
  });

  it("contributions removed from code: the loop recorded in state is still reverted before the deletes", async () => {
    const applied = await synth(w, (s) =>
      services(s, [
        { id: "a", binds: ["b"] },
        { id: "b", binds: ["a"] },
      ]),
    );
    expect((await apply(w.engine, applied, w.store)).status).toBe("applied");
    const from = w.host.mutations.length;
    const plain = await synth(w, (s) => services(s, [{ id: "a" }, { id: "b" }]));
    const planned = await plan(w.engine, plain, w.store, { mode: "destroy" });
    expect(planned.ok, planned.plan.diagnostics.map((d) => d.summary).join("; ")).toBe(true);
    expect(stepSequence(planned.plan)).toEqual([`revert ${SVC}.a`, `revert ${SVC}.b`, `delete ${SVC}.a`, `delete ${SVC}.b`]);
    const run = await apply(w.engine, plain, w.store, { plan: { mode: "destroy" }, parallelism: 1 });
    expect(run.status, run.diagnostics.map((d) => d.summary).join("; ")).toBe("applied");
    expect(mutationsSince(w.host, from)).toEqual(["PUT Service a 200", "PUT Service b 200", "DELETE Service a 204", "DELETE Service b 204"]);
    noDependencyInUse(w.host);
  });

  it("at full parallelism the host still never refuses a delete", async () => {
    const stack = await synth(w, (s) => {
      services(s, [
        { id: "a", binds: ["b"] },
        { id: "b", binds: ["c"] },
        { id: "c", binds: ["a"] },
      ]);
      workerAndContainer(s);
    });
    expect((await apply(w.engine, stack, w.store)).status).toBe("applied");
    const from = w.host.mutations.length;
    const run = await apply(w.engine, stack, w.store, { plan: { mode: "destroy" } });
    expect(run.status).toBe("applied");
    expect(run.result!.ok).toBe(true);
    noDependencyInUse(w.host);
    const done = mutationsSince(w.host, from);
    expect(done.filter((m) => m.startsWith("PUT")).sort()).toEqual([
      "PUT Container sandbox 200",
      "PUT Service a 200",
      "PUT Service b 200",
      "PUT Service c 200",
      "PUT Worker worker 200",
    ]);
    expect(done.filter((m) => m.startsWith("DELETE")).length).toBe(5);
    // Every revert came before every delete.
    expect(done.findIndex((m) => m.startsWith("DELETE"))).toBe(5);
    expect(w.host.host.controls.resourceCount()).toBe(0);
  });

  it("a cycle removed from code is found from state and reverted before its deletes", async () => {
    const first = await synth(w, (s) => {
      services(s, [
        { id: "a", binds: ["b"] },
        { id: "b", binds: ["a"] },
      ]);
      new MeshService(s, "keep", { name: "keep", entrypoint: "keep.js" });
    });
    expect((await apply(w.engine, first, w.store)).status).toBe("applied");
    const from = w.host.mutations.length;
    const second = await synth(w, (s) => void new MeshService(s, "keep", { name: "keep", entrypoint: "keep.js" }));

    // Without the cycle resolver, the deletes would wait on each other.
    const refused = await plan(w.engine, second, w.store, { cycles: refuseCycles });
    expect(refused.ok).toBe(false);
    expect(refused.plan.diagnostics.map((d) => d.summary)).toEqual(["The apply steps of this plan wait on each other"]);

    const planned = await plan(w.engine, second, w.store);
    expect(planned.ok).toBe(true);
    expect(planned.plan.resourceChanges.map((c) => [c.address, c.actions[0], c.actionReason ?? ""])).toEqual([
      [`${SVC}.a`, "delete", "delete_because_no_resource_config"],
      [`${SVC}.b`, "delete", "delete_because_no_resource_config"],
      [`${SVC}.keep`, "no-op", ""],
    ]);
    expect(stepSequence(planned.plan)).toEqual([`revert ${SVC}.a`, `revert ${SVC}.b`, `delete ${SVC}.a`, `delete ${SVC}.b`]);
    const run = await apply(w.engine, second, w.store, { parallelism: 1 });
    expect(run.status).toBe("applied");
    expect(run.result!.ok).toBe(true);
    expect(mutationsSince(w.host, from)).toEqual(["PUT Service a 200", "PUT Service b 200", "DELETE Service a 204", "DELETE Service b 204"]);
    expect((await w.store.list()).map((r) => r.address)).toEqual([`${SVC}.keep`]);
  });

  it("a member with a generated name, removed from code, is reverted from its record under that name", async () => {
    const first = await synth(w, (s) => {
      services(s, [
        { id: "a", namePrefix: "a-", binds: ["b"] },
        { id: "b", binds: ["a"] },
      ]);
      new MeshService(s, "keep", { name: "keep", entrypoint: "keep.js" });
    });
    expect((await apply(w.engine, first, w.store)).status).toBe("applied");
    const generated = (await w.store.get(`${SVC}.a`))!.name!;
    const from = w.host.mutations.length;
    const second = await synth(w, (s) => void new MeshService(s, "keep", { name: "keep", entrypoint: "keep.js" }));
    const run = await apply(w.engine, second, w.store, { parallelism: 1 });
    expect(run.result!.ok, run.diagnostics.map((d) => d.summary).join("; ")).toBe(true);
    expect(mutationsSince(w.host, from)).toEqual([
      `PUT Service ${generated} 200`,
      "PUT Service b 200",
      `DELETE Service ${generated} 204`,
      "DELETE Service b 204",
    ]);
  });

  it("a worker and container removed from code: the worker drops its containers, the container its namespace", async () => {
    const first = await synth(w, (s) => {
      workerAndContainer(s);
      new MeshService(s, "keep", { name: "keep", entrypoint: "keep.js" });
    });
    expect((await apply(w.engine, first, w.store)).status).toBe("applied");
    const from = w.host.mutations.length;
    const second = await synth(w, (s) => void new MeshService(s, "keep", { name: "keep", entrypoint: "keep.js" }));
    const seen: Record<string, unknown>[] = [];
    const run = await apply(w.engine, second, w.store, {
      parallelism: 1,
      hooks: {
        afterWrite: (n) =>
          void (n === 2 ? seen.push({ worker: hostSpec(w.host, "Worker", "worker"), container: hostSpec(w.host, "Container", "sandbox") }) : undefined),
      },
    });
    expect(stepSequence(run.plan!)).toEqual([
      `revert ${CONTAINER}.sandbox`,
      `revert ${WORKER}.worker`,
      `delete ${CONTAINER}.sandbox`,
      `delete ${WORKER}.worker`,
    ]);
    expect(run.result!.ok).toBe(true);
    expect(mutationsSince(w.host, from)).toEqual([
      "PUT Container sandbox 200",
      "PUT Worker worker 200",
      "DELETE Container sandbox 204",
      "DELETE Worker worker 204",
    ]);
    expect(seen).toEqual([{ worker: { entrypoint: "worker.js", containers: [] }, container: { image: "registry.example/sandbox:1" } }]);
  });
});
