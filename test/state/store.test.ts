// Record-level behaviour of the local state store: what a record holds, the intent lifecycle,
// serial and lineage, refusals, the read-only open, and the pull document.

import { describe, it, expect, beforeEach, afterEach } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { UNKNOWN, type KnownValue } from "../../src/core/values.ts";
import type { WriteIntent } from "../../src/provider/types.ts";
import {
  deposedAddress,
  isSealedSensitive,
  openLocalState,
  openLocalStateReadOnly,
  parseStateAddress,
  sealedMatches,
  StateConflictError,
  StateFormatError,
  StateNotFoundError,
  StateWriteError,
  type SealedSensitive,
  type StateStore,
} from "../../src/state/index.ts";

const REF = { apiVersion: "edge.takoform-cdk.dev/v1alpha1", kind: "WorkerVersion", definitionVersion: "0.1.0", schemaDigest: `sha256:${"d".repeat(64)}` };

function envelope(name: string, extra: Record<string, KnownValue> = {}): Record<string, KnownValue> {
  return {
    name,
    space: "default",
    uid: `uid-${name}`,
    generation: "3",
    revision: "7",
    form_api_version: REF.apiVersion,
    form_kind: REF.kind,
    form_definition_version: REF.definitionVersion,
    form_schema_digest: REF.schemaDigest,
    form_package_digest: `sha256:${"e".repeat(64)}`,
    conditions: [{ type: "Ready", status: "True", reason: "Available" }],
    ready: true,
    outputs_json: '{"url":"https://app.example"}',
    pending_operation_id: null,
    relation_drift_reason: null,
    ...extra,
  };
}

function writeIntent(name: string, operation: WriteIntent["operation"] = "create"): WriteIntent {
  return {
    operation,
    type: "takoform_worker_version",
    space: "default",
    name,
    ref: REF,
    uid: operation === "create" ? "" : `uid-${name}`,
    idempotencyKey: `idem-${name}-${operation}`,
    request: {
      method: "PUT",
      path: `/apis/forms.takoform.com/v1alpha3/spaces/default/resources/${name}`,
      headers: { "Idempotency-Key": `idem-${name}`, Authorization: "Bearer super-secret-token", "content-type": "application/json" },
      body: '{"spec":{}}',
    },
  };
}

let dir: string;
let store: StateStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "takoform-state-"));
  store = openLocalState(join(dir, ".takoform", "state.db"));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("records", () => {
  it("derives the identity columns from the envelope and round-trips everything else", async () => {
    await store.putResource("takoform_worker_version.app", {
      type: "takoform_worker_version",
      status: "ready",
      attributes: envelope("app-v1", { relation_drift_reason: "ExternalChange", pending_operation_id: "op-1" }),
      dependencies: ["takoform_worker_bundle.app", "takoform_module_worker.app", "takoform_worker_bundle.app"],
      contributions: [{ from: "takoform_module_worker.peer", fields: ["service_bindings", "kv_bindings", "service_bindings"] }],
    });
    const record = (await store.get("takoform_worker_version.app"))!;
    expect(record).toMatchObject({
      address: "takoform_worker_version.app",
      type: "takoform_worker_version",
      status: "ready",
      ref: REF,
      packageDigest: `sha256:${"e".repeat(64)}`,
      space: "default",
      name: "app-v1",
      uid: "uid-app-v1",
      generation: "3",
      revision: "7",
      pendingOperationId: "op-1",
      relationDriftReason: "ExternalChange",
      outputs: { url: "https://app.example" },
      conditions: [{ type: "Ready", status: "True", reason: "Available" }],
      dependencies: ["takoform_module_worker.app", "takoform_worker_bundle.app"],
      contributions: [{ from: "takoform_module_worker.peer", fields: ["kv_bindings", "service_bindings"] }],
      intent: null,
    });
    expect(record.attributes.ready).toBe(true);
    expect(record.serial).toBe(await store.serial());
  });

  it("records no ref unless all four FormRef members are present", async () => {
    const attributes = envelope("half");
    delete attributes.form_schema_digest;
    await store.putResource("takoform_x.half", { type: "takoform_x", status: "ready", attributes });
    expect((await store.get("takoform_x.half"))!.ref).toBeNull();
  });

  it("lists in address order and looks up single records", async () => {
    for (const name of ["c", "a", "b"]) await store.putResource(`takoform_x.${name}`, { type: "takoform_x", status: "ready", attributes: { name } });
    expect((await store.list()).map((r) => r.address)).toEqual(["takoform_x.a", "takoform_x.b", "takoform_x.c"]);
    expect(await store.get("takoform_x.zzz")).toBeUndefined();
  });

  it("refuses unknown values, naming the attribute path", async () => {
    const attributes = { name: "x", versions: [{ weight: 1 }, { weight: UNKNOWN }] } as unknown as Record<string, KnownValue>;
    const error = await store.putResource("takoform_x.u", { type: "takoform_x", status: "ready", attributes }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateWriteError);
    expect((error as Error).message).toContain("versions[1].weight is unknown");
    expect(await store.get("takoform_x.u")).toBeUndefined();
    await expect(store.putResource("takoform_x.n", { type: "takoform_x", status: "ready", attributes: { n: Number.NaN } })).rejects.toThrow(/JSON cannot hold/);
  });

  it("refuses in-flight statuses outside setIntent", async () => {
    await expect(store.putResource("takoform_x.s", { type: "takoform_x", status: "creating" as never, attributes: {} })).rejects.toBeInstanceOf(
      StateWriteError,
    );
  });

  it("keeps deposed objects under their own address", () => {
    const deposed = deposedAddress("takoform_module_worker.api", "uid-1");
    expect(parseStateAddress(deposed)).toEqual({ address: "takoform_module_worker.api", deposed: "uid-1" });
    expect(parseStateAddress("takoform_module_worker.api")).toEqual({ address: "takoform_module_worker.api", deposed: null });
    expect([deposed, "takoform_module_worker.api", "takoform_module_worker.apz"].sort()[1]).toBe(deposed);
  });
});

