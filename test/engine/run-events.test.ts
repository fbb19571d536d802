// The engine, not the command, produces a run's summary and events (issue 15 item 3): an
// embedder calling runApply gets the counts, the outcome and every event the command renders,
// and the JSON the command prints is the engine's rendering of that run.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostClient } from "../../src/client/client.ts";
import { DEV_TOKEN, LocalHost } from "../../src/host/index.ts";
import { HostProvider } from "../../src/provider/provider.ts";
import { bundledRegistry } from "../../src/registry/bundled.ts";
import { resolveVariables } from "../../src/engine/config/variables/resolve.ts";
import { PLAN_SETUPS } from "../../src/engine/plan/build.ts";
import { runApply, type EngineEvent } from "../../src/engine/index.ts";
import { runClosingLines, runToJson } from "../../src/views/index.ts";
import { stackOf, withScratch } from "../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";

describe("a plan is an ordered list of named phases, one setup per mode", () => {
  it("normal, destroy and refresh-only plans run these phases, in this order", () => {
    const names = (mode: keyof typeof PLAN_SETUPS) => PLAN_SETUPS[mode].map((p) => (p.gate ? `${p.name} (gate)` : p.name));
    expect(names("normal")).toEqual([
      "check the state's host (gate)",
      "apply moved blocks to state (gate)",
      "check resource types",
      "resolve dependency cycles",
      "read state",
      "note interrupted writes",
      "scope --target (gate)",
      "check -replace addresses",
      "validate each resource's configuration (gate)",
      "refresh (gate)",
      "read imported objects (gate)",
      "plan each resource",
      "delete orphaned and deposed objects",
      "name where moved objects came from",
      "recognise renames no moved block declares",
      "plan outputs",
      "check that replacements can complete",
      "check nothing deletes what the host needs",
      "check one host object per resource",
      "order the apply steps",
    ]);
    expect(names("destroy")).toEqual([
      "check the state's host (gate)",
      "apply moved blocks to state (gate)",
      "check resource types",
      "resolve dependency cycles",
      "read state",
      "note interrupted writes",
      "scope --target (gate)",
      "refresh (gate)",
      "delete every object",
      "name where moved objects came from",
      "plan outputs",
      "check nothing deletes what the host needs",
      "order the apply steps",
    ]);
    expect(names("refresh-only")).toEqual([
      "check the state's host (gate)",
      "apply moved blocks to state (gate)",
      "check resource types",
      "read state",
      "note interrupted writes",
      "scope --target (gate)",
      "refresh (gate)",
      "plan outputs",
      "order the apply steps",
    ]);
  });
});

describe("runApply reports what it did, as data and as events", () => {
  let host: LocalHost;
  let client: HostClient;
  beforeAll(async () => {
    host = await LocalHost.open({ data: ":memory:", log: () => undefined });
    const { url } = await host.listen("127.0.0.1", 0);
    client = await HostClient.connect({ endpoint: url, token: DEV_TOKEN.token });
  });
  afterAll(async () => {
    client.close();
    await host.close();
  });

  it("counts, outcome and the event stream: the plan first, then each step's start and end", () =>
    withScratch(async (scratch, store) => {
      const provider = new HostProvider({ client, registry: bundledRegistry, defaultSpace: "default" });
      const stack = await stackOf(scratch, {
        resource: { [KV]: { a: { name: "events-a" }, b: { name: "events-b" } } },
        output: { a_name: { value: `\${${KV}.a.name}` } },
      });
      const setup = { provider, stack, variables: resolveVariables(stack.variables, {}) };
      const events: EngineEvent[] = [];
      const run = await runApply(setup, store, { lock: { holder: "test" }, events: (e) => events.push(e) });

      expect(run.status).toBe("applied");
      expect(run.ok).toBe(true);
      expect(run.counts).toEqual({ added: 2, changed: 0, destroyed: 0, imported: 0, forgotten: 0 });
      // The plan is reported before any step starts; every step starts, then ends done.
      expect(events[0]).toMatchObject({ kind: "plan" });
      const steps = events.slice(1).map((e) => ("address" in e ? `${e.kind} ${e.address}` : e.kind));
      expect([...steps].sort()).toEqual([`done ${KV}.a`, `done ${KV}.b`, `start ${KV}.a`, `start ${KV}.b`]);
      for (const address of [`${KV}.a`, `${KV}.b`]) expect(steps.indexOf(`start ${address}`)).toBeLessThan(steps.indexOf(`done ${address}`));

      // What the command prints is the engine's rendering of the same run.
      const json = runToJson("apply", run);
      expect(json).toMatchObject({
        command: "apply",
        status: "applied",
        ok: true,
        added: 2,
        changed: 0,
        destroyed: 0,
        imported: 0,
        outputs: { a_name: { sensitive: false, value: "events-a" } },
      });
      expect(runClosingLines("apply", run)).toEqual(["\nApply complete! Resources: 2 added, 0 changed, 0 destroyed.", "\nOutputs:\n", 'a_name = "events-a"']);

      // Nothing to do: no changes, nothing counted, no step events.
      const quiet: EngineEvent[] = [];
      const again = await runApply(setup, store, { lock: { holder: "test" }, events: (e) => quiet.push(e) });
      expect(again.status).toBe("no-changes");
      expect(again.counts).toEqual({ added: 0, changed: 0, destroyed: 0, imported: 0, forgotten: 0 });
      expect(quiet.map((e) => e.kind)).toEqual(["plan"]);
      expect(runClosingLines("apply", again)).toEqual([]);
    }));
});
