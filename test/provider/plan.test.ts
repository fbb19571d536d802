// plan(): the framework semantics the engine relies on and the ModifyPlan hooks (reference
// §3.4, §3.5, §4.5, §4.6), against the real local host (plans only read support profiles).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isUnknown, UNKNOWN, type Attributes } from "../../src/core/values.ts";
import { providerCode } from "../../src/provider/diagnostics/codes.ts";
import type { ResourceState } from "../../src/provider/types.ts";
import { bundleConfig, errorsOf, moduleSource, mustCreate, rig, scratch, workerStack, type Rig, type WorkerStack } from "./harness.ts";

const VERSION = "takoform_worker_version";

describe("plan", () => {
  let r: Rig;
  let stack: WorkerStack;
  beforeAll(async () => {
    r = await rig();
    stack = await workerStack(r);
  });
  afterAll(async () => {
    await r.close();
  });
  const plan = (type: string, config: Attributes, prior: ResourceState | null = null) => r.provider.plan({ type, address: `${type}.x`, prior, config });
  const versionConfig = (extra: Attributes = {}): Attributes => ({
    revision_owner: "counter",
    worker: "counter",
    bundle: stack.bundle.attributes["name"],
    handlers: ["fetch"],
    ...extra,
  });

  it("an unchanged configuration plans prior unchanged (a no-op); plans never mutate", async () => {
    const mutationsBefore = r.mutations().length;
    const out = await plan(VERSION, versionConfig(), stack.version);
    expect(out.planned).toEqual(stack.version.attributes);
    expect(out.requiresReplace).toEqual([]);
    expect(r.mutations().length).toBe(mutationsBefore);
  });

  it("a create plans config, static defaults, the default space and the create ref; computed values unknown", async () => {
    const out = await plan("takoform_at_least_once_queue", { name: "q", message_retention_seconds: 600 });
    expect(out.planned).toMatchObject({
      name: "q",
      space: "default",
      delivery_delay_seconds: 0,
      form_kind: "AtLeastOnceQueue",
      form_definition_version: "0.1.0",
      create_timeout: null,
    });
    for (const a of ["uid", "generation", "revision", "conditions", "ready", "outputs_json", "pending_operation_id", "relation_drift_reason"])
      expect(isUnknown(out.planned![a]), a).toBe(true);
  });

  it("an in-place change keeps useStateForUnknown values and marks the other computed values unknown", async () => {
    const q = await mustCreate(r, "takoform_at_least_once_queue", { name: "inplace", message_retention_seconds: 600 });
    const out = await plan("takoform_at_least_once_queue", { name: "inplace", message_retention_seconds: 900, delivery_delay_seconds: 5 }, q);
    expect(out.requiresReplace).toEqual([]);
    expect(out.planned).toMatchObject({
      uid: q.attributes["uid"],
      space: "default",
      form_schema_digest: q.attributes["form_schema_digest"],
      message_retention_seconds: 900,
      delivery_delay_seconds: 5,
    });
    expect(isUnknown(out.planned!["generation"])).toBe(true);
    // Leaving a defaulted field out plans its default, which reverts an out-of-band value.
    const drifted = { ...q, attributes: { ...q.attributes, delivery_delay_seconds: 30 } };
    const back = await plan("takoform_at_least_once_queue", { name: "inplace", message_retention_seconds: 600 }, drifted);
    expect(back.planned!["delivery_delay_seconds"]).toBe(0);
  });

  it("a changed forceNew attribute requires replacement; an unknown planned value counts as a change", async () => {
    const out = await plan(VERSION, versionConfig({ handlers: ["fetch", "scheduled"] }), stack.version);
    expect(out.requiresReplace).toEqual(expect.arrayContaining([["handlers"], ["name"]]));
    const unknown = await plan(VERSION, versionConfig({ handlers: UNKNOWN }), stack.version);
    expect(unknown.requiresReplace).toContainEqual(["handlers"]);
    // Unresolved content on a replacement leaves the derived name as it was.
    expect(unknown.planned!["name"]).toBe(stack.version.attributes["name"]);
  });

  describe("revision names (§3.4)", () => {
    it("derives the name from content and owner on create; a chained version resolves at plan", async () => {
      const out = await plan(VERSION, versionConfig());
      expect(out.planned!["name"]).toBe(stack.version.attributes["name"]);
      expect(out.planned!["name"]).toMatch(/^version-[0-9a-f]{12}-efe899c74558$/);
      const dir = scratch({ "index.js": moduleSource(7) });
      const bundle = await plan("takoform_worker_bundle", bundleConfig(dir));
      expect(bundle.planned!["name"]).toMatch(/^bundle-[0-9a-f]{12}-efe899c74558$/);
      const chained = await plan(VERSION, versionConfig({ bundle: bundle.planned!["name"] }));
      expect(chained.planned!["name"]).toMatch(/^version-/);
    });

    it("unknown content or owner leaves the name unknown on create", async () => {
      expect(isUnknown((await plan(VERSION, versionConfig({ bundle: UNKNOWN }))).planned!["name"])).toBe(true);
      expect(isUnknown((await plan(VERSION, versionConfig({ revision_owner: UNKNOWN }))).planned!["name"])).toBe(true);
    });

    it("revision-owner-missing and revision-owner-ignored (an unknown name counts as pinned)", async () => {
      const missing = await plan(VERSION, versionConfig({ revision_owner: null }));
      expect(errorsOf(missing.diagnostics)[0]).toMatchObject({
        summary: "Deriving this WorkerVersion name needs to know whose revision it is.",
        code: providerCode("revision-owner-missing"),
        pointer: "/metadata/name",
      });
      expect(errorsOf(missing.diagnostics)[0]!.repair).toContain("revision_owner");
      for (const name of ["pinned-version", UNKNOWN]) {
        const ignored = await plan(VERSION, versionConfig({ name }));
        expect(errorsOf(ignored.diagnostics)[0]).toMatchObject({
          summary: "A pinned WorkerVersion name leaves `revision_owner` with nothing to decide.",
          code: providerCode("revision-owner-ignored"),
          pointer: "/metadata/name",
        });
      }
      const pinned = await plan(VERSION, versionConfig({ name: "pinned-version", revision_owner: null }));
      expect(errorsOf(pinned.diagnostics)).toEqual([]);
      expect(pinned.planned!["name"]).toBe("pinned-version");
    });

    it("a changed derived name forces a replacement through `name`", async () => {
      const moved = await plan(VERSION, versionConfig({ revision_owner: "counter-peer" }), stack.version);
      expect(moved.requiresReplace).toEqual(expect.arrayContaining([["revision_owner"], ["name"]]));
      expect(moved.planned!["name"]).toMatch(/-e7044b4d8519$/);
    });
  });

  describe("same-name safety (§3.5)", () => {
    it("refuses a replacement under the recorded name, naming both refusals, with zero mutations", async () => {
      const pinned = await mustCreate(r, VERSION, { name: "pinned-version", worker: "counter", bundle: stack.bundle.attributes["name"], handlers: ["fetch"] });
      const mutations = r.mutations().length;
      const out = await plan(
        VERSION,
        { name: "pinned-version", worker: "counter", bundle: stack.bundle.attributes["name"], handlers: ["fetch", "scheduled"] },
        pinned,
      );
      const [d] = errorsOf(out.diagnostics);
      expect(d).toMatchObject({
        summary: "This immutable revision cannot be safely replaced under the same host name.",
        repair: "Use a new revision name or the official worker-app module.",
        code: "takoform.provider/immutable-revision-same-name",
        pointer: "/metadata/name",
        name: "pinned-version",
      });
      expect(d!.detail).toContain("dependency_in_use");
      expect(d!.detail).toContain("invalid_argument");
      expect(d!.ref?.kind).toBe("WorkerVersion");
      expect(r.mutations().length).toBe(mutations);
    });

    it("exempts the relation-drift recovery replacement", async () => {
      const pinned = await mustCreate(r, VERSION, { name: "pinned-drift", worker: "counter", bundle: stack.bundle.attributes["name"], handlers: ["fetch"] });
      const drifted = { ...pinned, attributes: { ...pinned.attributes, relation_drift_reason: "ExternalChange" } };
      const out = await plan(VERSION, { name: "pinned-drift", worker: "counter", bundle: stack.bundle.attributes["name"], handlers: ["fetch"] }, drifted);
      expect(errorsOf(out.diagnostics)).toEqual([]);
      expect(out.requiresReplace).toEqual([["relation_drift_reason"]]);
      expect(out.planned!["relation_drift_reason"]).toBeNull();
      expect(out.planned!["name"]).toBe("pinned-drift");
    });
  });

  describe("name_prefix", () => {
    it("a replacement's new object (planned as a create) gets a new generated name", async () => {
      const q = await mustCreate(r, "takoform_at_least_once_queue", { name_prefix: "tick-", message_retention_seconds: 600 });
      const replaced = await plan("takoform_at_least_once_queue", { name_prefix: "tock-", message_retention_seconds: 600 }, q);
      expect(replaced.requiresReplace).toEqual([["name_prefix"]]);
      const created = await plan("takoform_at_least_once_queue", { name_prefix: "tock-", message_retention_seconds: 600 });
      expect(isUnknown(created.planned!["name"])).toBe(true);
      const kept = await plan("takoform_at_least_once_queue", { name_prefix: "tick-", message_retention_seconds: 700 }, q);
      expect(kept.requiresReplace).toEqual([]);
      expect(kept.planned!["name"]).toBe(q.attributes["name"]);
    });
  });

  it("a destroy plans null; an unknown type is a diagnostic", async () => {
    expect(await plan(VERSION, null as unknown as Attributes, stack.version)).toEqual({ planned: null, requiresReplace: [], diagnostics: [] });
    const out = await r.provider.plan({ type: "takoform_nope", address: "x", prior: null, config: {} });
    expect(out.diagnostics[0]!.summary).toBe("Unknown resource type takoform_nope");
  });
});