describe("intents", () => {
  it("starts a record from a create intent, then settles it", async () => {
    await store.setIntent("takoform_worker_version.app", "creating", { stepId: "create:app", write: writeIntent("app-v1") });
    const creating = (await store.get("takoform_worker_version.app"))!;
    expect(creating).toMatchObject({
      status: "creating",
      type: "takoform_worker_version",
      ref: REF,
      space: "default",
      name: "app-v1",
      uid: null,
      attributes: {},
    });
    expect(creating.intent).toMatchObject({ stepId: "create:app", previousStatus: null });
    expect(Date.parse(creating.intent!.at)).not.toBeNaN();
    expect(creating.intent!.write.request.headers).toEqual({ "Idempotency-Key": "idem-app-v1", "content-type": "application/json" });
    expect((await store.inFlight()).map((r) => r.address)).toEqual(["takoform_worker_version.app"]);

    await store.settle("takoform_worker_version.app", { type: "takoform_worker_version", status: "ready", attributes: envelope("app-v1") });
    const ready = (await store.get("takoform_worker_version.app"))!;
    expect(ready.status).toBe("ready");
    expect(ready.intent).toBeNull();
    expect(ready.uid).toBe("uid-app-v1");
    expect(await store.inFlight()).toEqual([]);
  });

  it("keeps the prior attributes while an update is in flight and remembers the settled status", async () => {
    await store.putResource("takoform_module_worker.api", { type: "takoform_module_worker", status: "placeholder", attributes: envelope("api") });
    await store.setIntent("takoform_module_worker.api", "updating", { stepId: "settle:1", write: writeIntent("api", "update") });
    // The provider may record a second request of the same step: the original prior status stays.
    await store.setIntent("takoform_module_worker.api", "updating", { stepId: "settle:1", write: writeIntent("api", "update") });
    const updating = (await store.get("takoform_module_worker.api"))!;
    expect(updating.status).toBe("updating");
    expect(updating.intent!.previousStatus).toBe("placeholder");
    expect(updating.attributes).toEqual(envelope("api"));
    await expect(
      store.putResource("takoform_module_worker.api", { type: "takoform_module_worker", status: "ready", attributes: envelope("api") }),
    ).rejects.toThrow(/unsettled updating intent \(step settle:1\)/);
  });

  it("removes the record when a delete settles with null", async () => {
    await store.putResource("takoform_x.gone", { type: "takoform_x", status: "ready", attributes: envelope("gone") });
    await store.setIntent("takoform_x.gone", "deleting", { stepId: "delete:gone", write: writeIntent("gone", "delete") });
    await store.settle("takoform_x.gone", null);
    expect(await store.get("takoform_x.gone")).toBeUndefined();
  });

  it("refuses a non-create intent for an address with no record", async () => {
    await expect(store.setIntent("takoform_x.none", "updating", { stepId: "u", write: writeIntent("none", "update") })).rejects.toThrow(
      /only a create may start a new record/,
    );
    await expect(store.setIntent("takoform_x.none", "ready" as never, { stepId: "u", write: writeIntent("none") })).rejects.toBeInstanceOf(StateWriteError);
  });

  it("never stores credential headers", async () => {
    await store.setIntent("takoform_x.cred", "creating", { stepId: "c", write: writeIntent("cred") });
    await store.close();
    const bytes = Buffer.concat(
      [".takoform/state.db", ".takoform/state.db-wal"].map((f) => {
        try {
          return readFileSync(join(dir, f));
        } catch {
          return Buffer.alloc(0);
        }
      }),
    );
    expect(bytes.includes("super-secret-token")).toBe(false);
    expect(bytes.includes("idem-cred")).toBe(true); // the intent itself is there
    store = openLocalState(join(dir, ".takoform", "state.db"));
  });
});

