// The engine's configuration pass (plan/validate.ts): every resource checked on its own before
// the host is asked anything, so a resource whose dependency is wrong is checked too, and every
// reference and ignore_changes path must name an attribute of its type's schema. Through
// runPlan against the local host over HTTP; the pass makes no host call at all.

import { describe, expect, it } from "vitest";
import { plan, stackOf, useEngine, withScratch } from "../../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";
const W = "takoform_module_worker";
const D = "takoform_worker_deployment";

describe("the configuration pass", () => {
  const ctx = useEngine();

  it("reports a resource's errors even when the resource it depends on is wrong too, with no host call", async () => {
    await withScratch(async (scratch, store) => {
      const stack = await stackOf(scratch, {
        resource: {
          [W]: { w: { name: 7 } },
          [D]: { d: { name: "d", worker: `\${${W}.w.name}`, versions: [{ worker_version: "v", weight: 10000, share: 1 }] } },
        },
      });
      const requests = ctx.host.mutations.length;
      const outcome = await plan(ctx.engine, stack, store);
      expect(outcome.ok).toBe(false);
      expect(outcome.plan.diagnostics.map((d) => [d.address, d.attribute, d.summary])).toEqual([
        [`${W}.w`, "name", "Incorrect attribute value type"],
        [`${D}.d`, "versions[0].share", "Unsupported argument"],
      ]);
      expect(outcome.plan.resourceChanges).toEqual([]);
      expect(ctx.host.mutations.length).toBe(requests);
    });
  });

  it("every reference and ignore_changes path must name an attribute the referenced type has", async () => {
    await withScratch(async (scratch, store) => {
      const stack = await stackOf(scratch, {
        resource: {
          [KV]: { a: { name: "a" } },
          [W]: {
            w: {
              name: `\${${KV}.a.nmae}`,
              lifecycle: { ignore_changes: ["nane"], replace_triggered_by: [`\${${KV}.a.conditions.type}`] },
            },
            x: {
              "//": { takoform: { contributions: [{ from: `${KV}.a`, values: { name: `\${${KV}.a.outputs_json.k}` } }] } },
            },
          },
        },
        output: { cond: { value: `\${${KV}.a.conditions[0].status}` }, bad: { value: `\${${KV}.a.name[0]}` } },
      });
      const outcome = await plan(ctx.engine, stack, store);
      const found = outcome.plan.diagnostics.map((d) => [d.address ?? "", d.attribute, d.code, d.detail]);
      expect(found).toEqual([
        ["", "output.bad", "takoform.engine/invalid-reference", `output "bad" refers to \${${KV}.a.name[0]}, but name is a string.`],
        [
          `${W}.w`,
          "name",
          "takoform.engine/invalid-reference",
          `${W}.w.name refers to \${${KV}.a.nmae}, but a ${KV} has no attribute "nmae". Did you mean "name"?`,
        ],
        [
          `${W}.w`,
          "lifecycle.replace_triggered_by",
          "takoform.engine/invalid-reference",
          `lifecycle.replace_triggered_by of ${W}.w refers to \${${KV}.a.conditions.type}, but conditions is a list; it has elements [0], [1], …, not an attribute "type".`,
        ],
        [
          `${W}.w`,
          "lifecycle.ignore_changes",
          "takoform.engine/invalid-reference",
          `lifecycle.ignore_changes of ${W}.w lists nane, but a ${W} has no attribute "nane". Did you mean "name"?`,
        ],
        [
          `${W}.x`,
          "name",
          "takoform.engine/invalid-reference",
          `The value ${KV}.a contributes to ${W}.x.name refers to \${${KV}.a.outputs_json.k}, but outputs_json is a string holding JSON, which a reference cannot reach inside.`,
        ],
      ]);
      const repair = outcome.plan.diagnostics.find((d) => d.attribute === "name" && d.address === `${W}.w`)!.repair;
      expect(repair).toBe(`Refer to ${KV}.a.name instead.`);
    });
  });

  it("a destroy does not need the configuration to validate", async () => {
    await withScratch(async (scratch, store) => {
      const stack = await stackOf(scratch, { resource: { [KV]: { a: { name: "a", bogus: 1 } } } });
      const outcome = await plan(ctx.engine, stack, store, { mode: "destroy" });
      expect(outcome.ok).toBe(true);
    });
  });
});
