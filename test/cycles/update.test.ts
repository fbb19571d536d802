// Updating a deployed cycle: members that exist keep their identity, so nothing needs a
// placeholder; their updates follow the plan walk, a member whose planned inputs are unknown
// until a peer is written waits for that peer, and the loop settles after.

import { describe, expect, it } from "vitest";
import { MeshContainer } from "../../src/constructs/generated/mesh-container.gen.ts";
import { MeshWorker } from "../../src/constructs/generated/mesh-worker.gen.ts";
import { apply, plan } from "../scenario/harness.ts";
import { CONTAINER, hostSpec, mutationsSince, services, stepSequence, SVC, synth, useWorld, WORKER } from "./fixtures.ts";

describe("updating a deployed cycle", () => {
  const w = useWorld();

  it("both services change: update a, update b, then settle without further writes", async () => {
    const v1 = await synth(w, (s) =>
      services(s, [
        { id: "a", binds: ["b"] },
        { id: "b", binds: ["a"] },
      ]),
    );
    await apply(w.engine, v1, w.store);
    const from = w.host.mutations.length;
    const v2 = await synth(w, (s) =>
      services(s, [
        { id: "a", binds: ["b"], entrypoint: "a2.js" },
        { id: "b", binds: ["a"], entrypoint: "b2.js" },
      ]),
    );
    const planned = await plan(w.engine, v2, w.store);
    expect(planned.plan.resourceChanges.map((c) => c.actions[0])).toEqual(["update", "update"]);
    expect(stepSequence(planned.plan).slice(0, 2)).toEqual([`update ${SVC}.a`, `update ${SVC}.b`]);
    expect(planned.plan.steps.find((s) => s.id === `update:${SVC}.b`)!.dependsOn).toEqual([`update:${SVC}.a`]);
    const run = await apply(w.engine, v2, w.store);
    expect(run.result!.ok).toBe(true);
    expect(mutationsSince(w.host, from)).toEqual(["PUT Service a 200", "PUT Service b 200"]);
    expect((await plan(w.engine, v2, w.store)).plan.steps).toEqual([]);
  });

  it("the worker changes: the container, whose namespace input is unknown until then, is written after it", async () => {
    const build = (entrypoint: string) => (s: Parameters<Parameters<typeof synth>[1]>[0]) => {
      const worker = new MeshWorker(s, "worker", { name: "worker", entrypoint });
      const sandbox = new MeshContainer(s, "sandbox", { name: "sandbox", image: "img:1" });
      worker.contribute({ containers: [{ className: "Sandbox", container: sandbox }] });
      sandbox.contribute({ namespaceId: worker.namespaceId });
    };
    await apply(w.engine, await synth(w, build("worker.js")), w.store);
    const namespace = hostSpec(w.host, "Container", "sandbox")!["namespaceId"];
    const from = w.host.mutations.length;
    const v2 = await synth(w, build("worker2.js"));
    const planned = await plan(w.engine, v2, w.store);
    // The worker's outputs are unknown after its update, so the container plans an update too.
    expect(planned.plan.resourceChanges.map((c) => [c.address, c.actions[0]])).toEqual([
      [`${CONTAINER}.sandbox`, "update"],
      [`${WORKER}.worker`, "update"],
    ]);
    expect(stepSequence(planned.plan).slice(0, 2)).toEqual([`update ${WORKER}.worker`, `update ${CONTAINER}.sandbox`]);
    const run = await apply(w.engine, v2, w.store);
    expect(run.result!.ok).toBe(true);
    expect(mutationsSince(w.host, from)).toEqual(["PUT Worker worker 200", "PUT Container sandbox 200"]);
    // The namespace id is stable per uid, so the container's value did not move.
    expect(hostSpec(w.host, "Container", "sandbox")!["namespaceId"]).toBe(namespace);
    expect((await plan(w.engine, v2, w.store)).plan.steps).toEqual([]);
  });
});