describe("serial and lineage", () => {
  it("bumps the serial exactly once per data write and never for no-ops", async () => {
    expect(await store.serial()).toBe(0);
    await store.putResource("takoform_x.a", { type: "takoform_x", status: "ready", attributes: {} });
    expect(await store.serial()).toBe(1);
    await store.setIntent("takoform_x.a", "updating", { stepId: "u", write: writeIntent("a", "update") });
    await store.settle("takoform_x.a", { type: "takoform_x", status: "ready", attributes: { v: 2 } });
    expect(await store.serial()).toBe(3);
    expect(await store.removeResource("takoform_x.missing")).toBe(false);
    await store.settle("takoform_x.missing", null);
    expect(await store.serial()).toBe(3);
    expect(await store.removeResource("takoform_x.a")).toBe(true);
    await store.putOutputs({ url: { value: "https://x", sensitive: false } });
    expect(await store.serial()).toBe(5);
  });

  it("keeps the lineage for the life of the file and gives every new state its own", async () => {
    const lineage = store.lineage;
    expect(lineage).toMatch(/^[0-9a-f-]{36}$/);
    await store.close();
    store = openLocalState(join(dir, ".takoform", "state.db"));
    expect(store.lineage).toBe(lineage);
    const other = openLocalState(":memory:");
    expect(other.lineage).not.toBe(lineage);
    await other.close();
  });
});

describe("outputs and pull", () => {
  it("stores sensitive outputs sealed and pulls one consistent document", async () => {
    await store.putResource("takoform_x.a", { type: "takoform_x", status: "ready", attributes: envelope("a") });
    await store.putOutputs({ url: { value: "https://a", sensitive: false }, password: { value: "hunter2-secret", sensitive: true } });
    const outputs = await store.outputs();
    expect(outputs.url).toEqual({ value: "https://a", sensitive: false });
    expect(outputs.password!.sensitive).toBe(true);
    expect(isSealedSensitive(outputs.password!.value)).toBe(true);

    const doc = await store.pull();
    expect(doc).toMatchObject({ version: 1, lineage: store.lineage, serial: 2, outputs });
    expect(doc.resources.map((r) => r.address)).toEqual(["takoform_x.a"]);
    expect(JSON.stringify(doc)).not.toContain("hunter2-secret");

    await store.putOutputs({ url: { value: "https://b", sensitive: false } });
    expect(Object.keys(await store.outputs())).toEqual(["url"]);
  });
});

describe("outputs and pull: a sensitive output handed back sealed", () => {
  it("stores a previous seal as it is, so the secret's seal survives an apply that could not recompute it", async () => {
    await store.putOutputs({ password: { value: "hunter2-secret", sensitive: true } });
    const first = (await store.outputs()).password!;
    expect(isSealedSensitive(first.value)).toBe(true);

    // What the engine does after a failed step: pass the stored (sealed) value back.
    await store.putOutputs({ password: { value: first.value, sensitive: true } });
    const second = (await store.outputs()).password!;
    expect(second).toEqual(first);
    expect(sealedMatches(second.value as SealedSensitive, "hunter2-secret", store.lineage)).toBe(true);
  });
});

