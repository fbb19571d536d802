// Crash safety: the apply PROCESS is SIGKILLed at several points of a multi-resource apply (the
// documented test hooks TAKOFORM_TEST_CRASH_AFTER_INTENTS / _WRITES kill it right after the N-th
// intent is durable, before its host request; or right after the N-th host write returned, before
// its result is recorded). The next apply — at once, with no --force-unlock and no waiting for the
// 60 s lease — takes the dead run's lock over (its process is gone from this host), says so,
// resolves the interrupted write, and finishes. Afterwards the host's whole store and state agree
// exactly: no duplicate, lost or orphaned host resource. All of it with state in the local file
// and, unchanged, with state in PostgreSQL (the stack names it with a pg backend).

import { afterEach, describe, expect, it } from "vitest";
import type { StateReader } from "../../src/state/index.ts";
import { describePg, dropSchemasAfterAll } from "../support/pg.ts";
import { pgTarget, sqliteTarget, type Place, type StoreTarget } from "../state/conformance/target.ts";
import { runCli, Scratch, startHost, type TestHost } from "./harness.ts";

const KV = "takoform_edge_kv_namespace";
const Q = "takoform_at_least_once_queue";

function stack(prefix: string, place: Place) {
  const backend = place.backendBlock();
  return {
    ...(backend !== undefined ? { terraform: { backend } } : {}),
    resource: {
      [KV]: {
        a: { name: `${prefix}-a`, lifecycle: { create_before_destroy: true } },
        b: { name: `\${${KV}.a.name}-b` },
        c: { name: "crash-c" },
      },
      [Q]: { q: { name: "crash-q", message_retention_seconds: 3600, depends_on: [`${KV}.b`] } },
    },
  };
}

async function agree(host: TestHost, place: Place): Promise<void> {
  const reader: StateReader = await place.openReader();
  try {
    const records = await reader.list();
    expect(await reader.inFlight()).toEqual([]);
    expect(records.filter((r) => r.address.includes("#deposed"))).toEqual([]);
    for (const record of records) {
      const stored = host.host.controls.resource({
        tenant: "dev",
        space: record.space!,
        apiVersion: record.ref!.apiVersion,
        kind: record.ref!.kind,
        name: record.name!,
      });
      expect(stored?.uid, `${record.address} (${record.name}) exists on the host with the uid state records`).toBe(record.uid);
    }
    expect(host.host.controls.resourceCount()).toBe(records.length);
    expect(records.map((r) => r.address).sort()).toEqual([`${Q}.q`, `${KV}.a`, `${KV}.b`, `${KV}.c`]);
  } finally {
    await reader.close();
  }
}

function crashSafety(target: StoreTarget): void {
  let host: TestHost | undefined;
  let scratch: Scratch | undefined;
  afterEach(async () => {
    await host?.close();
    scratch?.cleanup();
  });

  async function crashThenRecover(hook: string, n: number, phases: string[]): Promise<{ killed: boolean }> {
    host = await startHost();
    scratch = new Scratch();
    const place = target.place(scratch.dir);
    // The default 60 s lease: a killed run's lease is still live when the next run starts.
    const env = { TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: "takoform-dev-token" };
    let killed = false;
    for (let i = 0; i < phases.length; i++) {
      scratch.write("stack.json", JSON.stringify(stack(phases[i]!, place)));
      const last = i === phases.length - 1;
      const crashed = await runCli(["apply", "--config", "stack.json", "--auto-approve"], {
        cwd: scratch.dir,
        env: { ...env, ...(last ? { [hook]: String(n) } : {}) },
      });
      if (last) {
        killed = crashed.signal === "SIGKILL";
        if (!killed) expect(crashed.code, crashed.stderr).toBe(0);
      } else {
        expect(crashed.code, crashed.stderr).toBe(0);
      }
    }
    let interrupted = 0;
    if (killed) {
      const reader = await place.openReader();
      interrupted = (await reader.inFlight()).length;
      await reader.close();
      // The hook fires once an intent is durable and before its result is, so at least that write
      // is in flight (independent steps run in parallel, so another may be too).
      expect(interrupted).toBeGreaterThanOrEqual(1);
      const reader2 = await place.openReader();
      const lease = await reader2.lockInfo();
      await reader2.close();
      expect(lease!.expiresAt).toBeGreaterThan(Date.now()); // live: only the holder being gone lets the next run in
    }
    const recovered = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: scratch.dir, env });
    expect(recovered.code, `${recovered.stdout}\n${recovered.stderr}`).toBe(0);
    if (killed) {
      expect(recovered.stderr).toContain("Warning: Took over the state lock of a run that is no longer running");
      expect(recovered.stderr).toMatch(/process \d+ no longer exists on this host/);
      expect(recovered.stdout).toContain("write(s) an interrupted apply had left unfinished were resolved first");
    }
    await agree(host, place);
    const again = await runCli(["plan", "--config", "stack.json", "--detailed-exitcode"], { cwd: scratch.dir, env });
    expect(again.code, again.stdout).toBe(0);
    return { killed };
  }

  for (const n of [1, 2, 3, 4]) {
    it(`creating: killed after intent ${n} (before its host request)`, async () => {
      const { killed } = await crashThenRecover("TAKOFORM_TEST_CRASH_AFTER_INTENTS", n, ["crash"]);
      expect(killed).toBe(true);
    }, 60_000);
  }

  for (const n of [1, 3]) {
    it(`creating: killed after host write ${n} (before its result is recorded)`, async () => {
      const { killed } = await crashThenRecover("TAKOFORM_TEST_CRASH_AFTER_WRITES", n, ["crash"]);
      expect(killed).toBe(true);
    }, 60_000);
  }

  // The second phase renames a (create-before-destroy) and so re-creates b: create a′, then b is
  // replaced, then the old a is deleted — crashes land between those writes and the deposing.
  for (const [hook, n] of [
    ["TAKOFORM_TEST_CRASH_AFTER_INTENTS", 1],
    ["TAKOFORM_TEST_CRASH_AFTER_INTENTS", 3],
    ["TAKOFORM_TEST_CRASH_AFTER_WRITES", 1],
    ["TAKOFORM_TEST_CRASH_AFTER_WRITES", 2],
    ["TAKOFORM_TEST_CRASH_AFTER_WRITES", 4],
  ] as const) {
    it(`replacing: killed after ${hook === "TAKOFORM_TEST_CRASH_AFTER_INTENTS" ? "intent" : "host write"} ${n}`, async () => {
      const { killed } = await crashThenRecover(hook, n, ["one", "two"]);
      expect(killed).toBe(true);
    }, 90_000);
  }
}

describe("crash safety of apply: state in the local file", () => crashSafety(sqliteTarget));

describePg("crash safety of apply: state in PostgreSQL", () => {
  dropSchemasAfterAll();
  crashSafety(pgTarget);
});
