import { describe, it, expect } from "vitest";
import { UNKNOWN } from "../../src/core/values.ts";
import { knownPart, planToJson, unknownMask } from "../../src/views/json.ts";
import { renderPlan, summarize } from "../../src/views/human.ts";
import type { Plan } from "../../src/engine/plan-data.ts";
import { formatValue } from "../../src/views/values.ts";
import { sealSensitive } from "../../src/secrets/index.ts";

function plan(overrides: Partial<Plan>): Plan {
  return {
    formatVersion: 1,
    stateLineage: "l",
    stateSerial: 3,
    resourceChanges: [],
    outputChanges: [],
    steps: [],
    diagnostics: [],
    destroy: false,
    refreshOnly: false,
    ...overrides,
  };
}

describe("plan JSON (terraform show -json shape)", () => {
  it("after omits unknown object members and nulls unknown list items; after_unknown marks them", () => {
    const after = { name: "a", uid: UNKNOWN, list: ["x", UNKNOWN], nested: { k: UNKNOWN, j: 1 } };
    expect(knownPart(after)).toEqual({ name: "a", list: ["x", null], nested: { j: 1 } });
    expect(unknownMask(after)).toEqual({ uid: true, list: [false, true], nested: { k: true } });
  });

  it("writes Terraform's action arrays, replace_paths, diagnostics and steps", () => {
    const json = planToJson(
      plan({
        resourceChanges: [
          {
            address: "takoform_worker_bundle.app",
            type: "takoform_worker_bundle",
            name: "app",
            actions: ["create", "delete"],
            before: { name: "bundle-old", token: "s3cret" },
            after: { name: UNKNOWN, token: "s3cret" },
            replacePaths: [["name"]],
            replaceReasons: [{ path: ["name"], reason: "derived revision name changed" }],
            sensitivePaths: [["token"]],
          },
        ],
        steps: [{ id: "create:takoform_worker_bundle.app", address: "takoform_worker_bundle.app", action: "create", dependsOn: [] }],
        diagnostics: [{ severity: "warning", summary: "w" }],
      }),
    );
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
        {
          address: "takoform_module_worker.w",
          type: "takoform_module_worker",
          name: "w",
          actions: ["create"],
          before: null,
          after: { name: "counter", uid: UNKNOWN },
          replacePaths: [],
          replaceReasons: [],
          sensitivePaths: [],
        },
        {
          address: "takoform_worker_bundle.b",
          type: "takoform_worker_bundle",
          name: "b",
          actions: ["create", "delete"],
          before: { name: "bundle-1", space: "default" },
          after: { name: "bundle-2", space: "default" },
          replacePaths: [["name"]],
          replaceReasons: [],
          sensitivePaths: [],
        },
        {
          address: "takoform_worker_deployment.d",
          type: "takoform_worker_deployment",
          name: "d",
          actions: ["update"],
          before: { versions: [{ weight: 10000, worker_version: "v1" }] },
          after: { versions: [{ weight: 10000, worker_version: "v2" }] },
          replacePaths: [],
          replaceReasons: [],
          sensitivePaths: [],
        },
        {
          address: "takoform_edge_kv_namespace.k",
          type: "takoform_edge_kv_namespace",
          name: "k",
          actions: ["delete"],
          actionReason: "delete_because_no_resource_config",
          before: { name: "cache" },
          after: null,
          replacePaths: [],
          replaceReasons: [],
          sensitivePaths: [],
        },
        {
          address: "takoform_edge_kv_namespace.same",
          type: "takoform_edge_kv_namespace",
          name: "same",
          actions: ["no-op"],
          before: { name: "x" },
          after: { name: "x" },
          replacePaths: [],
          replaceReasons: [],
          sensitivePaths: [],
        },
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
    expect(summarize(p)).toEqual({ add: 2, change: 1, destroy: 2, import: 0, forget: 0 });
    expect(text).not.toContain("\x1b[");
  });

  it("says there is nothing to do when nothing changes", () => {
    expect(renderPlan(plan({}), { color: false })).toContain("No changes.");
  });

  it("lists the cycle steps when the plan has any", () => {
    const text = renderPlan(
      plan({
        resourceChanges: [
          {
            address: "takoform_mesh_service.a",
            type: "takoform_mesh_service",
            name: "a",
            actions: ["create"],
            before: null,
            after: {},
            replacePaths: [],
            replaceReasons: [],
            sensitivePaths: [],
            placeholder: true,
          },
        ],
        steps: [
          { id: "p", address: "takoform_mesh_service.a", action: "create-placeholder", dependsOn: [] },
          { id: "c", address: "takoform_mesh_service.b", action: "create", dependsOn: ["p"] },
          { id: "f", address: "takoform_mesh_service.a", action: "finalize", dependsOn: ["c"] },
        ],
      }),
      { color: false },
    );
    expect(text).toContain("1. create-placeholder takoform_mesh_service.a");
    expect(text).toContain("3. finalize takoform_mesh_service.a");
    expect(text).toContain("(as a cycle placeholder first)");
  });
});

