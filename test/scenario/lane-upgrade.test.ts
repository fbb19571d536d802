// A v1alpha3 stack walked forward to v1beta1 (decision 0017; docs/state.md, "Upgrading a state's
// lane"; docs/host.md, "Lane upgrade"), every step a spawned `takoform`, the worker served by
// `takoform dev` throughout and its ModuleWorker's Ready sampled from a second client the whole
// time:
//
//   apply (TAKOFORM_LANE=v1alpha3)   examples/worker-app deployed under v1alpha3 identities
//   dev                              serves it (both lanes: its data's and its state's)
//   state upgrade-lane               refused: the host holds nothing under v1beta1 identities yet;
//                                    nothing is re-bound by name
//   host upgrade-lane                moves the space through dev's server: same uids
//   plan                             fails closed: the old identities answer migration_required
//   state upgrade-lane               re-binds every record after reading it under v1beta1
//   plan --detailed-exitcode         empty (exit 0); the worker still counts: its KV survived
//
// and the sampler never saw the worker not Ready.

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { HostClient } from "../../src/client/client.ts";
import { HostApiError } from "../../src/client/errors.ts";
import { laneNamed } from "../../src/core/lanes.ts";
import type { FormRef } from "../../src/core/index.ts";
import { DEV_TOKEN } from "../../src/host/index.ts";
import { openLocalStateReadOnly } from "../../src/state/index.ts";
import { runCli } from "./harness.ts";
import { exampleProject } from "../support/node-modules.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "bin", "takoform.js");
const ALPHA = laneNamed("v1alpha3");
const BETA = laneNamed("v1beta1");
const project = mkdtempSync(join(tmpdir(), "takoform-lane-upgrade-"));
const children: ChildProcess[] = [];
const bare = { TAKOFORM_ENDPOINT: undefined, TAKOFORM_TOKEN: undefined, TAKOFORM_SPACE: undefined, TAKOFORM_LANE: undefined, NO_COLOR: "1" };

/** Starts `takoform dev -C project` and waits for the worker's path-form address. */
async function startDev(): Promise<{ child: ChildProcess; url: string; path: string; output: () => string }> {
  const env: Record<string, string | undefined> = { ...process.env, ...bare };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const child = spawn(process.execPath, [BIN, "dev", "-C", project, "--listen", "127.0.0.1:0"], {
    env: env as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const m = /^worker default\/counter:\n {2}http:\/\/\S+\n {2}(http:\/\/(127\.0\.0\.1:\d+)\/\S+)\n/m.exec(out);
    if (m !== null) return { child, url: `http://${m[2]!}`, path: m[1]!, output: () => out };
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`dev printed no worker address:\n${out}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function get(url: string): Promise<string> {
  const response = await fetch(url);
  return `${response.status} ${await response.text()}`;
}

/**
 * Reads the ModuleWorker's Ready every 10 ms from its own clients: under the v1alpha3 identity
 * while it answers there, and — once that answers migration_required, naming the object's new
 * identity — under the v1beta1 one. Any answer that is not Ready=True is recorded.
 */
class FollowingSampler {
  ready = 0;
  readonly notReady: string[] = [];
  readonly identities: string[] = [];
  #stopped = false;
  #loop: Promise<void>;

  constructor(alpha: HostClient, beta: HostClient, ref: FormRef) {
    let client = alpha;
    let current = ref;
    this.identities.push(current.apiVersion);
    this.#loop = (async () => {
      while (!this.#stopped) {
        try {
          const resource = await client.getResource("default", current, "counter");
          const ready = resource.status.conditions.find((c) => c.type === "Ready");
          if (ready?.status === "True") this.ready++;
          else this.notReady.push(`${ready?.status ?? "absent"}/${ready?.reason ?? "-"}`);
        } catch (error) {
          const moved = error instanceof HostApiError && error.code === "migration_required" && error.hostCode === "moved_to_lane";
          if (moved && client === alpha) {
            // The same object, named by the host: follow it and read it at once.
            current = (error.details as { formRef: FormRef }).formRef;
            client = beta;
            this.identities.push(current.apiVersion);
            continue;
          }
          if (!this.#stopped) this.notReady.push(`error: ${(error as Error).message}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#loop;
  }
}

async function pulled(): Promise<{ lane: string | null; groups: Set<string>; uids: Map<string, string> }> {
  const reader = openLocalStateReadOnly(join(project, ".takoform", "stacks", "counter", "state.db"));
  try {
    const records = await reader.list();
    return {
      lane: (await reader.hostBinding())!.lane,
      groups: new Set(records.map((r) => r.ref!.apiVersion)),
      uids: new Map(records.map((r) => [r.address, r.uid!])),
    };
  } finally {
    await reader.close();
  }
}

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  rmSync(project, { recursive: true, force: true });
});

