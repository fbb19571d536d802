// `takoform state upgrade-lane` refuses, writing nothing, whenever it cannot prove the move
// (decision 0017; docs/state.md, "Upgrading a state's lane"). Through the command, against a host
// serving both lanes behind a fault proxy, with state written under v1alpha3:
//
//   apply (v1alpha3)                 keep-a, keep-b                       PUT keep-a 201, PUT keep-b 201
//   apply (v1alpha3), replies lost   + keep-c: the create's outcome unknown, its intent recorded
//   state upgrade-lane               refused: a write is in flight (upgrade-lane-in-flight);
//                                    no request reaches a resource
//   apply (v1alpha3)                 re-sends keep-c under its recorded key and adopts the replay
//   apply (v1beta1), another project keep-a, keep-b, keep-c of the SAME names under v1beta1
//   state upgrade-lane               refused: each found under the new identity by name, but with
//                                    another uid (uid-mismatch for each, upgrade-lane-unverified);
//                                    never re-bound by name
//
// After each refusal the state is exactly as before: its serial, its lane and its identities.

import { afterEach, describe, expect, it } from "vitest";
import { laneNamed } from "../../src/core/index.ts";
import { LocalHost } from "../../src/host/index.ts";
import { openLocalStateReadOnly } from "../../src/state/index.ts";
import { FaultProxy, isResourceMutation } from "../../src/testing/fault-proxy.ts";
import { runCli, Scratch, type CliResult } from "./harness.ts";

const KV = "takoform_edge_kv_namespace";
const TOKEN = "takoform-dev-token";
const ALPHA = laneNamed("v1alpha3");
const BETA = laneNamed("v1beta1");

function stack(names: readonly string[]): string {
  return JSON.stringify({ resource: { [KV]: Object.fromEntries(names.map((n) => [n.replace("keep-", ""), { name: n }])) } });
}

async function snapshot(scratch: Scratch) {
  const reader = openLocalStateReadOnly(scratch.path(".takoform", "state.db"));
  try {
    const records = await reader.list();
    return {
      serial: await reader.serial(),
      lane: (await reader.hostBinding())!.lane,
      groups: [...new Set(records.map((r) => r.ref!.apiVersion))],
      uids: Object.fromEntries(records.map((r) => [r.address, r.uid])),
      inFlight: (await reader.inFlight()).map((r) => `${r.address} ${r.status}`),
    };
  } finally {
    await reader.close();
  }
}

describe("state upgrade-lane refuses what it cannot prove, and writes nothing", () => {
  const opened: { close(): Promise<void> }[] = [];
  const scratches: Scratch[] = [];
  afterEach(async () => {
    for (const item of opened.splice(0).reverse()) await item.close();
    for (const scratch of scratches.splice(0)) scratch.cleanup();
  });

  it("refuses while a write is in flight, and refuses objects found under the new identity by name with other uids", async () => {
    const host = await LocalHost.open({ data: ":memory:", lanes: [ALPHA.name, BETA.name], log: () => undefined });
    opened.push(host);
    const upstream = (await host.listen("127.0.0.1", 0)).url;
    let losing = false;
    const proxy = await FaultProxy.start({ upstream, script: (request) => (losing && isResourceMutation(request) ? "reset-after" : undefined) });
    opened.push(proxy);
    const project = new Scratch();
    const other = new Scratch();
    scratches.push(project, other);
    const cli = (scratch: Scratch, args: string[], lane?: string): Promise<CliResult> =>
      runCli(args, { cwd: scratch.dir, env: { TAKOFORM_ENDPOINT: proxy.url, TAKOFORM_TOKEN: TOKEN, TAKOFORM_SPACE: undefined, TAKOFORM_LANE: lane } });
    const mutations = () =>
      proxy.log
        .filter((e) => isResourceMutation(e))
        .map((e) => `${e.method} ${decodeURIComponent(e.target.split("?")[0]!.split("/").pop()!)} ${e.upstreamStatus ?? "-"}`);

    project.write("stack.json", stack(["keep-a", "keep-b"]));
    const applied = await cli(project, ["apply", "--config", "stack.json", "--auto-approve"], ALPHA.name);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    // The two creates are independent and run concurrently, so their order on the wire is not fixed.
    expect(mutations().sort()).toEqual(["PUT keep-a 201", "PUT keep-b 201"]);

    // A create whose reply never arrives: state keeps its intent (the create is in flight).
    project.write("stack.json", stack(["keep-a", "keep-b", "keep-c"]));
    losing = true;
    const lost = await cli(project, ["apply", "--config", "stack.json", "--auto-approve"], ALPHA.name);
    losing = false;
    expect(lost.code).toBe(1);
    const inFlight = await snapshot(project);
    expect(inFlight.lane).toBe(ALPHA.hostApiVersion);
    expect(inFlight.inFlight).toEqual([`${KV}.c creating`]);
    const sentBefore = proxy.log.length;

    const busy = await cli(project, ["state", "upgrade-lane", "--config", "stack.json"]);
    expect(busy.code, busy.stdout + busy.stderr).toBe(1);
    expect(busy.stderr).toContain("takoform.engine/upgrade-lane-in-flight");
    expect(busy.stderr).toContain("State holds 1 write still in flight");
    expect(busy.stderr).toContain(`${KV}.c (creating)`);
    expect(await snapshot(project)).toEqual(inFlight);
    // Refused before any object was read or written.
    expect(proxy.log.slice(sentBefore).filter((e) => /\/resources\//.test(e.target))).toEqual([]);

    const settled = await cli(project, ["apply", "--config", "stack.json", "--auto-approve"], ALPHA.name);
    expect(settled.code, settled.stdout + settled.stderr).toBe(0);
    const before = await snapshot(project);
    expect(before).toMatchObject({ lane: ALPHA.hostApiVersion, groups: [ALPHA.edgeGroups.bundled], inFlight: [] });
    expect(Object.keys(before.uids).sort()).toEqual([`${KV}.a`, `${KV}.b`, `${KV}.c`]);

    // Objects of the same names under the v1beta1 identities — other incarnations, other uids.
    other.write("stack.json", stack(["keep-a", "keep-b", "keep-c"]));
    const impostors = await cli(other, ["apply", "--config", "stack.json", "--auto-approve"], BETA.name);
    expect(impostors.code, impostors.stdout + impostors.stderr).toBe(0);
    const theirs = await snapshot(other);
    const mutated = mutations().length;

    const refused = await cli(project, ["state", "upgrade-lane", "--config", "stack.json"]);
    expect(refused.code, refused.stdout + refused.stderr).toBe(1);
    expect(refused.stderr).toContain("takoform.engine/upgrade-lane-unverified");
    expect(refused.stderr).toContain(`3 of 3 recorded objects are not held under ${BETA.hostApiVersion} identities as state records them`);
    for (const key of ["a", "b", "c"]) {
      // The provider's UID rule decides: the read under the new identity names both incarnations.
      expect(refused.stderr).toContain(`${KV}.${key}: EdgeKVNamespace is a different incarnation than state records`);
      expect(refused.stderr).toContain(`Expected UID: ${before.uids[`${KV}.${key}`]}\n  Current UID: ${theirs.uids[`${KV}.${key}`]}`);
    }
    expect(refused.stderr.match(/Code: takoform\.provider\/uid-mismatch/g)).toHaveLength(3);
    expect(refused.stderr).toContain("Nothing is ever re-bound by name alone.");
    expect(await snapshot(project)).toEqual(before);
    expect(mutations().length).toBe(mutated);
  }, 180_000);
});
