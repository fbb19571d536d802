// What only the local SQLite store has: its file (a missing, foreign or garbage file, a newer
// layout, the layout-1 and layout-2 upgrades) and its read-only open. The state contract both stores keep is
// the conformance suite (test/state/conformance/).

import { describe, it, expect, beforeEach, afterEach } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import {
  deposedAddress,
  openLocalState,
  openLocalStateReadOnly,
  parseStateAddress,
  StateFormatError,
  StateNotFoundError,
  type StateStore,
} from "../../src/state/index.ts";
import { envelope } from "./conformance/fixtures.ts";

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

describe("addresses", () => {
  it("keeps deposed objects under their own address", () => {
    const deposed = deposedAddress("takoform_module_worker.api", "uid-1");
    expect(parseStateAddress(deposed)).toEqual({ address: "takoform_module_worker.api", deposed: "uid-1" });
    expect(parseStateAddress("takoform_module_worker.api")).toEqual({ address: "takoform_module_worker.api", deposed: null });
    expect([deposed, "takoform_module_worker.api", "takoform_module_worker.apz"].sort()[1]).toBe(deposed);
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

describe("a state written by layout 2 (before bindings recorded a lane)", () => {
  it("is read with lane null, upgraded in place keeping the binding, and binds a lane from then on", async () => {
    const path = join(dir, "layout2.db");
    const fresh = openLocalState(path);
    await fresh.acquire({ holder: "t", leaseMs: 1_000 });
    await fresh.bindHost({ origin: "embedded", hostId: "h", space: "default", tenant: "dev", credential: null, lane: "forms.takoform.com/v1beta1" });
    await fresh.release();
    await fresh.close();
    const db = new Database(path);
    db.exec("ALTER TABLE host_binding DROP COLUMN lane; ALTER TABLE info DROP COLUMN stack;");
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
    expect(db3.pragma("user_version", { simple: true })).toBe(4);
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
    db.exec(
      "DROP TABLE host_binding; DROP INDEX resources_by_uid; DROP INDEX resources_by_object; ALTER TABLE lock DROP COLUMN pid_namespace; ALTER TABLE info DROP COLUMN stack;",
    );
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
    expect(db.pragma("user_version", { simple: true })).toBe(4);
    db.close();
  });
});

describe("a state written by layout 3 (before states recorded their stack)", () => {
  it("is read with no stack, upgraded in place keeping its records and serial, and claimed by the first stack", async () => {
    const path = join(dir, "layout3.db");
    const fresh = openLocalState(path);
    await fresh.putResource("takoform_worker_version.app", { type: "takoform_worker_version", status: "ready", attributes: envelope("app") });
    const serial = await fresh.serial();
    await fresh.close();
    const db = new Database(path);
    db.exec("ALTER TABLE info DROP COLUMN stack;");
    db.pragma("user_version = 3");
    db.close();

    const reader = openLocalStateReadOnly(path);
    expect(await reader.stack()).toBeNull();
    await reader.close();
    const upgraded = openLocalState(path);
    try {
      expect(await upgraded.stack()).toBeNull();
      expect(await upgraded.claimStack("shared")).toBe("shared");
      expect(await upgraded.serial()).toBe(serial);
      expect((await upgraded.list()).map((r) => r.address)).toEqual(["takoform_worker_version.app"]);
    } finally {
      await upgraded.close();
    }
    const db4 = new Database(path, { readonly: true });
    expect(db4.pragma("user_version", { simple: true })).toBe(4);
    db4.close();
  });
});
