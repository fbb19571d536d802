// Existing v1alpha3 state keeps working, through the `takoform` command against
// `takoform host serve` as a real process (decision 0017; docs/state.md §4):
//   1. a stack applied against a host serving v1alpha3 is bound to that lane;
//   2. made exactly what an earlier takoform-cdk left (a state binding without a lane, a host
//      data directory without recorded lanes), it still plans nothing and applies an update
//      against a host started with --lane v1alpha3;
//   3. against the same data served on v1beta1 only, every command fails closed naming the
//      recorded identities, and reads nothing;
//   4. served on both lanes, the state's own lane is spoken (and a new stack beside it gets
//      v1beta1); a provider pinned to the other lane is refused the same way.
// And the embedded host: a project whose state and data an earlier takoform-cdk wrote plans
// nothing, while a new project deploys on v1beta1.

import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { DEV_TOKEN } from "../../src/host/index.ts";
import { openLocalStateReadOnly } from "../../src/state/index.ts";
import { runCli, Scratch } from "./harness.ts";

const BIN = join(new URL("../..", import.meta.url).pathname, "bin", "takoform.js");
const ALPHA_GROUP = "edge.takoform-cdk.dev/v1alpha1";

interface Served {
  url: string;
  stop(): Promise<void>;
}

function serve(data: string, lane: string): Promise<Served> {
  const child: ChildProcess = spawn(process.execPath, [BIN, "host", "serve", "--listen", "127.0.0.1:0", "--data", data, "--no-runtime", "--lane", lane], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /^listening on (http:\/\/\S+)\n/m.exec(out);
      if (m !== null) {
        resolve({
          url: m[1]!,
          stop: () =>
            new Promise<void>((done) => {
              child.on("exit", () => done());
              child.kill("SIGTERM");
            }),
        });
      }
    });
    child.on("exit", (code) => reject(new Error(`host serve exited ${code}: ${err}`)));
  });
}

/** A queue and a KV namespace; `retention` is the one thing a later apply changes. */
function stack(retention: number): string {
  return JSON.stringify({
    resource: {
      takoform_edge_kv_namespace: { cache: { name: "cache" } },
      takoform_at_least_once_queue: { jobs: { name: "jobs", message_retention_seconds: retention } },
    },
  });
}

/** What an earlier takoform-cdk wrote: a state binding with no lane (layout 2), a host data directory with no lanes recorded. */
function makeLegacy(scratch: Scratch, data: string): void {
  const state = new Database(scratch.path(".takoform", "state.db"));
  state.exec("ALTER TABLE host_binding DROP COLUMN lane; ALTER TABLE info DROP COLUMN stack;");
  state.pragma("user_version = 2");
  state.close();
  const host = new Database(join(data, "host.db"));
  host.prepare("DELETE FROM meta WHERE key = 'lanes'").run();
  host.close();
}

async function bindingLane(scratch: Scratch): Promise<string | null> {
  const reader = openLocalStateReadOnly(scratch.path(".takoform", "state.db"));
  try {
    return (await reader.hostBinding())!.lane;
  } finally {
    await reader.close();
  }
}

