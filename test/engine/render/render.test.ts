import { describe, it, expect } from "vitest";
import { UNKNOWN } from "../../../src/core/values.ts";
import { knownPart, planToJson, unknownMask } from "../../../src/engine/render/json.ts";
import { renderPlan, summarize } from "../../../src/engine/render/human.ts";
import type { Plan } from "../../../src/engine/plan/types.ts";

function plan(overrides: Partial<Plan>): Plan {
  return {
    formatVersion: 1, stateLineage: "l", stateSerial: 3, resourceChanges: [], outputChanges: [], steps: [], diagnostics: [],
    destroy: false, refreshOnly: false, ...overrides,
  };
}

describe("plan JSON (terraform show -json shape)", () => {
  it("after omits unknown object members and nulls unknown list items; after_unknown marks them", () => {
    const after = { name: "a", uid: UNKNOWN, list: ["x", UNKNOWN], nested: { k: UNKNOWN, j: 1 } };
    expect(knownPart(after)).toEqual({ name: "a", list: ["x", null], nested: { j: 1 } });
    expect(unknownMask(after)).toEqual({ uid: true, list: [false, true], nested: { k: true } });
  });

  it("writes Terraform's action arrays, replace_paths, diagnostics and steps", () => {
    const json = planToJson(plan({
      resourceChanges: [{
        address: "takoform_worker_bundle.app", type: "takoform_worker_bundle", name: "app", actions: ["create", "delete"],
        before: { name: "bundle-old", token: "s3cret" }, after: { name: UNKNOWN, token: "s3cret" },
        replacePaths: [["name"]], replaceReasons: [{ path: ["name"], reason: "derived revision name changed" }], sensitivePaths: [["token"]],
      }],
      steps: [{ id: "create:takoform_worker_bundle.app", address: "takoform_worker_bundle.app", action: "create", dependsOn: [] }],
      diagnostics: [{ severity: "warning", summary: "w" }],
    }));
    const rc = (json["resource_changes"] as Record<string, any>[])[0]!;
    expect(rc["change"].actions).toEqual(["create", "delete"]);
    expect(rc["change"].replace_paths).toEqual([["name"]]);
    expect(rc["change"].after_unknown).toEqual({ name: true });
    expect(rc["change"].before.token).toBe("(sensitive value)");
    expect(JSON.stringify(json)).not.toContain("s3cret");
    expect(json["steps"]).toEqual([{ id: "create:takoform_worker_bundle.app", address: "takoform_worker_bundle.app", action: "create", depends_on: [] }]);
    expect((json["diagnostics"] as unknown[]).length).toBe(1);
  });
});

describe("human plan", () => {
  it("uses Terraform's symbols, marks what forces replacement and sums up", () => {
    const p = plan({
      resourceChanges: [
        { address: "takoform_module_worker.w", type: "takoform_module_worker", name: "w", actions: ["create"], before: null, after: { name: "counter", uid: UNKNOWN }, replacePaths: [], replaceReasons: [], sensitivePaths: [] },
        { address: "takoform_worker_bundle.b", type: "takoform_worker_bundle", name: "b", actions: ["create", "delete"], before: { name: "bundle-1", space: "default" }, after: { name: "bundle-2", space: "default" }, replacePaths: [["name"]], replaceReasons: [], sensitivePaths: [] },
        { address: "takoform_worker_deployment.d", type: "takoform_worker_deployment", name: "d", actions: ["update"], before: { versions: [{ weight: 10000, worker_version: "v1" }] }, after: { versions: [{ weight: 10000, worker_version: "v2" }] }, replacePaths: [], replaceReasons: [], sensitivePaths: [] },
        { address: "takoform_edge_kv_namespace.k", type: "takoform_edge_kv_namespace", name: "k", actions: ["delete"], actionReason: "delete_because_no_resource_config", before: { name: "cache" }, after: null, replacePaths: [], replaceReasons: [], sensitivePaths: [] },
        { address: "takoform_edge_kv_namespace.same", type: "takoform_edge_kv_namespace", name: "same", actions: ["no-op"], before: { name: "x" }, after: { name: "x" }, replacePaths: [], replaceReasons: [], sensitivePaths: [] },
      ],
    });
    const text = renderPlan(p, { color: false });
    expect(text).toContain('  + resource "takoform_module_worker" "w" {');
    expect(text).toContain("uid  = (known after apply)");
    expect(text).toContain('+/- resource "takoform_worker_bundle" "b" {');
    expect(text).toContain('~ name  = "bundle-1" -> "bundle-2" # forces replacement');
    expect(text).toContain("(1 unchanged attribute hidden)");
    expect(text).toContain('~ worker_version = "v1" -> "v2"');
    expect(text).toContain("# takoform_edge_kv_namespace.k will be destroyed (not in configuration)");
    expect(text).not.toContain("takoform_edge_kv_namespace.same");
    expect(text).toContain("Plan: 2 to add, 1 to change, 2 to destroy.");
    expect(summarize(p)).toEqual({ add: 2, change: 1, destroy: 2, import: 0 });
    expect(text).not.toContain("\x1b[");
  });

  it("says there is nothing to do when nothing changes", () => {
    expect(renderPlan(plan({}), { color: false })).toContain("No changes.");
  });

  it("lists the cycle steps when the plan has any", () => {
    const text = renderPlan(plan({
      resourceChanges: [{ address: "takoform_mesh_service.a", type: "takoform_mesh_service", name: "a", actions: ["create"], before: null, after: {}, replacePaths: [], replaceReasons: [], sensitivePaths: [], placeholder: true }],
      steps: [
        { id: "p", address: "takoform_mesh_service.a", action: "create-placeholder", dependsOn: [] },
        { id: "c", address: "takoform_mesh_service.b", action: "create", dependsOn: ["p"] },
        { id: "f", address: "takoform_mesh_service.a", action: "finalize", dependsOn: ["c"] },
      ],
    }), { color: false });
    expect(text).toContain("1. create-placeholder takoform_mesh_service.a");
    expect(text).toContain("3. finalize takoform_mesh_service.a");
    expect(text).toContain("(as a cycle placeholder first)");
  });
});
