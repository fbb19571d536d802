// Issue 23, items 2, 3 and 7: a reply that proves nothing is never believed. A fault proxy stands
// between the `takoform` command and a served host; it forwards each write, lets the host act,
// and then answers in the host's place:
// - `html-500`, `empty-200`, `cut-body` on the creates of a named EdgeKVNamespace and of a
//   `name_prefix` one: the run ends with "outcome unknown" (exit 1, no stack trace), state keeps
//   both intents, and the next apply through a clean proxy re-sends them under the same keys and
//   adopts the host's replays: one object per address, never a second one for the prefix;
// - `rewrite-uid` on an update: the reply names another uid than the one the update was fenced
//   on, so it is refused as a mismatch and state keeps the host's uid; the next apply adopts the
//   replay and the plan after it is empty (no `uid-mismatch`);
// - `html-500` on a delete: unknown, the intent kept; the next destroy finishes it.
// Each test checks the timeline of resource mutations the proxy saw exactly, and judges the host
// by every object the proxy saw it create (a PUT the host answered 201).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLocalStateReadOnly } from "../../src/state/index.ts";
import { FaultProxy, forgedUid, isResourceMutation, type FaultLogEntry, type ReplyFault } from "../../src/testing/fault-proxy.ts";
import { EDGE_GROUP, runCli, Scratch, startHost, type CliResult, type TestHost } from "./harness.ts";

const KV = "takoform_edge_kv_namespace";
const Q = "takoform_at_least_once_queue";
const STACK_TRACE = /\n\s+at .+:\d+:\d+/;

let host: TestHost;
let proxy: FaultProxy;
const scratches: Scratch[] = [];
/** The fault every resource mutation of `method` meets while set. */
let fault: { method: "PUT" | "DELETE"; kind: ReplyFault } | undefined;

beforeAll(async () => {
  host = await startHost();
  proxy = await FaultProxy.start({
    upstream: host.url,
    script: (request) => (fault !== undefined && isResourceMutation(request) && request.method === fault.method ? fault.kind : undefined),
  });
});

afterAll(async () => {
  await proxy?.close();
  await host?.close();
  for (const scratch of scratches) scratch.cleanup();
});

const nameOf = (e: FaultLogEntry) => decodeURIComponent(e.target.split("?")[0]!.split("/").pop()!);

/** One project of its own, talking to the host through the proxy. */
function project(resources: Record<string, unknown>) {
  const scratch = new Scratch();
  scratches.push(scratch);
  const write = (r: Record<string, unknown>) => scratch.write("stack.json", JSON.stringify({ resource: r }));
  write(resources);
  const env = { TAKOFORM_ENDPOINT: proxy.url, TAKOFORM_TOKEN: "takoform-dev-token" };
  const from = proxy.log.length;
  return {
    scratch,
    write,
    cli: (args: string[]): Promise<CliResult> => runCli(args, { cwd: scratch.dir, env }),
    apply: () => runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: scratch.dir, env }),
    /** This project's resource mutations per resource name, keys numbered per name: `PUT 201 html-500 [key #1]`. */
    timeline(): Record<string, string[]> {
      const keys = new Map<string, string[]>();
      const out: Record<string, string[]> = {};
      for (const e of proxy.log.slice(from).filter(isResourceMutation)) {
        const seen = keys.get(nameOf(e)) ?? keys.set(nameOf(e), []).get(nameOf(e))!;
        let index = seen.indexOf(e.idempotencyKey!);
        if (index < 0) index = seen.push(e.idempotencyKey!) - 1;
        (out[nameOf(e)] ??= []).push(`${e.method} ${e.upstreamStatus ?? "-"} ${e.action} [key #${index + 1}]`);
      }
      return out;
    },
    /** Every name the proxy saw the host create for this project. */
    created(): string[] {
      const names = proxy.log.slice(from).filter((e) => e.method === "PUT" && isResourceMutation(e) && e.upstreamStatus === 201);
      return [...new Set(names.map(nameOf))].sort();
    },
    async state() {
      const reader = openLocalStateReadOnly(scratch.path(".takoform", "state.db"));
      try {
        return { records: await reader.list(), inFlight: await reader.inFlight() };
      } finally {
        await reader.close();
      }
    },
  };
}

const stored = (kind: string, name: string) => host.host.controls.resource({ tenant: "dev", space: "default", apiVersion: EDGE_GROUP, kind, name });

const WHY: Record<Exclude<ReplyFault, "rewrite-uid">, string> = {
  "html-500": "The answer (HTTP 500) is not the host's error envelope",
  "empty-200": "The host answered HTTP 200, but the body is not a verified answer to this request",
  "cut-body": "The host answered HTTP 201, but the body is not a verified answer to this request",
};

