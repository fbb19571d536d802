// The embedded host keeps host.db to itself (exclusive locking mode, src/host/store/db.ts): the WAL
// index lives in its memory, not in a host.db-shm file, and no other connection opens the database
// while the host runs; once it is closed the database is anyone's to read, as the tests read it.

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { LocalHost } from "../../src/host/index.ts";
import { BUNDLED } from "./family.ts";

describe("the host's database", () => {
  const dir = mkdtempSync(join(tmpdir(), "takoform-store-locking-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is held exclusively while the host runs, with no shared-memory file, and readable after close", async () => {
    const data = join(dir, "data");
    const host = await LocalHost.open({ ...BUNDLED.options, data });
    try {
      expect(existsSync(join(data, "host.db"))).toBe(true);
      expect(existsSync(join(data, "host.db-shm"))).toBe(false);
      const other = new Database(join(data, "host.db"), { readonly: true, timeout: 0 });
      try {
        expect(() => other.prepare("SELECT count(*) FROM resources").get()).toThrow(/locked|busy/i);
      } finally {
        other.close();
      }
    } finally {
      await host.close();
    }
    const after = new Database(join(data, "host.db"), { readonly: true });
    try {
      expect(after.prepare("SELECT count(*) AS n FROM meta").get()).toMatchObject({ n: expect.any(Number) });
    } finally {
      after.close();
    }
  });
});
