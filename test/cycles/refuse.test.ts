// Loops no placeholder can break are refused at plan (RFC 0011 rules 1 and 3), naming the loop's
// resources, the edge that closes it, and for each member why it cannot start as a placeholder.
// Nothing reaches the host. And the greedy placeholder choice, on loops that can be broken.

import { describe, expect, it } from "vitest";
import { plan, stackOf } from "../scenario/harness.ts";
import { stepSequence, SVC, useWorld } from "./fixtures.ts";

const ref = (address: string) => `\${${address}.name}`;
const binding = (name: string, target: string) => ({ name, service: ref(target), version: null });
const contribution = (from: string, values: Record<string, unknown>) => ({ "//": { takoform: { contributions: [{ from, values }] } } });

describe("cycles refused at plan", () => {
  const w = useWorld();

  async function refused(document: unknown) {
    const outcome = await plan(w.engine, await stackOf(w.scratch, document), w.store);
    expect(outcome.ok).toBe(false);
    expect(w.host.mutations).toEqual([]);
    return outcome.plan.diagnostics.filter((d) => d.code === "takoform.engine/cycle");
  }

  it("a loop through constructor configuration: the closing reference and both reasons", async () => {
    const [d, ...more] = await refused({
      resource: {
        [SVC]: {
          a: { name: "a", entrypoint: "a.js", service_bindings: [binding("B", `${SVC}.b`)] },
          b: { name: "b", entrypoint: "b.js", service_bindings: [binding("A", `${SVC}.a`)] },
        },
      },
    });
    expect(more).toEqual([]);
    expect(d!.summary).toBe(`Dependency cycle between ${SVC}.a, ${SVC}.b`);
    expect(d!.detail).toContain(`The edge that closes it: ${SVC}.b → ${SVC}.a (service_bindings uses \${${SVC}.a.name}).`);
    expect(d!.detail).toContain(`${SVC}.a: it receives no contribution`);
    expect(d!.detail).toContain(`${SVC}.b: it receives no contribution`);
    expect(d!.repair).toContain("contribute()");
  });

  it("a loop closed by depends_on stays even when a member starts as a placeholder", async () => {
    const [d] = await refused({
      resource: {
        [SVC]: {
          a: { name: "a", entrypoint: "a.js", depends_on: [`${SVC}.b`], ...contribution(`${SVC}.b`, { service_bindings: [binding("B", `${SVC}.b`)] }) },
          b: { name: "b", entrypoint: "b.js", depends_on: [`${SVC}.a`] },
        },
      },
    });
    expect(d!.summary).toBe(`Dependency cycle between ${SVC}.a, ${SVC}.b`);
    expect(d!.detail).toContain(`The loop: ${SVC}.a → ${SVC}.b (depends_on: depends_on) → ${SVC}.a (depends_on: depends_on).`);
    expect(d!.detail).toContain(`The edge that closes it: ${SVC}.b → ${SVC}.a (depends_on ${SVC}.a).`);
    expect(d!.detail).toContain(`${SVC}.a: it already starts as a placeholder, yet stays in the loop through ${SVC}.a → ${SVC}.b (depends_on ${SVC}.b)`);
    expect(d!.detail).toContain(`${SVC}.b: it receives no contribution`);
  });

  it("a loop whose only contribution goes to a revision-role member", async () => {
    const V = "takoform_worker_version";
    const [d] = await refused({
      resource: {
        [SVC]: { s: { name: "s", entrypoint: "s.js", service_bindings: [binding("V", `${V}.v`)] } },
        [V]: { v: { worker: "w", bundle: "b", ...contribution(`${SVC}.s`, { kv_bindings: [{ name: "S", target_name: ref(`${SVC}.s`) }] }) } },
      },
    });
    expect(d!.summary).toBe(`Dependency cycle between ${SVC}.s, ${V}.v`);
    expect(d!.detail).toContain(`The edge that closes it: ${SVC}.s → ${V}.v (service_bindings uses \${${V}.v.name}).`);
    expect(d!.detail).toContain(`${V}.v: WorkerVersion is a revision-role Form: a revision is never updated in place, so it can never start as a placeholder`);
    expect(d!.detail).toContain(`${SVC}.s: it receives no contribution`);
  });

  it("members whose contributed fields are required or immutable", async () => {
    const [d] = await refused({
      resource: {
        [SVC]: {
          a: { name: "a", ...contribution(`${SVC}.b`, { entrypoint: `\${${SVC}.b.url}` }) },
          b: { name: "b", entrypoint: "b.js", ...contribution(`${SVC}.a`, { tier: "edge", service_bindings: [binding("A", `${SVC}.a`)] }) },
        },
      },
    });
    expect(d!.detail).toContain(`${SVC}.a: its contributed field entrypoint is required in Service's desiredSchema, so it cannot start without it`);
    expect(d!.detail).toContain(`${SVC}.b: its contributed field tier is immutable in Service, so an update could not add it later`);
  });

  it("names every unbreakable loop, and only those", async () => {
    const diagnostics = await refused({
      resource: {
        [SVC]: {
          a: { name: "a", entrypoint: "a.js", service_bindings: [binding("B", `${SVC}.b`)] },
          b: { name: "b", entrypoint: "b.js", service_bindings: [binding("A", `${SVC}.a`)] },
          c: { name: "c", entrypoint: "c.js", ...contribution(`${SVC}.d`, { service_bindings: [binding("D", `${SVC}.d`)] }) },
          d: { name: "d", entrypoint: "d.js", ...contribution(`${SVC}.c`, { service_bindings: [binding("C", `${SVC}.c`)] }) },
          x: { name: "x", entrypoint: "x.js", depends_on: [`${SVC}.y`] },
          y: { name: "y", entrypoint: "y.js", depends_on: [`${SVC}.x`] },
        },
      },
    });
    expect(diagnostics.map((d) => d.summary)).toEqual([`Dependency cycle between ${SVC}.a, ${SVC}.b`, `Dependency cycle between ${SVC}.x, ${SVC}.y`]);
  });
});