describe("sensitive attributes", () => {
  const change = (before: Record<string, any> | null, after: Record<string, any> | null, actions: any = ["update"]) => ({
    address: "takoform_at_least_once_queue.q",
    type: "takoform_at_least_once_queue",
    name: "q",
    actions,
    before,
    after,
    replacePaths: [],
    replaceReasons: [],
    sensitivePaths: [["retention"], ["token"], ["extra"]],
  });

  it("a changed secret is shown as changed, unquoted, without its value; an unchanged one is hidden", () => {
    const text = renderPlan(
      plan({
        resourceChanges: [
          change({ name: "q", retention: 3600, token: "s3cret-a", extra: "gone-secret" }, { name: "q", retention: 7200, token: "s3cret-a", added: 1 }),
        ],
      }),
      { color: false },
    );
    expect(text).toMatch(/~ retention += \(sensitive value\)\n/);
    expect(text).toMatch(/- extra += \(sensitive value\) -> null\n/);
    expect(text).not.toMatch(/token/); // unchanged: hidden with the other unchanged attributes
    expect(text).toContain("(2 unchanged attributes hidden)");
    expect(text).not.toContain('"(sensitive value)"');
    for (const secret of ["3600", "7200", "s3cret-a", "gone-secret"]) expect(text).not.toContain(secret);
    expect(text).toContain("Plan: 0 to add, 1 to change, 0 to destroy.");
  });

  it("an added secret is `+ name = (sensitive value)`; a create shows every secret that way", () => {
    const text = renderPlan(
      plan({
        resourceChanges: [
          change({ name: "q" }, { name: "q", token: "s3cret-b" }),
          { ...change(null, { name: "r", retention: 60 }, ["create"]), address: "takoform_at_least_once_queue.r", name: "r" },
        ],
      }),
      { color: false },
    );
    expect(text).toMatch(/\+ token += \(sensitive value\)\n/);
    expect(text).toMatch(/\+ retention += \(sensitive value\)\n/);
    expect(text).not.toContain("s3cret-b");
    expect(text).not.toMatch(/= 60/);
  });

  it("a seal from state equals the plain value it seals (under the lineage) and differs from any other", () => {
    const sealed = sealSensitive(3600, "l");
    const same = renderPlan(plan({ resourceChanges: [change({ name: "q", retention: sealed, size: 1 }, { name: "q", retention: 3600, size: 2 })] }), {
      color: false,
    });
    expect(same).not.toMatch(/retention/);
    expect(same).not.toContain("sha256:");
    const other = renderPlan(plan({ resourceChanges: [change({ name: "q", retention: sealed }, { name: "q", retention: 7200 })] }), { color: false });
    expect(other).toMatch(/~ retention += \(sensitive value\)\n/);
    expect(other).not.toContain("7200");
    const unknown = renderPlan(plan({ resourceChanges: [change({ name: "q", retention: sealed }, { name: "q", retention: UNKNOWN })] }), { color: false });
    expect(unknown).toMatch(/~ retention += \(sensitive value\)\n/);
    // A seal in an attribute the paths do not name is still shown as a secret, never as its digest.
    const stray = renderPlan(plan({ resourceChanges: [{ ...change({ name: "q", other: sealed }, { name: "q", other: 5 }), sensitivePaths: [] }] }), {
      color: false,
    });
    expect(stray).toMatch(/~ other += \(sensitive value\)\n/);
    expect(stray).not.toContain("sha256:");
  });

  it("formatValue shows a seal as (sensitive value), unquoted (state show)", () => {
    expect(formatValue(sealSensitive("pw", "l"), "")).toBe("(sensitive value)");
    expect(formatValue({ inner: sealSensitive("pw", "l") }, "")).toBe("{\n    inner = (sensitive value)\n}");
  });

  it("JSON masks the values and marks them in before_sensitive / after_sensitive", () => {
    const json = planToJson(
      plan({
        resourceChanges: [
          change({ name: "q", retention: 3600, token: sealSensitive("t", "l") }, { name: "q", retention: 7200 }),
          { ...change(null, { name: "r", retention: 60 }, ["create"]), address: "takoform_at_least_once_queue.r", name: "r" },
          { ...change({ name: "d", retention: 60 }, null, ["delete"]), address: "takoform_at_least_once_queue.d", name: "d" },
        ],
      }),
    );
    const [u, c, d] = (json["resource_changes"] as Record<string, any>[]).map((r) => r["change"]);
    expect(u.before).toEqual({ name: "q", retention: "(sensitive value)", token: "(sensitive value)" });
    expect(u.after).toEqual({ name: "q", retention: "(sensitive value)" });
    expect(u.before_sensitive).toEqual({ retention: true, token: true, extra: true });
    expect(u.after_sensitive).toEqual({ retention: true, token: true, extra: true });
    expect(c.before_sensitive).toBe(false);
    expect(c.after_sensitive).toMatchObject({ retention: true });
    expect(d.after_sensitive).toBe(false);
    expect(d.before_sensitive).toMatchObject({ retention: true });
    const text = JSON.stringify(json);
    for (const secret of ["3600", "7200", ":60", "sha256:"]) expect(text).not.toContain(secret);
  });
});

