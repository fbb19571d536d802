// Replacing a member of a cycle (RFC 0011 rule 7): side by side when the new object gets a new
// (generated) name — create A′, move the peers onto it, delete A; the cycle stays up — and
// destroy-first with a fixed name — revert the peers, delete A, create A′, settle — which the
// plan warns about.

import { describe, expect, it } from "vitest";
import { apply, plan, stackOf } from "../scenario/harness.ts";
import { boundTo, mutationsSince, noDependencyInUse, services, type ServiceSpec, settles, stepSequence, SVC, synth, useWorld } from "./fixtures.ts";

describe("replacing a cycle member", () => {
  const w = useWorld();

  async function deployThenChange(before: ServiceSpec[], after: ServiceSpec[]) {
    const first = await synth(w, (s) => services(s, before));
    expect((await apply(w.engine, first, w.store)).status).toBe("applied");
    const second = await synth(w, (s) => services(s, after));
    return { second, from: w.host.mutations.length };
  }

  for (const replaced of ["a", "b"]) {
    it(`side by side: ${replaced} has a generated name, so ${replaced}′ is created, its peer moves onto it, then ${replaced} is deleted`, async () => {
      const peer = replaced === "a" ? "b" : "a";
      const spec = (tier: "standard" | "edge"): ServiceSpec[] =>
        ["a", "b"].map((id) => ({ id, binds: [id === "a" ? "b" : "a"], ...(id === replaced ? { namePrefix: `${id}-`, tier } : {}) }));
      const { second, from } = await deployThenChange(spec("standard"), spec("edge"));
      const oldName = (await w.store.get(`${SVC}.${replaced}`))!.name!;
      expect(oldName).toMatch(new RegExp(`^${replaced}-[0-9a-f]{8}$`));

      const planned = await plan(w.engine, second, w.store);
      expect(planned.ok, planned.plan.diagnostics.map((d) => d.summary).join("; ")).toBe(true);
      expect(planned.plan.diagnostics).toEqual([]);
      const changes = Object.fromEntries(planned.plan.resourceChanges.map((c) => [c.address, c.actions.join(",")]));
      expect(changes).toEqual({ [`${SVC}.${replaced}`]: "create,delete", [`${SVC}.${peer}`]: "update" });
      const members = replaced === "a" ? [`${SVC}.a`, `${SVC}.b`] : [`${SVC}.a`, `${SVC}.b`];
      expect(stepSequence(planned.plan)).toEqual([`create ${SVC}.${replaced}`, `update ${SVC}.${peer}`, `delete ${SVC}.${replaced}`, ...settles(3, members)]);

      const seen: (string[] | undefined)[] = [];
      const run = await apply(w.engine, second, w.store, { hooks: { afterWrite: () => void seen.push(boundTo(w.host, peer)) } });
      expect(run.status).toBe("applied");
      expect(run.result!.ok, run.diagnostics.map((d) => d.summary).join("; ")).toBe(true);
      const newName = (await w.store.get(`${SVC}.${replaced}`))!.name!;
      expect(newName).not.toBe(oldName);
      expect(mutationsSince(w.host, from)).toEqual([`PUT Service ${newName} 201`, `PUT Service ${peer} 200`, `DELETE Service ${oldName} 204`]);
      // The peer always bound a live service: the old one until it moved, then the new one.
      expect(seen).toEqual([[oldName], [newName], [newName]]);
      expect(boundTo(w.host, newName)).toEqual([peer]);
      expect((await plan(w.engine, second, w.store)).plan.steps).toEqual([]);
    });
  }

  it("fixed name: the peer is reverted, the member deleted and created again, and the cycle settles; the plan warns", async () => {
    const spec = (tier: "standard" | "edge"): ServiceSpec[] => [
      { id: "a", binds: ["b"], tier },
      { id: "b", binds: ["a"] },
    ];
    const { second, from } = await deployThenChange(spec("standard"), spec("edge"));
    const oldUid = (await w.store.get(`${SVC}.a`))!.uid;

    const planned = await plan(w.engine, second, w.store);
    expect(planned.ok).toBe(true);
    expect(planned.plan.resourceChanges.map((c) => [c.address, c.actions.join(",")])).toEqual([
      [`${SVC}.a`, "delete,create"],
      [`${SVC}.b`, "no-op"],
    ]);
    expect(stepSequence(planned.plan)).toEqual([`revert ${SVC}.b`, `delete ${SVC}.a`, `create ${SVC}.a`, ...settles(3, [`${SVC}.a`, `${SVC}.b`])]);
    const [warning, ...rest] = planned.plan.diagnostics;
    expect(rest).toEqual([]);
    expect(warning!.severity).toBe("warning");
    expect(warning!.code).toBe("takoform.engine/cycle-member-unavailable");
    expect(warning!.summary).toBe(`${SVC}.a is replaced under its fixed name "a", so it is unavailable until the cycle settles`);
    expect(warning!.detail).toContain(`It first reverts ${SVC}.b to its placeholder`);
    expect(warning!.repair).toContain("generated name (name_prefix");
    expect(warning!.repair).toContain("stable route");

    const run = await apply(w.engine, second, w.store);
    expect(run.status).toBe("applied");
    expect(run.result!.ok, run.diagnostics.map((d) => d.summary).join("; ")).toBe(true);
    noDependencyInUse(w.host);
    expect(mutationsSince(w.host, from)).toEqual(["PUT Service b 200", "DELETE Service a 204", "PUT Service a 201", "PUT Service b 200"]);
    expect((await w.store.get(`${SVC}.a`))!.uid).not.toBe(oldUid);
    expect([boundTo(w.host, "a"), boundTo(w.host, "b")]).toEqual([["b"], ["a"]]);
    expect((await w.store.get(`${SVC}.b`))!.status).toBe("ready");
    expect((await plan(w.engine, second, w.store)).plan.steps).toEqual([]);
  });

  it("a generated name forced destroy-first by a dependency replaced destroy-first: the warning says why and how to avoid it", async () => {
    const KV = "takoform_edge_kv_namespace";
    const document = (kvName: string) => ({
      resource: {
        [KV]: { kv: { name: kvName } },
        [SVC]: {
          a: {
            name_prefix: "a-",
            entrypoint: "a.js",
            lifecycle: { replace_triggered_by: [`${KV}.kv`] },
            "//": {
              takoform: { contributions: [{ from: `${SVC}.b`, values: { service_bindings: [{ name: "B", service: `\${${SVC}.b.name}`, version: null }] } }] },
            },
          },
          b: {
            name: "b",
            entrypoint: "b.js",
            "//": {
              takoform: { contributions: [{ from: `${SVC}.a`, values: { service_bindings: [{ name: "A", service: `\${${SVC}.a.name}`, version: null }] } }] },
            },
          },
        },
      },
    });
    expect((await apply(w.engine, await stackOf(w.scratch, document("kv-1")), w.store)).status).toBe("applied");
    const planned = await plan(w.engine, await stackOf(w.scratch, document("kv-2")), w.store);
    expect(planned.ok, planned.plan.diagnostics.map((d) => d.summary).join("; ")).toBe(true);
    expect(planned.plan.resourceChanges.find((c) => c.address === `${SVC}.a`)!.actions).toEqual(["delete", "create"]);
    const warning = planned.plan.diagnostics.find((d) => d.code === "takoform.engine/cycle-member-unavailable")!;
    expect(warning.summary).toBe(`${SVC}.a is replaced destroy-first because a dependency of it is, so it is unavailable until the cycle settles`);
    expect(warning.repair).toContain("create_before_destroy");
  });
});