describe("opening files", () => {
  it("reads without locking, and sees what the writer committed", async () => {
    const path = join(dir, ".takoform", "state.db");
    await store.acquire({ holder: "writer", leaseMs: 60_000 });
    await store.putResource("takoform_x.a", { type: "takoform_x", status: "ready", attributes: { name: "a" } });
    const reader = openLocalStateReadOnly(path);
    expect(reader.lineage).toBe(store.lineage);
    expect((await reader.list()).map((r) => r.address)).toEqual(["takoform_x.a"]);
    expect((await reader.lockInfo())?.holder).toBe("writer");
    expect("putResource" in reader).toBe(false);
    await reader.close();
  });

  it("reports a missing state, a foreign SQLite file and garbage distinctly", async () => {
    expect(() => openLocalStateReadOnly(join(dir, "nope.db"))).toThrow(StateNotFoundError);
    const foreign = join(dir, "foreign.db");
    const db = new Database(foreign);
    db.exec("CREATE TABLE t (x)");
    db.close();
    expect(() => openLocalState(foreign)).toThrow(StateFormatError);
    expect(() => openLocalStateReadOnly(foreign)).toThrow(/not a takoform state/);
    const garbage = join(dir, "garbage.db");
    writeFileSync(garbage, "this is not a database at all, just some text that is long enough to matter".repeat(100));
    expect(() => openLocalState(garbage)).toThrow(StateFormatError);
  });

  it("refuses a state written by a newer layout", async () => {
    const path = join(dir, "newer.db");
    await openLocalState(path).close();
    const db = new Database(path);
    db.pragma("user_version = 99");
    db.close();
    expect(() => openLocalState(path)).toThrow(/newer takoform/);
  });
});