describe("a v1alpha3 stack walked forward to v1beta1", () => {
  it("host upgrade-lane then state upgrade-lane: the same objects, re-bound by uid, the worker Ready throughout, and the next plan empty", async () => {
    exampleProject("worker-app", project, "lane-upgrade");
    const cli = (args: string[], env: Record<string, string | undefined> = {}) =>
      runCli([...args, "-C", project], { cwd: project, env: { ...bare, ...env }, timeoutMs: 120_000 });

    const applied = await cli(["apply", "--auto-approve"], { TAKOFORM_LANE: ALPHA.name });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const before = await pulled();
    expect(before.lane).toBe(ALPHA.hostApiVersion);
    expect(before.groups).toEqual(new Set([ALPHA.edgeGroups.bundled]));
    expect(before.uids.size).toBe(6);

    const dev = await startDev();
    expect(await get(dev.path)).toBe("200 hello: request number 1\n");
    const alpha = await HostClient.connect({ endpoint: dev.url, token: DEV_TOKEN.token, lane: ALPHA.name });
    const beta = await HostClient.connect({ endpoint: dev.url, token: DEV_TOKEN.token, lane: BETA.name });
    const reader = openLocalStateReadOnly(join(project, ".takoform", "stacks", "counter", "state.db"));
    const workerRecord = (await reader.list()).find((r) => r.type === "takoform_module_worker")!;
    await reader.close();
    const sampler = new FollowingSampler(alpha, beta, workerRecord.ref!);
    try {
      await new Promise((resolve) => setTimeout(resolve, 50));

      // Nothing is held under v1beta1 identities yet: refused, nothing re-bound by name.
      const early = await cli(["state", "upgrade-lane"]);
      expect(early.code, early.stdout + early.stderr).toBe(1);
      expect(early.stderr).toContain("takoform.engine/upgrade-lane-unverified");
      expect(early.stderr).toContain("6 of 6 recorded objects are not held under forms.takoform.com/v1beta1 identities");
      expect(early.stderr).toContain("takoform host upgrade-lane");
      expect(await pulled()).toEqual(before);

      // The host step, through dev's server (it holds the data directory and keeps serving).
      const moved = await cli(["host", "upgrade-lane"]);
      expect(moved.code, moved.stdout + moved.stderr).toBe(0);
      expect(moved.stdout).toContain(`Moved 6 objects of space "default" on ${dev.url}`);
      expect(moved.stdout).toContain(`to ${BETA.hostApiVersion} (same uids)`);
      for (const uid of before.uids.values()) expect(moved.stdout).toContain(`[uid=${uid}]`);

      // The state still names the old identities: every read of them fails closed, nothing is forgotten.
      const stale = await cli(["plan"]);
      expect(stale.code, stale.stdout + stale.stderr).toBe(1);
      expect(`${stale.stdout}${stale.stderr}`).toContain("migration_required (host, HTTP 409)");
      expect(`${stale.stdout}${stale.stderr}`).toContain("moved to the Host API lane forms.takoform.com/v1beta1");
      expect(await pulled()).toEqual(before);

      const upgraded = await cli(["state", "upgrade-lane"]);
      expect(upgraded.code, upgraded.stdout + upgraded.stderr).toBe(0);
      expect(upgraded.stdout).toContain("Re-bound 6 records (each read under its new identity with its recorded uid)");
      expect(upgraded.stdout).toContain(`State is now on ${BETA.hostApiVersion} (was ${ALPHA.hostApiVersion})`);
      const after = await pulled();
      expect(after).toEqual({ lane: BETA.hostApiVersion, groups: new Set([BETA.edgeGroups.bundled]), uids: before.uids });

      const plan = await cli(["plan", "--detailed-exitcode"]);
      expect(plan.code, plan.stdout + plan.stderr).toBe(0);
      // Still the same worker, with its KV binding and its data.
      expect(await get(dev.path)).toBe("200 hello: request number 2\n");
      const again = await cli(["state", "upgrade-lane"]);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain(`State is already on ${BETA.hostApiVersion}; 6 recorded objects verified.`);
    } finally {
      await sampler.stop();
      alpha.close();
      beta.close();
      dev.child.kill("SIGTERM");
    }
    expect(sampler.identities).toEqual([ALPHA.edgeGroups.bundled, BETA.edgeGroups.bundled]);
    expect(sampler.ready).toBeGreaterThan(0);
    expect({ notReady: sampler.notReady.length, first: sampler.notReady.slice(0, 5) }).toEqual({ notReady: 0, first: [] });
  }, 300_000);
});