describe("choosing placeholders", () => {
  const w = useWorld();

  it("is greedy in address order: two loops sharing b get a and b as placeholders", async () => {
    const document = {
      resource: {
        [SVC]: {
          a: { name: "a", entrypoint: "a.js", ...contribution(`${SVC}.b`, { service_bindings: [binding("B", `${SVC}.b`)] }) },
          b: {
            name: "b",
            entrypoint: "b.js",
            "//": {
              takoform: {
                contributions: [
                  { from: `${SVC}.a`, values: { service_bindings: [binding("A", `${SVC}.a`)] } },
                  { from: `${SVC}.c`, values: { service_bindings: [binding("C", `${SVC}.c`)] } },
                ],
              },
            },
          },
          c: { name: "c", entrypoint: "c.js", ...contribution(`${SVC}.b`, { service_bindings: [binding("B", `${SVC}.b`)] }) },
        },
      },
    };
    const first = await plan(w.engine, await stackOf(w.scratch, document), w.store);
    expect(first.ok).toBe(true);
    expect(first.plan.resourceChanges.filter((c) => c.placeholder).map((c) => c.address)).toEqual([`${SVC}.a`, `${SVC}.b`]);
    expect(stepSequence(first.plan).slice(0, 5)).toEqual([
      `create-placeholder ${SVC}.a`,
      `create-placeholder ${SVC}.b`,
      `create ${SVC}.c`,
      `finalize ${SVC}.a`,
      `finalize ${SVC}.b`,
    ]);
    // The same configuration always gives the same plan.
    const second = await plan(w.engine, await stackOf(w.scratch, document), w.store);
    expect(second.plan.steps).toEqual(first.plan.steps);
  });

  it("two contributions to a field that is not a list are refused at plan, though both are still unknown", async () => {
    const WORKER = "takoform_mesh_worker";
    const CONTAINER = "takoform_mesh_container";
    const outcome = await plan(
      w.engine,
      await stackOf(w.scratch, {
        resource: {
          [WORKER]: {
            w: {
              name: "w",
              entrypoint: "w.js",
              "//": {
                takoform: {
                  contributions: [{ from: `${CONTAINER}.c`, values: { containers: [{ class_name: "Sandbox", container: `\${${CONTAINER}.c.name}` }] } }],
                },
              },
            },
            w2: { name: "w2", entrypoint: "w.js" },
          },
          [CONTAINER]: {
            c: {
              name: "c",
              image: "img:1",
              "//": {
                takoform: {
                  contributions: [
                    { from: `${WORKER}.w`, values: { namespace_id: `\${${WORKER}.w.namespace_id}` } },
                    { from: `${WORKER}.w2`, values: { namespace_id: `\${${WORKER}.w2.namespace_id}` } },
                  ],
                },
              },
            },
          },
        },
      }),
      w.store,
    );
    expect(outcome.ok).toBe(false);
    expect(outcome.plan.diagnostics.filter((d) => d.severity === "error").map((d) => [d.code, d.summary, d.attribute])).toEqual([
      ["takoform.engine/contribution-conflict", `${WORKER}.w2 contributes namespace_id to ${CONTAINER}.c, which already sets it`, "namespace_id"],
    ]);
    expect(w.host.mutations).toEqual([]);
  });
});
