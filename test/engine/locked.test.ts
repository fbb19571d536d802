// The state-locked diagnostic's repair fits how the run asked for the lock: it does not suggest
// --lock-timeout to a run that already waited with it.

import { describe, expect, it } from "vitest";
import { lockedDiagnostic } from "../../src/engine/apply/session.ts";
import { runApply } from "../../src/engine/run.ts";
import { StateLockedError } from "../../src/state/errors.ts";
import type { LockInfo } from "../../src/state/types.ts";
import { withScratch } from "../scenario/harness.ts";

const lock: LockInfo = {
  holder: "takoform apply (pid 1 on h)",
  pid: 1,
  hostname: "h",
  pidNamespace: null,
  acquiredAt: 0,
  renewedAt: 0,
  expiresAt: 60_000,
  token: 3,
};

describe("lockedDiagnostic", () => {
  it("without --lock-timeout suggests waiting with it", () => {
    const d = lockedDiagnostic(new StateLockedError(lock, false, false, "the state is locked by another run"));
    expect(d.repair).toContain("retry with --lock-timeout DURATION");
  });

  it("after waiting with --lock-timeout suggests a longer one, or --force-unlock once the holder is gone", () => {
    const d = lockedDiagnostic(new StateLockedError(lock, false, false, "gave up after waiting 1500 ms"), { timeoutMs: 1500 });
    expect(d.repair).not.toContain("retry with --lock-timeout DURATION");
    expect(d.repair).toContain("waited 1500ms (--lock-timeout)");
    expect(d.repair).toContain("a longer --lock-timeout");
    expect(d.repair).toContain("--force-unlock");
    expect(lockedDiagnostic(new StateLockedError(lock, false, false, "x"), { timeoutMs: 30_000 }).repair).toContain("waited 30s");
  });

  it("with --force-unlock on a live lock says it only takes over a stale one", () => {
    const d = lockedDiagnostic(new StateLockedError(lock, false, false, "refusing to take over"), { forceUnlock: true });
    expect(d.repair).toContain("only a stale lock");
  });

  it("a stale lock still points at --force-unlock", () => {
    expect(lockedDiagnostic(new StateLockedError(lock, true, true, "expired"), { timeoutMs: 5000 }).repair).toContain(
      "take the stale lock over with --force-unlock",
    );
  });

  it("runApply words it from its lock options", () =>
    withScratch(async (local, holder) => {
      await holder.acquire({ holder: "other run", leaseMs: 60_000 });
      const store = local.state();
      try {
        const run = await runApply({} as never, store, { lock: { holder: "t", timeoutMs: 50 } });
        expect(run.status).toBe("locked");
        expect(run.diagnostics[0]!.repair).toContain("waited 50ms (--lock-timeout)");
      } finally {
        await store.close();
        await holder.release();
      }
    }));
});