describe("existing v1alpha3 state against `takoform host serve --lane`", () => {
  const scratch = new Scratch();
  const data = scratch.path("host-data");
  afterAll(() => scratch.cleanup());

  it("keeps working on v1alpha3, fails closed naming its identities on v1beta1, and keeps its lane on a host serving both", async () => {
    scratch.write("stack.json", stack(3600));
    const cli = (args: string[], url: string, extra: Record<string, string> = {}) =>
      runCli([...args, "--config", "stack.json"], {
        cwd: scratch.dir,
        env: { TAKOFORM_ENDPOINT: url, TAKOFORM_TOKEN: DEV_TOKEN.token, ...extra },
        timeoutMs: 120_000,
      });

    // 1. Written on v1alpha3: the only lane this host offers.
    let host = await serve(data, "v1alpha3");
    try {
      const applied = await cli(["apply", "--auto-approve"], host.url);
      expect(applied.code, applied.stderr).toBe(0);
      expect(await bindingLane(scratch)).toBe("forms.takoform.com/v1alpha3");
    } finally {
      await host.stop();
    }
    makeLegacy(scratch, data);
    expect(await bindingLane(scratch)).toBeNull();

    // 2. An earlier takoform-cdk's state, against a host started with --lane v1alpha3.
    host = await serve(data, "v1alpha3");
    try {
      const planned = await cli(["plan", "--detailed-exitcode"], host.url);
      expect(planned.code, `${planned.stdout}\n${planned.stderr}`).toBe(0);
      scratch.write("stack.json", stack(7200));
      const updated = await cli(["apply", "--auto-approve"], host.url);
      expect(updated.code, updated.stderr).toBe(0);
      expect(updated.stdout).toContain("Apply complete! Resources: 0 added, 1 changed, 0 destroyed.");
      // The binding now says which lane it was: the same one.
      expect(await bindingLane(scratch)).toBe("forms.takoform.com/v1alpha3");
      const reader = openLocalStateReadOnly(scratch.path(".takoform", "state.db"));
      expect(new Set((await reader.list()).map((r) => r.ref!.apiVersion))).toEqual(new Set([ALPHA_GROUP]));
      await reader.close();
    } finally {
      await host.stop();
    }

    // 3. The same data served on v1beta1 only: refused before any read, naming the identities.
    host = await serve(data, "v1beta1");
    try {
      for (const command of [["plan"], ["refresh", "--auto-approve"], ["apply", "--auto-approve"], ["destroy", "--auto-approve"]]) {
        const refused = await cli(command, host.url);
        expect(refused.code, `${command.join(" ")}\n${refused.stdout}\n${refused.stderr}`).toBe(1);
        // plan prints its diagnostics with the plan (stdout), the other commands on stderr.
        const said = `${refused.stdout}${refused.stderr}`;
        expect(said).toContain("This state was written under Host API forms.takoform.com/v1alpha3; the host is spoken to on forms.takoform.com/v1beta1");
        expect(said).toContain(`${ALPHA_GROUP} AtLeastOnceQueue@0.1.0 schema=sha256:`);
        expect(said).toContain(`${ALPHA_GROUP} EdgeKVNamespace@0.1.0 schema=sha256:`);
        expect(said).toContain("takoform.engine/lane-mismatch");
        expect(said).not.toContain("another host");
      }
      expect(await bindingLane(scratch)).toBe("forms.takoform.com/v1alpha3");
    } finally {
      await host.stop();
    }

    // 4. Served on both: the state's lane is asked first and spoken; a pin to the other is refused.
    host = await serve(data, "both");
    try {
      const planned = await cli(["plan", "--detailed-exitcode"], host.url);
      expect(planned.code, `${planned.stdout}\n${planned.stderr}`).toBe(0);
      const pinned = await cli(["plan"], host.url, { TAKOFORM_LANE: "v1beta1" });
      expect(pinned.code).toBe(1);
      expect(`${pinned.stdout}${pinned.stderr}`).toContain("takoform.engine/lane-mismatch");
      // A new stack beside it is created on the newest lane.
      const fresh = scratch.path("fresh");
      scratch.write("fresh/stack.json", JSON.stringify({ resource: { takoform_edge_kv_namespace: { other: { name: "other" } } } }));
      const created = await runCli(["apply", "--config", "stack.json", "--auto-approve"], {
        cwd: fresh,
        env: { TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: DEV_TOKEN.token },
        timeoutMs: 120_000,
      });
      expect(created.code, created.stderr).toBe(0);
      const reader = openLocalStateReadOnly(join(fresh, ".takoform", "state.db"));
      expect((await reader.list())[0]!.ref!.apiVersion).toBe("edge.takoform-cdk.dev/v1beta1");
      expect((await reader.hostBinding())!.lane).toBe("forms.takoform.com/v1beta1");
      await reader.close();
    } finally {
      await host.stop();
    }
  }, 240_000);
});

describe("the embedded host of a project", () => {
  const scratch = new Scratch();
  afterAll(() => scratch.cleanup());

  it("the provider block's lane pins the lane (by name or group version); an unknown one is refused before anything runs", async () => {
    const pinned = new Scratch();
    try {
      const withLane = (lane: string) =>
        JSON.stringify({ provider: { takoform: [{ lane }] }, resource: { takoform_edge_kv_namespace: { cache: { name: "cache" } } } });
      pinned.write("stack.json", withLane("forms.takoform.com/v1alpha3"));
      const applied = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: pinned.dir, timeoutMs: 120_000 });
      expect(applied.code, applied.stderr).toBe(0);
      expect(await bindingLane(pinned)).toBe("forms.takoform.com/v1alpha3");
      pinned.write("stack.json", withLane("v2"));
      const refused = await runCli(["plan", "--config", "stack.json"], { cwd: pinned.dir, timeoutMs: 120_000 });
      expect(refused.code).toBe(1);
      expect(`${refused.stdout}${refused.stderr}`).toContain(`The provider's lane "v2" is not a Host API lane this build speaks`);
    } finally {
      pinned.cleanup();
    }
  }, 240_000);

  it("a project an earlier takoform-cdk deployed keeps working; its data is served on both lanes", async () => {
    scratch.write("stack.json", stack(3600));
    const cli = (args: string[], env: Record<string, string> = {}) =>
      runCli([...args, "--config", "stack.json"], { cwd: scratch.dir, env, timeoutMs: 120_000 });
    // Deployed on v1alpha3 (pinned, as the only lane an earlier takoform-cdk spoke), then made legacy.
    const applied = await cli(["apply", "--auto-approve"], { TAKOFORM_LANE: "v1alpha3" });
    expect(applied.code, applied.stderr).toBe(0);
    makeLegacy(scratch, scratch.path(".takoform", "host"));
    const planned = await cli(["plan", "--detailed-exitcode"]);
    expect(planned.code, `${planned.stdout}\n${planned.stderr}`).toBe(0);
    scratch.write("stack.json", stack(7200));
    const updated = await cli(["apply", "--auto-approve"]);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toContain("1 changed");
    expect(await bindingLane(scratch)).toBe("forms.takoform.com/v1alpha3");
    const host = new Database(scratch.path(".takoform", "host", "host.db"), { readonly: true });
    expect(host.prepare("SELECT value FROM meta WHERE key = 'lanes'").pluck().get()).toBe("v1beta1,v1alpha3");
    host.close();
  }, 240_000);
});
