// Issue 11, item 1: a create whose reply is lost must not be forgotten. A fault proxy stands
// between the `takoform` command and a served host and drops the connection after the host has
// answered the PUT of a single EdgeKVNamespace. Two cases:
// - the reply is lost once: the client re-sends the PUT under the same Idempotency-Key, the host
//   replays its 201, and the apply finishes in that run with one object;
// - the reply is lost on every attempt of the run: the apply fails, but state keeps the recorded
//   intent (as after kill -9). The next apply or destroy re-sends it under the same key — the
//   first run's, run scope included — and adopts the replayed answer: no name-taken error, one
//   object for a `name_prefix` resource, and a destroy that leaves nothing behind.
// Each test states the timeline of resource mutations the proxy saw and checks it exactly.

import { afterEach, describe, expect, it } from "vitest";
import { openLocalStateReadOnly } from "../../src/state/index.ts";
import { FaultProxy, isResourceMutation, type FaultKind } from "../../src/testing/fault-proxy.ts";
import { EDGE_GROUP, runCli, Scratch, startHost, type CliResult, type TestHost } from "./harness.ts";

const KV = "takoform_edge_kv_namespace";
const KV_REF = { apiVersion: EDGE_GROUP, kind: "EdgeKVNamespace" };

interface Rig {
  host: TestHost;
  proxy: FaultProxy;
  scratch: Scratch;
  /** While true, every PUT of a resource is answered by the host and then its reply is lost. */
  losing: boolean;
  /** While true, every DELETE of a resource is answered by the host and then its reply is lost. */
  losingDeletes: boolean;
  cli(args: string[]): Promise<CliResult>;
  stack(resources: Record<string, unknown>): void;
}

/** `PUT KV kv1 201 reset-after [key #1]`: method, resource name, host status, action, key index. */
function timeline(proxy: FaultProxy): string[] {
  const keys: string[] = [];
  return proxy.log
    .filter((e) => isResourceMutation(e))
    .map((e) => {
      const name = decodeURIComponent(e.target.split("?")[0]!.split("/").pop()!);
      let index = keys.indexOf(e.idempotencyKey!);
      if (index < 0) index = keys.push(e.idempotencyKey!) - 1;
      return `${e.method} ${name} ${e.upstreamStatus ?? "-"} ${e.action} [key #${index + 1}]`;
    });
}

async function stateRecords(scratch: Scratch) {
  const reader = openLocalStateReadOnly(scratch.path(".takoform", "state.db"));
  try {
    return { records: await reader.list(), inFlight: await reader.inFlight() };
  } finally {
    await reader.close();
  }
}