describe("one record per host object", () => {
  const ready = (name: string, extra: Record<string, KnownValue> = {}) => ({
    type: "takoform_worker_version",
    status: "ready" as const,
    attributes: envelope(name, extra),
  });

  it("refuses a second address for the same uid or the same space, group, kind and name, changing nothing", async () => {
    await store.putResource("takoform_worker_version.a", ready("shared"));
    const serial = await store.serial();
    // Same name (and so the same uid in this fixture), another address.
    const byName = await store.putResource("takoform_worker_version.b", ready("shared", { uid: "uid-other" })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(byName).toBeInstanceOf(StateConflictError);
    expect(byName).toMatchObject({
      address: "takoform_worker_version.b",
      holder: "takoform_worker_version.a",
      by: "name",
      object: `default/${REF.apiVersion}/${REF.kind}/shared`,
    });
    const byUid = await store.putResource("takoform_worker_version.c", ready("elsewhere", { uid: "uid-shared" })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(byUid).toMatchObject({ holder: "takoform_worker_version.a", by: "uid", object: "uid-shared" });
    expect((byUid as Error).message).toContain("one host object has one record");
    // A create intent is refused before it exists: its request would never be sent.
    await expect(store.setIntent("takoform_worker_version.d", "creating", { stepId: "create:d", write: writeIntent("shared") })).rejects.toBeInstanceOf(
      StateConflictError,
    );
    await store.setIntent("takoform_worker_version.e", "creating", { stepId: "create:e", write: writeIntent("fresh") });
    await expect(store.settle("takoform_worker_version.e", ready("fresh", { uid: "uid-shared" }))).rejects.toMatchObject({
      by: "uid",
      holder: "takoform_worker_version.a",
    });
    expect(await store.serial()).toBe(serial + 1); // only e's intent was written
    expect((await store.list()).map((r) => r.address)).toEqual(["takoform_worker_version.a", "takoform_worker_version.e"]);
  });

  it("the same name in another space, group or kind is another object; a record and its deposed copies are one resource", async () => {
    await store.putResource("takoform_worker_version.a", ready("n"));
    await store.putResource("takoform_worker_version.b", ready("n", { uid: "u-b", space: "other" }));
    await store.putResource("takoform_worker_version.c", ready("n", { uid: "u-c", form_kind: "WorkerBundle" }));
    await store.putResource("takoform_worker_version.d", ready("n", { uid: "u-d", form_api_version: "other.takoform-cdk.dev/v1alpha1" }));
    // A crash between the two writes of a depose leaves one incarnation under both addresses.
    await store.putResource(deposedAddress("takoform_worker_version.a", "k1"), ready("n"));
    // A definition version is not part of the host address: names are unique across them.
    const other = await store.putResource("takoform_worker_version.e", ready("n", { uid: "u-e", form_definition_version: "0.2.0" })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(other).toMatchObject({ holder: "takoform_worker_version.a", by: "name" });
  });
});

describe("host binding", () => {
  const binding = { origin: "https://host.example", hostId: "h-1", space: "prod", tenant: "acme", credential: null, lane: "forms.takoform.com/v1beta1" };

  it("is null until bound, then round-trips, is pulled with the state, and bumps the serial", async () => {
    expect(await store.hostBinding()).toBeNull();
    expect((await store.pull()).host).toBeNull();
    const serial = await store.serial();
    await store.bindHost(binding);
    expect(await store.serial()).toBe(serial + 1);
    const bound = (await store.hostBinding())!;
    expect(bound).toMatchObject(binding);
    expect(Date.parse(bound.boundAt)).not.toBeNaN();
    expect((await store.pull()).host).toEqual(bound);
    await store.bindHost({ ...binding, origin: "embedded", hostId: null, tenant: null, credential: "hmac-sha256:00" });
    expect(await store.hostBinding()).toMatchObject({ origin: "embedded", hostId: null, tenant: null, credential: "hmac-sha256:00" });
    const reader = openLocalStateReadOnly(join(dir, ".takoform", "state.db"));
    expect(await reader.hostBinding()).toMatchObject({ origin: "embedded" });
    await reader.close();
  });

  it("is a fenced write: refused while another run holds the lock", async () => {
    const other = openLocalState(join(dir, ".takoform", "state.db"));
    await other.acquire({ holder: "other", leaseMs: 60_000 });
    await expect(store.bindHost(binding)).rejects.toThrow(/holds no lease/);
    await other.release();
    await other.close();
  });
});

describe("a state written by layout 2 (before bindings recorded a lane)", () => {
  it("is read with lane null, upgraded in place keeping the binding, and binds a lane from then on", async () => {
    const path = join(dir, "layout2.db");
    const fresh = openLocalState(path);
    await fresh.acquire({ holder: "t", leaseMs: 1_000 });
    await fresh.bindHost({ origin: "embedded", hostId: "h", space: "default", tenant: "dev", credential: null, lane: "forms.takoform.com/v1beta1" });
    await fresh.release();
    await fresh.close();
    const db = new Database(path);
    db.exec("ALTER TABLE host_binding DROP COLUMN lane;");
    db.pragma("user_version = 2");
    db.close();

    const reader = openLocalStateReadOnly(path);
    expect(await reader.hostBinding()).toMatchObject({ origin: "embedded", hostId: "h", lane: null });
    await reader.close();
    const upgraded = openLocalState(path);
    try {
      expect(await upgraded.hostBinding()).toMatchObject({ origin: "embedded", hostId: "h", lane: null });
      await upgraded.acquire({ holder: "t", leaseMs: 1_000 });
      await upgraded.bindHost({ origin: "embedded", hostId: "h", space: "default", tenant: "dev", credential: null, lane: "forms.takoform.com/v1alpha3" });
      expect((await upgraded.hostBinding())!.lane).toBe("forms.takoform.com/v1alpha3");
      await upgraded.release();
    } finally {
      await upgraded.close();
    }
    const db3 = new Database(path, { readonly: true });
    expect(db3.pragma("user_version", { simple: true })).toBe(3);
    db3.close();
  });
});

describe("a state written by layout 1 (before host bindings)", () => {
  /** A layout-2 file turned back into exactly what layout 1 wrote. */
  async function layoutOne(path: string): Promise<void> {
    const fresh = openLocalState(path);
    await fresh.putResource("takoform_worker_version.app", { type: "takoform_worker_version", status: "ready", attributes: envelope("app") });
    await fresh.close();
    const db = new Database(path);
    db.exec("DROP TABLE host_binding; DROP INDEX resources_by_uid; DROP INDEX resources_by_object; ALTER TABLE lock DROP COLUMN pid_namespace;");
    db.pragma("user_version = 1");
    db.close();
  }

  it("is read as it is (unbound) and upgraded in place by the first read-write open, keeping its records", async () => {
    const path = join(dir, "old.db");
    await layoutOne(path);
    const reader = openLocalStateReadOnly(path);
    expect(await reader.hostBinding()).toBeNull();
    expect((await reader.list()).map((r) => r.address)).toEqual(["takoform_worker_version.app"]);
    expect(await reader.lockInfo()).toBeNull();
    await reader.close();

    const upgraded = openLocalState(path);
    try {
      expect(await upgraded.hostBinding()).toBeNull();
      expect((await upgraded.list()).map((r) => r.address)).toEqual(["takoform_worker_version.app"]);
      const lease = await upgraded.acquire({ holder: "t", leaseMs: 1_000 });
      expect(lease.pidNamespace === null || /^pid:/.test(lease.pidNamespace)).toBe(true);
      await upgraded.bindHost({ origin: "embedded", hostId: "h", space: "default", tenant: "dev", credential: null, lane: "forms.takoform.com/v1beta1" });
      await upgraded.release();
    } finally {
      await upgraded.close();
    }
    const db = new Database(path, { readonly: true });
    expect(db.pragma("user_version", { simple: true })).toBe(3);
    db.close();
  });
});
