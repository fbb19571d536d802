// The successor name of a derived revision replaced for relation drift (src/provider/revision/
// successor.ts; docs/provider.md "Relation drift under a held revision"). The engine plans the new
// object of a replacement as a create that is told what it replaces (`replacing`); a drifted
// revision whose derived name would be the name the old one still holds gets
// `<derived>-<12 hex of SHA-256(old uid)>`. Unchanged content and unchanged targets keep a name;
// a recorded successor name is the same revision's name. Against the real local host.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Attributes } from "../../src/core/values.ts";
import { deriveRelations } from "../../src/forms/relations.ts";
import type { JsonValue } from "../../src/forms/digest.ts";
import { isNameOfRevision, successorName } from "../../src/provider/revision/successor.ts";
import type { ResourceState } from "../../src/provider/types.ts";
import { addressOf, errorsOf, show, useRig, workerStack } from "./harness.ts";

const VERSION = "takoform_worker_version";
const hex12 = (text: string): string => createHash("sha256").update(text).digest("hex").slice(0, 12);

describe("successor names (pure)", () => {
  const derived = "version-0123456789ab-efe899c74558";

  it("appends 12 hex of SHA-256 of the replaced uid, deterministically", () => {
    expect(successorName(derived, "u76l6hfrvs7wwyifkr2a5")).toBe(`${derived}-${hex12("u76l6hfrvs7wwyifkr2a5")}`);
    expect(successorName(derived, "u76l6hfrvs7wwyifkr2a5")).toBe(successorName(derived, "u76l6hfrvs7wwyifkr2a5"));
    expect(successorName(derived, "another-uid")).not.toBe(successorName(derived, "u76l6hfrvs7wwyifkr2a5"));
    expect(successorName(derived, "")).toBeUndefined();
  });

  it("refuses a name past the 63-character portable grammar", () => {
    expect(successorName("x".repeat(51), "uid")).toBeUndefined(); // 51 + 13 = 64 characters
    expect(successorName("x".repeat(50), "uid")).toBe(`${"x".repeat(50)}-${hex12("uid")}`); // 63 fit
  });

  it("a recorded name is this revision's when it is the derived name or one successor of it", () => {
    expect(isNameOfRevision(derived, derived)).toBe(true);
    expect(isNameOfRevision(derived, `${derived}-${hex12("u")}`)).toBe(true);
    expect(isNameOfRevision(derived, `${derived}-${hex12("u")}-${hex12("v")}`)).toBe(false);
    expect(isNameOfRevision(derived, `${derived}-${hex12("u").toUpperCase()}`)).toBe(false);
    expect(isNameOfRevision(derived, `${derived}-${hex12("u").slice(0, 11)}`)).toBe(false);
    expect(isNameOfRevision(derived, `${derived}x${hex12("u")}`)).toBe(false);
    expect(isNameOfRevision(derived, "version-ffffffffffff-efe899c74558")).toBe(false);
    expect(isNameOfRevision(derived, `version-ffffffffffff-efe899c74558-${hex12("u")}`)).toBe(false);
  });
});