describe("a reply that proves nothing is never believed (issue 23, items 2, 3, 7)", () => {
  for (const [kind, short] of [
    ["html-500", "h5"],
    ["empty-200", "e2"],
    ["cut-body", "cb"],
  ] as const) {
    it(`${kind} after the host created: both creates are unknown, their intents kept; the next apply adopts the replays, one object per address`, async () => {
      const p = project({ [KV]: { named: { name: `${short}-named` }, prefixed: { name_prefix: `${short}-` } } });
      const before = host.host.controls.resourceCount();
      fault = { method: "PUT", kind };
      const failed = await p.apply();
      fault = undefined;
      const failedText = `${failed.stdout}\n${failed.stderr}`;
      expect(failed.code, failedText).toBe(1);
      // One diagnostic, shown once for the two resources it concerns.
      expect(failedText).toContain("Error: The outcome of the EdgeKVNamespace create is unknown");
      expect(failedText).toContain(`with ${KV}.named, ${KV}.prefixed (2 resources)`);
      expect(failedText).toContain(WHY[kind]);
      expect(failedText).toContain(`Code: protocol-invalid host response (HTTP ${kind === "html-500" ? 500 : kind === "empty-200" ? 200 : 201})`);
      expect(failedText).toContain("re-sends this request under the same Idempotency-Key");
      expect(failedText).not.toMatch(STACK_TRACE);
      const interrupted = await p.state();
      expect(interrupted.inFlight.map((r) => r.address).sort()).toEqual([`${KV}.named`, `${KV}.prefixed`]);
      const prefixed = interrupted.inFlight.find((r) => r.address === `${KV}.prefixed`)!.name!;
      expect(prefixed).toMatch(new RegExp(`^${short}-[0-9a-f]{8}$`));

      const recovered = await p.apply();
      expect(recovered.code, `${recovered.stdout}\n${recovered.stderr}`).toBe(0);
      expect(recovered.stdout).toContain("2 write(s) an interrupted apply had left unfinished were resolved first");
      expect(recovered.stdout).toContain("No changes.");

      // Judged from every object the proxy saw created: exactly the two configured, each in state
      // under the uid the host holds.
      expect(p.created()).toEqual([`${short}-named`, prefixed].sort());
      expect(host.host.controls.resourceCount() - before).toBe(2);
      const { records, inFlight } = await p.state();
      expect(inFlight).toEqual([]);
      expect(records.map((r) => [r.address, r.name, r.uid]).sort()).toEqual([
        [`${KV}.named`, `${short}-named`, stored("EdgeKVNamespace", `${short}-named`)!.uid],
        [`${KV}.prefixed`, prefixed, stored("EdgeKVNamespace", prefixed)!.uid],
      ]);
      // The first run's request, re-sent under its own key, is answered by the host's replay.
      expect(p.timeline()).toEqual({
        [`${short}-named`]: [`PUT 201 ${kind} [key #1]`, "PUT 201 pass [key #1]"],
        [prefixed]: [`PUT 201 ${kind} [key #1]`, "PUT 201 pass [key #1]"],
      });
    }, 60_000);
  }

  it("rewrite-uid on an update is refused as a mismatch: state keeps the host's uid, the next apply adopts the replay; html-500 on a delete is unknown until the next destroy", async () => {
    const queue = (retention: number) => ({ [Q]: { q: { name: "ru-q", message_retention_seconds: retention } } });
    const p = project(queue(3600));
    expect((await p.apply()).code).toBe(0);
    const uid = stored("AtLeastOnceQueue", "ru-q")!.uid;

    p.write(queue(7200));
    fault = { method: "PUT", kind: "rewrite-uid" };
    const failed = await p.apply();
    fault = undefined;
    const failedText = `${failed.stdout}\n${failed.stderr}`;
    expect(failed.code, failedText).toBe(1);
    expect(failedText).toContain("The host's reply to the AtLeastOnceQueue update names another object; its outcome is unknown");
    expect(failedText).toContain(`host response names uid ${forgedUid(uid)}, not the uid ${uid} the request was fenced on`);
    expect(failedText).toContain("Code: protocol-invalid host response (HTTP 200)");
    expect(failedText).not.toMatch(STACK_TRACE);
    expect(stored("AtLeastOnceQueue", "ru-q")).toMatchObject({ uid, generation: 2 });
    const interrupted = await p.state();
    expect(interrupted.records.map((r) => [r.address, r.uid, r.generation])).toEqual([[`${Q}.q`, uid, "1"]]);
    expect(interrupted.inFlight.map((r) => r.address)).toEqual([`${Q}.q`]);

    const recovered = await p.apply();
    expect(recovered.code, `${recovered.stdout}\n${recovered.stderr}`).toBe(0);
    expect(recovered.stdout).toContain("1 write(s) an interrupted apply had left unfinished were resolved first");
    expect(recovered.stdout).toContain("No changes.");
    const settled = await p.state();
    expect(settled.inFlight).toEqual([]);
    expect(settled.records.map((r) => [r.status, r.uid, r.generation])).toEqual([["ready", uid, "2"]]);
    const plan = await p.cli(["plan", "--config", "stack.json", "--detailed-exitcode"]);
    expect(plan.code, `${plan.stdout}\n${plan.stderr}`).toBe(0);

    fault = { method: "DELETE", kind: "html-500" };
    const destroyFailed = await p.cli(["destroy", "--config", "stack.json", "--auto-approve"]);
    fault = undefined;
    expect(destroyFailed.code).toBe(1);
    expect(destroyFailed.stderr).toContain("The outcome of the AtLeastOnceQueue delete is unknown");
    expect(destroyFailed.stderr).not.toMatch(STACK_TRACE);
    expect(stored("AtLeastOnceQueue", "ru-q")).toBeUndefined(); // the host deleted it
    expect((await p.state()).inFlight.map((r) => r.address)).toEqual([`${Q}.q`]);
    const destroyed = await p.cli(["destroy", "--config", "stack.json", "--auto-approve"]);
    expect(destroyed.code, `${destroyed.stdout}\n${destroyed.stderr}`).toBe(0);
    expect(destroyed.stdout).toContain("1 write(s) an interrupted apply had left unfinished were resolved first");
    expect((await p.state()).records).toEqual([]);

    expect(p.created()).toEqual(["ru-q"]);
    expect(p.timeline()).toEqual({
      "ru-q": ["PUT 201 pass [key #1]", "PUT 200 rewrite-uid [key #2]", "PUT 200 pass [key #2]", "DELETE 204 html-500 [key #3]", "DELETE 204 pass [key #3]"],
    });
  }, 60_000);
});