describe("a create whose reply is lost is not forgotten (issue 11, item 1)", () => {
  let rig: Rig | undefined;
  afterEach(async () => {
    await rig?.proxy.close();
    await rig?.host.close();
    rig?.scratch.cleanup();
    rig = undefined;
  });

  async function start(resource: Record<string, unknown>, lose: (kind: FaultKind) => FaultKind | undefined = () => undefined): Promise<Rig> {
    const host = await startHost();
    const state = { losing: false, losingDeletes: false };
    let lostOnce = false;
    const proxy = await FaultProxy.start({
      upstream: host.url,
      script: (request) => {
        if (!isResourceMutation(request)) return undefined;
        if (request.method === "DELETE") return state.losingDeletes ? "reset-after" : undefined;
        if (state.losing) return "reset-after";
        if (!lostOnce) {
          const fault = lose("reset-after");
          if (fault !== undefined) {
            lostOnce = true;
            return fault;
          }
        }
        return undefined;
      },
    });
    const scratch = new Scratch();
    const write = (resources: Record<string, unknown>) => scratch.write("stack.json", JSON.stringify({ resource: resources }));
    write({ [KV]: { kv1: resource } });
    const env = { TAKOFORM_ENDPOINT: proxy.url, TAKOFORM_TOKEN: "takoform-dev-token" };
    rig = {
      host,
      proxy,
      scratch,
      get losing() {
        return state.losing;
      },
      set losing(value: boolean) {
        state.losing = value;
      },
      get losingDeletes() {
        return state.losingDeletes;
      },
      set losingDeletes(value: boolean) {
        state.losingDeletes = value;
      },
      cli: (args) => runCli(args, { cwd: scratch.dir, env }),
      stack: write,
    };
    return rig;
  }

  it("lost once: the PUT is re-sent under the same key, the host replays its 201, and the apply finishes in one run", async () => {
    const r = await start({ name: "kv1" }, (fault) => fault);
    const applied = await r.cli(["apply", "--config", "stack.json", "--auto-approve"]);
    expect(applied.code, `${applied.stdout}\n${applied.stderr}`).toBe(0);
    expect(applied.stdout).toContain("Apply complete! Resources: 1 added, 0 changed, 0 destroyed.");
    expect(timeline(r.proxy)).toEqual(["PUT kv1 201 reset-after [key #1]", "PUT kv1 201 pass [key #1]"]);
    expect(r.host.host.controls.resourceCount()).toBe(1);
    const { records, inFlight } = await stateRecords(r.scratch);
    expect(inFlight).toEqual([]);
    expect(records.map((x) => [x.address, x.uid])).toEqual([
      [`${KV}.kv1`, r.host.host.controls.resource({ tenant: "dev", space: "default", ...KV_REF, name: "kv1" })!.uid],
    ]);
  }, 60_000);

  it("lost on every attempt: state keeps the intent; the next apply re-sends it under the first run's key and adopts it; destroy empties the host", async () => {
    const r = await start({ name: "kv1" });
    r.losing = true;
    const failed = await r.cli(["apply", "--config", "stack.json", "--auto-approve"]);
    expect(failed.code).toBe(1);
    const failedText = `${failed.stdout}\n${failed.stderr}`;
    expect(failedText).toContain("The outcome of the EdgeKVNamespace create is unknown");
    expect(failedText).toMatch(/gave up after 5 retries over [\d.]+ s: every attempt failed/);
    expect(failedText).toContain("re-sends this request under the same Idempotency-Key");
    // The host made the object on the first attempt and replayed it on the other five.
    expect(r.host.host.controls.resourceCount()).toBe(1);

    const listed = await r.cli(["state", "list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim()).toBe(`${KV}.kv1`);
    const shown = await r.cli(["state", "show", `${KV}.kv1`]);
    expect(shown.stdout).toMatch(/# interrupted create recorded at .* the next apply resolves it/);

    r.losing = false;
    const recovered = await r.cli(["apply", "--config", "stack.json", "--auto-approve"]);
    expect(recovered.code, `${recovered.stdout}\n${recovered.stderr}`).toBe(0);
    expect(recovered.stdout).toContain("write(s) an interrupted apply had left unfinished were resolved first");
    expect(recovered.stdout).not.toContain("already taken");
    expect(recovered.stdout).toContain("No changes.");
    const { records, inFlight } = await stateRecords(r.scratch);
    expect(inFlight).toEqual([]);
    const stored = r.host.host.controls.resource({ tenant: "dev", space: "default", ...KV_REF, name: "kv1" })!;
    expect(records.map((x) => [x.address, x.uid])).toEqual([[`${KV}.kv1`, stored.uid]]);
    expect(r.host.host.controls.resourceCount()).toBe(1);

    const plan = await r.cli(["plan", "--config", "stack.json", "--detailed-exitcode"]);
    expect(plan.code, plan.stdout).toBe(0);
    const destroyed = await r.cli(["destroy", "--config", "stack.json", "--auto-approve"]);
    expect(destroyed.code, destroyed.stdout).toBe(0);
    expect(r.host.host.controls.resourceCount()).toBe(0);

    expect(timeline(r.proxy)).toEqual([
      ...Array.from({ length: 6 }, () => "PUT kv1 201 reset-after [key #1]"),
      // The next run: the recorded request, the first run's key (run scope included), replayed.
      "PUT kv1 201 pass [key #1]",
      "DELETE kv1 204 pass [key #2]",
    ]);
  }, 90_000);

  it("name_prefix: the lost create's object is the one state adopts, and a destroy right after the failed apply leaves nothing", async () => {
    const r = await start({ name_prefix: "lost-" });
    r.losing = true;
    const failed = await r.cli(["apply", "--config", "stack.json", "--auto-approve"]);
    expect(failed.code).toBe(1);
    expect(r.host.host.controls.resourceCount()).toBe(1);
    const before = await stateRecords(r.scratch);
    expect(before.inFlight.map((x) => x.address)).toEqual([`${KV}.kv1`]);
    const name = before.inFlight[0]!.name!;
    expect(name).toMatch(/^lost-[0-9a-f]{8}$/);

    r.losing = false;
    const destroyed = await r.cli(["destroy", "--config", "stack.json", "--auto-approve"]);
    expect(destroyed.code, `${destroyed.stdout}\n${destroyed.stderr}`).toBe(0);
    expect(destroyed.stdout).toContain("write(s) an interrupted apply had left unfinished were resolved first");
    expect(r.host.host.controls.resourceCount()).toBe(0);
    const after = await stateRecords(r.scratch);
    expect(after.records).toEqual([]);
    expect(timeline(r.proxy)).toEqual([
      ...Array.from({ length: 6 }, () => `PUT ${name} 201 reset-after [key #1]`),
      `PUT ${name} 201 pass [key #1]`,
      `DELETE ${name} 204 pass [key #2]`,
    ]);
  }, 90_000);

  it("name_prefix: apply after the lost create converges on exactly one object", async () => {
    const r = await start({ name_prefix: "lost-" });
    r.losing = true;
    expect((await r.cli(["apply", "--config", "stack.json", "--auto-approve"])).code).toBe(1);
    r.losing = false;
    const recovered = await r.cli(["apply", "--config", "stack.json", "--auto-approve"]);
    expect(recovered.code, `${recovered.stdout}\n${recovered.stderr}`).toBe(0);
    expect(r.host.host.controls.resourceCount()).toBe(1);
    const { records } = await stateRecords(r.scratch);
    expect(records).toHaveLength(1);
    const stored = r.host.host.controls.resource({ tenant: "dev", space: "default", ...KV_REF, name: records[0]!.name! });
    expect(stored?.uid).toBe(records[0]!.uid);
  }, 90_000);

  it("an update and a delete whose replies are lost: each intent survives, also a resend that is lost again, and the next run adopts the replay", async () => {
    const Q = "takoform_at_least_once_queue";
    const r = await start({ name: "kv1" });
    r.stack({ [Q]: { q1: { name: "q1", message_retention_seconds: 3600 } } });
    expect((await r.cli(["apply", "--config", "stack.json", "--auto-approve"])).code).toBe(0);
    const stored = () => r.host.host.controls.resource({ tenant: "dev", space: "default", apiVersion: EDGE_GROUP, kind: "AtLeastOnceQueue", name: "q1" })!;
    const uid = stored().uid;

    r.stack({ [Q]: { q1: { name: "q1", message_retention_seconds: 7200 } } });
    r.losing = true;
    const failed = await r.cli(["apply", "--config", "stack.json", "--auto-approve"]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("The outcome of the AtLeastOnceQueue update is unknown");
    expect(stored().generation).toBe(2); // the host carried the update out on the first attempt
    // The run after that loses the re-sent request's reply too: the intent still stays.
    const again = await r.cli(["apply", "--config", "stack.json", "--auto-approve"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`The interrupted update of ${Q}.q1 could not be resolved`);
    const shown = await r.cli(["state", "show", `${Q}.q1`]);
    expect(shown.stdout).toMatch(/\(updating\)[\s\S]*# interrupted update recorded at/);

    r.losing = false;
    const recovered = await r.cli(["apply", "--config", "stack.json", "--auto-approve"]);
    expect(recovered.code, `${recovered.stdout}\n${recovered.stderr}`).toBe(0);
    expect(recovered.stdout).toContain("1 write(s) an interrupted apply had left unfinished were resolved first.");
    expect(recovered.stdout).toContain("No changes.");
    expect(stored().uid).toBe(uid);
    expect(stored().generation).toBe(2);
    const { records } = await stateRecords(r.scratch);
    expect(records.map((x) => [x.status, x.uid, x.generation])).toEqual([["ready", uid, "2"]]);

    r.losingDeletes = true;
    const destroyFailed = await r.cli(["destroy", "--config", "stack.json", "--auto-approve"]);
    expect(destroyFailed.code).toBe(1);
    expect(destroyFailed.stderr).toContain("The outcome of the AtLeastOnceQueue delete is unknown");
    expect(r.host.host.controls.resourceCount()).toBe(0); // deleted on the first attempt
    expect((await r.cli(["state", "list"])).stdout.trim()).toBe(`${Q}.q1`);
    r.losingDeletes = false;
    const destroyed = await r.cli(["destroy", "--config", "stack.json", "--auto-approve"]);
    expect(destroyed.code, `${destroyed.stdout}\n${destroyed.stderr}`).toBe(0);
    expect(destroyed.stdout).toContain("1 write(s) an interrupted apply had left unfinished were resolved first.");
    expect((await stateRecords(r.scratch)).records).toEqual([]);

    expect(timeline(r.proxy)).toEqual([
      "PUT q1 201 pass [key #1]",
      ...Array.from({ length: 6 }, () => "PUT q1 200 reset-after [key #2]"),
      ...Array.from({ length: 6 }, () => "PUT q1 200 reset-after [key #2]"),
      "PUT q1 200 pass [key #2]",
      ...Array.from({ length: 6 }, () => "DELETE q1 204 reset-after [key #3]"),
      "DELETE q1 204 pass [key #3]",
    ]);
  }, 120_000);
});