describe("successor names through plan and apply", () => {
  const r = useRig();
  const plan = (config: Attributes, prior: ResourceState | null, replacing?: Attributes) =>
    r.provider.plan({ type: VERSION, address: `${VERSION}.x`, prior, config, ...(replacing !== undefined ? { replacing } : {}) });

  /** A worker stack whose version is then drifted: its worker is re-created out of band. */
  async function drifted(owner: string) {
    const stack = await workerStack(r, owner);
    const config: Attributes = { revision_owner: owner, worker: owner, bundle: stack.bundle.attributes["name"], handlers: ["fetch"] };
    r.host.controls.recreateOutOfBand(addressOf(stack.worker));
    const read = await r.provider.read(stack.version);
    expect(read.state!.attributes["relation_drift_reason"]).toBe("ExternalChange");
    return { stack, config, version: read.state! };
  }

  it("the replacement's new object is the successor; it is created beside the old one, and then plans no change", async () => {
    const { config, version } = await drifted("succ");
    const name = version.attributes["name"] as string;
    const first = await plan(config, version);
    expect(first.requiresReplace).toEqual([["relation_drift_reason"]]);
    expect(first.planned!["name"]).toBe(name);
    const create = await plan(config, null, version.attributes);
    expect(errorsOf(create.diagnostics), show(create.diagnostics)).toEqual([]);
    const successor = `${name}-${hex12(version.attributes["uid"] as string)}`;
    expect(create.planned!["name"]).toBe(successor);
    // The same inputs derive the same bytes (the apply re-plans exactly this).
    expect((await plan(config, null, version.attributes)).planned!["name"]).toBe(successor);

    const created = await r.provider.create(VERSION, create.planned!, r.context());
    expect(errorsOf(created.diagnostics), show(created.diagnostics)).toEqual([]);
    expect(created.state!.attributes).toMatchObject({ name: successor, relation_drift_reason: null, ready: true });
    expect(r.calls("PUT", `/WorkerVersion/${successor}`).at(-1)!.status).toBe(201);
    // Both exist side by side until the old one is deleted.
    expect((await r.provider.read(version)).state).not.toBeNull();
    const gone = await r.provider.delete(VERSION, version, r.context());
    expect(errorsOf(gone.diagnostics)).toEqual([]);

    // Unchanged content and unchanged targets: the successor keeps its name, the plan is a no-op.
    const read = await r.provider.read(created.state!);
    expect(read.diagnostics).toEqual([]);
    const again = await plan(config, read.state!);
    expect(again.requiresReplace).toEqual([]);
    expect(again.planned).toEqual(read.state!.attributes);

    // Changed content: the ordinary derived name, no successor half, a replacement through `name`.
    const changed = await plan({ ...config, handlers: ["fetch", "scheduled"] }, read.state!);
    expect(changed.requiresReplace).toContainEqual(["name"]);
    expect(changed.planned!["name"]).toMatch(new RegExp(`^version-[0-9a-f]{12}-${hex12("succ")}$`));
    expect(changed.planned!["name"]).not.toBe(name);
    const changedCreate = await plan({ ...config, handlers: ["fetch", "scheduled"] }, null, read.state!.attributes);
    expect(changedCreate.planned!["name"]).toBe(changed.planned!["name"]);
  });

  it("a second drift moves the successor aside again: the derived name plus the successor's own uid, never a longer chain", async () => {
    const { stack, config, version } = await drifted("twice");
    const name = version.attributes["name"] as string;
    const created = await r.provider.create(VERSION, (await plan(config, null, version.attributes)).planned!, r.context());
    await r.provider.delete(VERSION, version, r.context());
    r.host.controls.recreateOutOfBand(addressOf(stack.worker));
    const again = (await r.provider.read(created.state!)).state!;
    expect(again.attributes["relation_drift_reason"]).toBe("ExternalChange");
    const next = await plan(config, null, again.attributes);
    expect(next.planned!["name"]).toBe(`${name}-${hex12(again.attributes["uid"] as string)}`);
    expect(next.planned!["name"]).not.toBe(again.attributes["name"]);
  });

  it("no successor without drift, for changed content, for a pinned name, or without a recorded uid", async () => {
    const { stack, config, version } = await drifted("none");
    const name = version.attributes["name"] as string;
    // The replaced object was not drifted (e.g. replace_triggered_by): the derived name.
    expect((await plan(config, null, { ...version.attributes, relation_drift_reason: null })).planned!["name"]).toBe(name);
    expect((await plan(config, null, stack.version.attributes)).planned!["name"]).toBe(name);
    // Terraform core tells a provider nothing about the replaced object: the derived name.
    expect((await plan(config, null)).planned!["name"]).toBe(name);
    // Content changed as well: the new derived name is free already.
    const changed = await plan({ ...config, handlers: ["fetch", "queue"] }, null, version.attributes);
    expect(changed.planned!["name"]).toMatch(new RegExp(`^version-[0-9a-f]{12}-${hex12("none")}$`));
    expect(changed.planned!["name"]).not.toBe(name);
    // A pinned name is the author's.
    const pinned = await plan({ ...config, revision_owner: null, name: "none-pinned" }, null, { ...version.attributes, name: "none-pinned" });
    expect(pinned.planned!["name"]).toBe("none-pinned");
    // No uid recorded: nothing to derive the successor from.
    expect((await plan(config, null, { ...version.attributes, uid: null })).planned!["name"]).toBe(name);
  });
});

describe("which revisions can drift", () => {
  const definition = (slug: string) =>
    JSON.parse(readFileSync(new URL(`../../registry/packages/forms/edge/v1alpha1/${slug}/definition.json`, import.meta.url), "utf8")) as {
      role: string;
      desiredSchema: JsonValue;
    };

  it("of the bundled revision-role Forms, only WorkerVersion holds relations; a WorkerBundle holds none, so it never drifts", () => {
    const bundle = definition("worker-bundle");
    const version = definition("worker-version");
    expect([bundle.role, version.role]).toEqual(["revision", "revision"]);
    expect(deriveRelations(bundle.desiredSchema)).toEqual([]);
    expect(deriveRelations(version.desiredSchema).map((rel) => rel.pointer)).toEqual(expect.arrayContaining(["/worker", "/bundle", "/kvBindings/*/resource"]));
  });
});