describe("deposed objects in JSON", () => {
  it("have the resource's own address plus `deposed`, as terraform show -json", () => {
    const json = planToJson(
      plan({
        resourceChanges: [
          {
            address: "takoform_worker_version.v#deposed:825f503b",
            type: "takoform_worker_version",
            name: "v",
            actions: ["delete"],
            before: { name: "v1" },
            after: null,
            replacePaths: [],
            replaceReasons: [],
            sensitivePaths: [],
          },
        ],
      }),
    );
    const rc = (json["resource_changes"] as Record<string, any>[])[0]!;
    expect(rc["address"]).toBe("takoform_worker_version.v");
    expect(rc["deposed"]).toBe("825f503b");
    expect(rc["name"]).toBe("v");
    const text = renderPlan(
      plan({
        resourceChanges: [
          {
            address: "takoform_worker_version.v#deposed:825f503b",
            type: "takoform_worker_version",
            name: "v",
            actions: ["delete"],
            before: { name: "v1" },
            after: null,
            replacePaths: [],
            replaceReasons: [],
            sensitivePaths: [],
          },
        ],
      }),
      { color: false },
    );
    expect(text).toContain("# takoform_worker_version.v (deposed object 825f503b) will be destroyed");
  });

  it("an object that is not deposed has no `deposed` member", () => {
    const json = planToJson(
      plan({
        resourceChanges: [
          {
            address: "takoform_worker_version.v",
            type: "takoform_worker_version",
            name: "v",
            actions: ["create"],
            before: null,
            after: { name: "v1" },
            replacePaths: [],
            replaceReasons: [],
            sensitivePaths: [],
          },
        ],
      }),
    );
    expect(Object.hasOwn((json["resource_changes"] as Record<string, any>[])[0]!, "deposed")).toBe(false);
  });
});

describe("plan summary line", () => {
  const create = {
    address: "takoform_edge_kv_namespace.a",
    type: "takoform_edge_kv_namespace",
    name: "a",
    actions: ["create"] as ["create"],
    before: null,
    after: { name: "a" },
    replacePaths: [],
    replaceReasons: [],
    sensitivePaths: [],
  };
  const error = { severity: "error" as const, summary: "Instance cannot be destroyed" };

  it("a plan with an error prints the error and no summary line", () => {
    const failed = renderPlan(plan({ resourceChanges: [create], diagnostics: [error] }), { color: false });
    expect(failed).toContain("Error: Instance cannot be destroyed");
    expect(failed).not.toContain("Plan:");
    expect(failed).not.toContain("No changes.");
    const empty = renderPlan(plan({ diagnostics: [error] }), { color: false });
    expect(empty).toContain("Error: Instance cannot be destroyed");
    expect(empty).not.toContain("No changes.");
    const refresh = renderPlan(plan({ refreshOnly: true, diagnostics: [error] }), { color: false });
    expect(refresh).not.toContain("No changes.");
    expect(refresh).not.toContain("refresh-only plan");
  });

  it("warnings alone keep the summary line", () => {
    const text = renderPlan(plan({ resourceChanges: [create], diagnostics: [{ severity: "warning", summary: "careful" }] }), { color: false });
    expect(text).toContain("Warning: careful");
    expect(text).toContain("Plan: 1 to add, 0 to change, 0 to destroy.");
  });
});

describe("Changes to Outputs", () => {
  it("shows old and new values as Terraform does; a sensitive output shows neither", () => {
    const text = renderPlan(
      plan({
        outputChanges: [
          { name: "changed", actions: ["update"], before: "old", after: "new", afterUnknown: false, sensitive: false },
          { name: "removed", actions: ["delete"], before: "old", after: undefined, afterUnknown: false, sensitive: false },
          { name: "added", actions: ["create"], before: undefined, after: 3, afterUnknown: false, sensitive: false },
          { name: "later", actions: ["update"], before: "x", after: undefined, afterUnknown: true, sensitive: false },
          { name: "secret", actions: ["update"], before: "pw-old", after: "pw-new", afterUnknown: false, sensitive: true },
          { name: "gone_secret", actions: ["delete"], before: "pw-gone", after: undefined, afterUnknown: false, sensitive: true },
          { name: "same", actions: ["no-op"], before: 1, after: 1, afterUnknown: false, sensitive: false },
        ],
      }),
      { color: false },
    );
    expect(text).toContain('  ~ changed     = "old" -> "new"');
    expect(text).toContain('  - removed     = "old" -> null');
    expect(text).toContain("  + added       = 3");
    expect(text).toContain('  ~ later       = "x" -> (known after apply)');
    expect(text).toContain("  ~ secret      = (sensitive value)");
    expect(text).toContain("  - gone_secret = (sensitive value) -> null");
    expect(text).not.toContain("same");
    expect(text).not.toContain("pw-");
    expect(text).toContain("Plan: 0 to add, 0 to change, 0 to destroy.");
  });
});
