// Which driver failures mean the state store itself is unavailable (src/state/unavailable.ts), and
// what a call that fails that way reports: the driver errors as node-postgres, Node's sockets and
// better-sqlite3 raise them. The runs that meet them for real are test/scenario/state-store-faults.test.ts.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { StateUnavailableError } from "../../src/state/index.ts";
import { fileUnavailableReason, pgUnavailableReason, reportingUnavailable } from "../../src/state/unavailable.ts";

const withCode = (code: string, message = code): Error => Object.assign(new Error(message), { code });

describe("a store that is unavailable", () => {
  it("PostgreSQL: a refused, reset or terminated connection, a shutdown, a timeout, a full server disk; nothing else", () => {
    expect(pgUnavailableReason(withCode("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432"))).toBe("connection-lost");
    expect(pgUnavailableReason(withCode("ECONNRESET"))).toBe("connection-lost");
    expect(pgUnavailableReason(withCode("57P01", "terminating connection due to administrator command"))).toBe("connection-lost");
    expect(pgUnavailableReason(withCode("08006"))).toBe("connection-lost");
    expect(pgUnavailableReason(new Error("Connection terminated unexpectedly"))).toBe("connection-lost");
    expect(pgUnavailableReason(withCode("ETIMEDOUT"))).toBe("timeout");
    expect(pgUnavailableReason(new Error("Query read timeout"))).toBe("timeout");
    expect(pgUnavailableReason(new Error("Connection terminated due to connection timeout"))).toBe("timeout");
    expect(pgUnavailableReason(withCode("57014", "canceling statement due to statement timeout"))).toBe("timeout");
    expect(pgUnavailableReason(withCode("53100"))).toBe("disk-full");
    // A statement's own failure is not the server being unavailable.
    expect(pgUnavailableReason(withCode("23505", "duplicate key value"))).toBeUndefined();
    expect(pgUnavailableReason(withCode("40001"))).toBeUndefined();
    expect(pgUnavailableReason(new Error("something else"))).toBeUndefined();
  });

  it("the local file: SQLITE_FULL and ENOSPC; an I/O error only when its filesystem has no room", () => {
    const dir = mkdtempSync(join(tmpdir(), "takoform-unavailable-"));
    try {
      expect(fileUnavailableReason(withCode("SQLITE_FULL", "database or disk is full"), dir)).toBe("disk-full");
      expect(fileUnavailableReason(withCode("ENOSPC"), dir)).toBe("disk-full");
      // This directory has room: an I/O error here is not a full disk, nor is damage ever.
      expect(fileUnavailableReason(withCode("SQLITE_IOERR_WRITE", "disk I/O error"), dir)).toBeUndefined();
      expect(fileUnavailableReason(withCode("SQLITE_IOERR_SHORT_READ"), dir)).toBeUndefined();
      expect(fileUnavailableReason(withCode("SQLITE_BUSY"), dir)).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it("a call that fails so names its method, its address, the store and the cause; other failures pass through unchanged", async () => {
    const target = {
      settle: async (_address: string) => {
        throw withCode("SQLITE_FULL", "database or disk is full");
      },
      renew: () => {
        throw withCode("SQLITE_FULL", "database or disk is full");
      },
      list: async () => {
        throw withCode("SQLITE_CONSTRAINT", "constraint failed");
      },
    };
    const store = reportingUnavailable(target, {
      store: "the state file /p/.takoform/state.db",
      location: "/p/.takoform",
      reason: (error) => fileUnavailableReason(error, "/"),
      text: (error) => (error as Error).message,
    });
    const settled = await store.settle("takoform_x.a").catch((error: unknown) => error);
    expect(settled).toBeInstanceOf(StateUnavailableError);
    const unavailable = settled as StateUnavailableError;
    expect(unavailable.call).toEqual({ method: "settle", address: "takoform_x.a" });
    expect(unavailable.reason).toBe("disk-full");
    expect(unavailable.headline).toBe("The disk holding the state file /p/.takoform/state.db is full");
    expect(unavailable.underlying).toBe("database or disk is full");
    expect(() => store.renew()).toThrow(StateUnavailableError);
    await expect(store.list()).rejects.toThrow("constraint failed");
    await expect(store.list()).rejects.not.toBeInstanceOf(StateUnavailableError);
  });
});
