// The state store at 10,000 records: each written as intent + result and re-read, then list() of
// all of them, checked for what they return. The CPU and wall time are printed, not asserted (the
// bench measures time; about 1.3 s and 120–150 ms of CPU on the 2-core build machine). A per-write
// cost that grows with the state (a whole-state rewrite, a scan per write) is quadratic at this
// size, takes minutes and runs into the test's timeout. Slow tier (vitest.config.ts).

import { describe, it, expect } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KnownValue } from "../../src/core/values.ts";
import type { WriteIntent } from "../../src/provider/types.ts";
import { openLocalState } from "../../src/state/index.ts";

const N = 10_000;
const REF = { apiVersion: "edge.takoform-cdk.dev/v1alpha1", kind: "ModuleWorker", definitionVersion: "0.1.0", schemaDigest: `sha256:${"a".repeat(64)}` };

function attributes(i: number): Record<string, KnownValue> {
  return {
    name: `worker-${i}`,
    space: "default",
    uid: `0b9f6c4e-${String(i).padStart(8, "0")}`,
    generation: "1",
    revision: "1",
    form_api_version: REF.apiVersion,
    form_kind: REF.kind,
    form_definition_version: REF.definitionVersion,
    form_schema_digest: REF.schemaDigest,
    form_package_digest: `sha256:${"b".repeat(64)}`,
    conditions: [
      {
        type: "Ready",
        status: "True",
        reason: "Available",
        host_reason: null,
        message: null,
        observed_generation: "1",
        last_transition_time: "2026-01-01T00:00:00Z",
      },
    ],
    ready: true,
    outputs_json: `{"url":"https://worker-${i}.example"}`,
    main_module: "index.js",
    compatibility_date: "2025-06-01",
    vars_json: '{"MODE":"production","REGION":"eu"}',
    pending_operation_id: null,
    relation_drift_reason: null,
    create_timeout: "20m",
    delete_timeout: "30m",
  };
}

function intent(i: number): WriteIntent {
  return {
    operation: "create",
    type: "takoform_module_worker",
    space: "default",
    name: `worker-${i}`,
    ref: REF,
    uid: "",
    idempotencyKey: `apply:run:${i}`,
    request: {
      method: "PUT",
      path: `/apis/forms.takoform.com/v1alpha3/spaces/default/resources/worker-${i}`,
      headers: { "Idempotency-Key": `apply:run:${i}` },
      body: `{"spec":{"mainModule":"index.js","n":${i}}}`,
    },
  };
}

const address = (i: number) => `takoform_module_worker.w${String(i).padStart(5, "0")}`;

/** CPU milliseconds (user + system) this process spent since `since`. */
function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

interface Timing {
  writeMs: number;
  writeWallMs: number;
  listMs: number;
  listWallMs: number;
}

async function writeAll(path: string): Promise<Timing> {
  const store = openLocalState(path);
  await store.acquire({ holder: "perf", leaseMs: 60_000 });
  const wall = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < N; i++) {
    const a = address(i);
    await store.setIntent(a, "creating", { stepId: `create:${a}`, write: intent(i) });
    await store.settle(a, { type: "takoform_module_worker", status: "ready", attributes: attributes(i), dependencies: i > 0 ? [address(i - 1)] : [] });
    const back = await store.get(a);
    if (back?.uid !== attributes(i).uid) throw new Error(`re-read of ${a} failed`);
  }
  const writeMs = cpuMs(cpu);
  const writeWallMs = performance.now() - wall;
  let listMs = Infinity;
  let listWallMs = Infinity;
  for (let run = 0; run < 3; run++) {
    const t = performance.now();
    const c = process.cpuUsage();
    const all = await store.list();
    listMs = Math.min(listMs, cpuMs(c));
    listWallMs = Math.min(listWallMs, performance.now() - t);
    expect(all).toHaveLength(N);
  }
  expect(await store.serial()).toBe(2 * N);
  await store.release();
  await store.close();
  return { writeMs, writeWallMs, listMs, listWallMs };
}

describe("state store at 10,000 records", () => {
  it("writes 10,000 records ×3, reads each back, and lists them all", async () => {
    const dir = mkdtempSync(join(tmpdir(), "takoform-perf-"));
    try {
      const timing = await writeAll(join(dir, "a", "state.db"));
      console.log(
        `state perf: 3×${N} operations ${timing.writeMs.toFixed(0)} ms CPU (${timing.writeWallMs.toFixed(0)} ms wall), ` +
          `list() of ${N} ${timing.listMs.toFixed(0)} ms CPU (${timing.listWallMs.toFixed(0)} ms wall)`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
