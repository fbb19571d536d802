// Issue 11, item 3: the bearer token is removed from what leaves the client (messages,
// diagnostics, stored free text), never from the data it decodes. With a token that occurs in the
// host's answers, each answer was refused as omitting a valid name, and state kept `uid: null`.
// The token here is inside both resources' names (a token is at least 16 characters since issue
// 24, so it can no longer hide inside the uids the host mints, as `u` did; the names are checked
// by the same identity rule). Through the `takoform` command against a served host that accepts
// that token: apply records the true names and uids, a plan finds no changes, and destroy empties
// the host.

import { afterEach, describe, expect, it } from "vitest";
import { LocalHost } from "../../src/host/index.ts";
import { openLocalStateReadOnly } from "../../src/state/index.ts";
import { runCli, Scratch } from "./harness.ts";

const KV = "takoform_edge_kv_namespace";
const Q = "takoform_at_least_once_queue";
const GROUP = "edge.takoform-cdk.dev/v1beta1";

describe("a token that occurs in the host's data (issue 11, item 3)", () => {
  let host: LocalHost | undefined;
  let scratch: Scratch | undefined;
  afterEach(async () => {
    await host?.close();
    scratch?.cleanup();
    host = undefined;
    scratch = undefined;
  });

  const token = "tk-in-names-0123";
  it(`token ${JSON.stringify(token)}: apply records the names and uids the host gave, plan finds no changes, destroy empties the host`, async () => {
    host = await LocalHost.open({ data: ":memory:", log: () => undefined, tokens: [{ token, tenant: "acme", principal: "ops" }] });
    const { url } = await host.listen("127.0.0.1", 0);
    scratch = new Scratch();
    scratch.write(
      "stack.json",
      JSON.stringify({
        resource: {
          [KV]: { cache: { name: `s${token}-cache` } },
          [Q]: { jobs: { name: `q-${token}-jobs`, message_retention_seconds: 3600 } },
        },
      }),
    );
    const env = { TAKOFORM_ENDPOINT: url, TAKOFORM_TOKEN: token };
    const cli = (args: string[]) => runCli(args, { cwd: scratch!.dir, env });

    const applied = await cli(["apply", "--config", "stack.json", "--auto-approve"]);
    expect(applied.code, `${applied.stdout}\n${applied.stderr}`).toBe(0);
    const reader = openLocalStateReadOnly(scratch.path(".takoform", "state.db"));
    const records = await reader.list();
    await reader.close();
    expect(records.map((r) => r.name)).toEqual([`q-${token}-jobs`, `s${token}-cache`]);
    for (const record of records) {
      const stored = host.controls.resource({ tenant: "acme", space: "default", apiVersion: GROUP, kind: record.ref!.kind, name: record.name! });
      expect(record.uid, record.address).toBe(stored!.uid);
      expect(record.attributes["uid"]).toBe(stored!.uid);
    }

    const planned = await cli(["plan", "--config", "stack.json", "--detailed-exitcode"]);
    expect(planned.code, `${planned.stdout}\n${planned.stderr}`).toBe(0);
    const destroyed = await cli(["destroy", "--config", "stack.json", "--auto-approve"]);
    expect(destroyed.code, `${destroyed.stdout}\n${destroyed.stderr}`).toBe(0);
    expect(host.controls.resourceCount()).toBe(0);
  }, 60_000);
});
