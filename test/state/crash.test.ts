// Crash safety with real processes: a child writes intents and results as fast as it can and is
// SIGKILLed at random instants, several times over one state file. After every kill the file
// must open cleanly, pass SQLite's integrity check, hold every write the child reported as
// committed (and at most the one it was reporting when it died), and list as in flight exactly
// the intents the model says were recorded without a result. In some rounds the test stops
// reading the child's reports, so the child is killed while it waits for its reader.

import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { openLocalState, openLocalStateReadOnly, type ResourceRecord } from "../../src/state/index.ts";
import { modelAfter, type ModelRecord } from "./fixtures/crash-model.ts";
import { sleep, spawnFixture } from "./fixtures/child.ts";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "takoform-crash-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function view(record: ResourceRecord): ModelRecord {
  return {
    status: record.status,
    attributes: record.attributes,
    intent: record.intent ? { stepId: record.intent.stepId, previousStatus: record.intent.previousStatus } : null,
  };
}

describe("state survives SIGKILL at random points", () => {
  it("keeps every committed write and exactly the unsettled intents across 6 kills", async () => {
    const path = join(dir, "state.db");
    let seeded = 12345;
    const random = () => (seeded = (seeded * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let previousSerial = 0;

    for (let round = 0; round < 6; round++) {
      const child = spawnFixture("crash-writer.ts", [path]);
      await child.waitForLine((line) => /^\d+$/.test(line));
      // Every third round the test stops reading the child's reports for a while, as a test
      // process starved of CPU does: the child must wait for its reader, not die of it.
      const stalled = round % 3 === 2;
      if (stalled) child.process.stdout!.pause();
      await sleep((stalled ? 400 : 20) + Math.floor(random() * 200));
      child.process.kill("SIGKILL");
      if (stalled) child.process.stdout!.resume();
      const exit = await child.exited;
      expect(exit.signal, `the writer exited by itself (code ${exit.code}): ${child.stderr()}`).toBe("SIGKILL");

      const start = Number(child.lines.find((l) => l.startsWith("start "))!.slice(6));
      expect(start).toBe(previousSerial); // the child resumed exactly where the last state ended
      const reported = child.lines.filter((l) => /^\d+$/.test(l)).map(Number);
      expect(reported.length).toBeGreaterThan(0);
      const lastReported = reported[reported.length - 1]!;

      // The file is a consistent SQLite database.
      const raw = new Database(path, { readonly: true });
      expect(raw.pragma("integrity_check", { simple: true })).toBe("ok");
      raw.close();

      const reader = openLocalStateReadOnly(path);
      const serial = await reader.serial();
      // Every reported operation committed; at most one more (committed but not yet printed).
      expect(serial === lastReported + 1 || serial === lastReported + 2).toBe(true);

      const expected = modelAfter(serial);
      const records = await reader.list();
      expect(Object.fromEntries(records.map((r) => [r.address, view(r)]))).toEqual(Object.fromEntries(expected));

      const inFlight = (await reader.inFlight()).map((r) => r.address);
      const expectedInFlight = [...expected]
        .filter(([, r]) => r.intent !== null)
        .map(([a]) => a)
        .sort();
      expect(inFlight).toEqual(expectedInFlight);
      expect(inFlight.length).toBeGreaterThan(0);
      await reader.close();
      previousSerial = serial;
    }

    // A new run takes over the dead writer's lease and sees the same unsettled intents.
    const store = openLocalState(path);
    await store.acquire({ holder: "recovery", leaseMs: 1_000, takeover: true, wait: { timeoutMs: 5_000 } });
    const pending = await store.inFlight();
    expect(pending.every((r) => r.intent !== null && r.intent.write.idempotencyKey === `key-${r.intent.stepId.slice(5)}`)).toBe(true);
    for (const record of pending) await store.settle(record.address, null);
    expect(await store.inFlight()).toEqual([]);
    await store.release();
    await store.close();
  }, 60_000);
});
