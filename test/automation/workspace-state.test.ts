// workspace.state, the state operations `takoform state …` is built on, called from a program:
// each returns its result as a value (status, ok, where the state is, diagnostics) and prints
// nothing. The commands' own tests (test/scenario/host-binding, state-migrate, local-backend,
// test/cli/state-damage) check the same operations through the command.

import { afterAll, describe, expect, it } from "vitest";
import { openWorkspace, Workspace } from "takoform-cdk/automation";
import { Scratch } from "../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";

describe("workspace.state on the project's embedded host", () => {
  const p = new Scratch();
  afterAll(() => p.cleanup());

  it("rebind and upgrade-lane say `no-state` before anything was applied, then find the state bound to the embedded host", async () => {
    p.write("stack.json", JSON.stringify({ resource: { [KV]: { a: { name: "state-a" } } } }));
    const ws = openWorkspace({ projectDir: p.dir, configFile: "stack.json" });
    const before = await ws.state.rebind();
    expect(before).toMatchObject({ status: "no-state", ok: false, host: null, diagnostics: [] });
    expect(before.state).toContain("state.db");
    expect(await ws.state.upgradeLane(Workspace.lanes[0]!)).toMatchObject({ status: "no-state", ok: false, rebound: [] });

    expect((await ws.apply()).ok).toBe(true);
    const rebound = await ws.state.rebind({ lockHolder: "workspace-state test" });
    expect(rebound).toMatchObject({ status: "unchanged", ok: true, host: { origin: "embedded" } });
    expect(ws.state.describeHost(rebound.host!)).toMatch(/^the embedded local host/);
  });

  it("lists, shows and pulls the state, and a pulled document pushed back is `unchanged`", async () => {
    const ws = openWorkspace({ projectDir: p.dir, configFile: "stack.json" });
    const listed = await ws.state.list();
    expect(listed).toMatchObject({ status: "listed", ok: true, resources: [{ address: `${KV}.a`, type: KV, status: "ready" }] });
    const shown = await ws.state.show(`${KV}.a`);
    expect(shown).toMatchObject({ status: "found", ok: true, resource: { address: `${KV}.a`, attributes: { name: "state-a" } } });
    expect(await ws.state.show(`${KV}.nope`)).toMatchObject({ status: "not-in-state", ok: false, resource: null, record: null });
    const pulled = await ws.state.pull();
    expect(pulled).toMatchObject({ status: "pulled", ok: true });
    // The record whole is the state document's own entry for it, what `state show --json` prints.
    expect(shown.record).toEqual((pulled.document!["resources"] as unknown[])[0]);
    expect(shown.record).toMatchObject({ address: `${KV}.a`, intent: null, dependencies: [] });
    const bytes = new TextEncoder().encode(JSON.stringify(pulled.document));
    expect(await ws.state.push({ bytes, name: "pulled.json" })).toMatchObject({ status: "unchanged", ok: true, resources: 1 });
  });

  it("a push of a document that cannot be read is refused before the state is opened", async () => {
    const ws = openWorkspace({ projectDir: p.dir, configFile: "stack.json" });
    const pushed = await ws.state.push({ bytes: new TextEncoder().encode("{ not json"), name: "doc.json" });
    expect(pushed).toMatchObject({ status: "refused", ok: false, state: "", lineage: null });
    expect(pushed.diagnostics[0]?.summary).toContain("doc.json");
    const missing = await ws.state.push({ file: "nowhere.json" });
    expect(missing).toMatchObject({ status: "refused", diagnostics: [{ code: "takoform.engine/push-refused", summary: "Cannot read nowhere.json" }] });
  });

  it("migrate with nothing used before records the stack's backend and moves nothing; adopt needs the stack", async () => {
    const ws = openWorkspace({ projectDir: p.dir, configFile: "stack.json" });
    const migrated = await ws.state.migrate();
    expect(migrated).toMatchObject({ ok: true, status: "unchanged" });
    expect(["none", "same"]).toContain(migrated.source);
    expect(await ws.state.adopt()).toMatchObject({ status: "not-started", ok: false });
  });

  it("move renames a record and remove forgets it, each an edit of state alone; an address state lacks is `missing`", async () => {
    const ws = openWorkspace({ projectDir: p.dir, configFile: "stack.json" });
    const moved = await ws.state.move(`${KV}.a`, `${KV}.b`);
    expect(moved).toMatchObject({ status: "moved", ok: true, moved: [{ from: `${KV}.a`, to: `${KV}.b` }], edges: [] });
    expect((await ws.resources()).map((r) => r.address)).toEqual([`${KV}.b`]);
    const removed = await ws.state.remove([`${KV}.b`, `${KV}.c`]);
    expect(removed).toMatchObject({ status: "removed", ok: false, removed: [`${KV}.b`], missing: [`${KV}.c`] });
    expect(await ws.resources()).toEqual([]);
  });
});

describe("workspace.state.output: a sensitive output opened with the Workspace's variables", () => {
  const p = new Scratch();
  afterAll(() => p.cleanup());
  const SECRET = "hunter2-Zq8v-automation";
  const env = { ...process.env, TF_VAR_secret: undefined, TAKOFORM_VAR_secret: undefined };

  it("opens it with the value it was applied with, refuses it without, and names the outputs when one is not there", async () => {
    p.write(
      "stack.json",
      JSON.stringify({
        variable: { secret: { type: "string", sensitive: true } },
        resource: { [KV]: { kv: { name: "so-auto" } } },
        output: {
          plain: { value: `\${${KV}.kv.name}` },
          secret: { value: "${var.secret}", sensitive: true },
          marked: { value: `\${${KV}.kv.name}`, sensitive: true },
        },
      }),
    );
    const given = openWorkspace({ projectDir: p.dir, configFile: "stack.json", variables: { secret: SECRET }, env });
    expect((await given.apply()).ok).toBe(true);

    expect(await given.state.output("secret")).toMatchObject({ status: "opened", ok: true, sensitive: true, value: SECRET });
    expect(await given.state.output("plain")).toMatchObject({ status: "opened", sensitive: false, value: "so-auto" });
    // Only a seal in state: no variable brings it back.
    expect(await given.state.output("marked")).toMatchObject({ status: "refused", ok: false, diagnostics: [{ code: "takoform.engine/output-sealed" }] });
    expect(await given.state.output("nope")).toMatchObject({ status: "not-found", names: ["marked", "plain", "secret"] });

    const without = openWorkspace({ projectDir: p.dir, configFile: "stack.json", env });
    const refused = await without.state.output("secret");
    expect(refused).toMatchObject({ status: "refused", value: undefined, diagnostics: [{ code: "takoform.engine/output-sealed" }] });
    const other = openWorkspace({ projectDir: p.dir, configFile: "stack.json", variables: { secret: "another" }, env });
    expect(await other.state.output("secret")).toMatchObject({ status: "refused", value: undefined });

    // All of them from one read: the seal-only one `sealed` (a warning), the others opened.
    const all = await given.state.outputs();
    expect(all).toMatchObject({ status: "opened", ok: true, diagnostics: [] });
    expect(all.outputs).toEqual({
      plain: { status: "opened", sensitive: false, value: "so-auto", diagnostics: [] },
      secret: { status: "opened", sensitive: true, value: SECRET, diagnostics: [] },
      marked: {
        status: "sealed",
        sensitive: true,
        value: undefined,
        diagnostics: [expect.objectContaining({ severity: "warning", code: "takoform.engine/output-sealed" })],
      },
    });
    const refusedAll = await other.state.outputs();
    expect(refusedAll).toMatchObject({
      status: "refused",
      ok: false,
      outputs: { secret: { status: "refused", value: undefined }, marked: { status: "sealed" } },
    });
    // A variables file that cannot be read: refused as a whole, nothing opened.
    const unreadable = openWorkspace({ projectDir: p.dir, configFile: "stack.json", varFiles: ["nowhere.tfvars.json"], env });
    const noFile = await unreadable.state.outputs();
    expect(noFile).toMatchObject({ status: "refused", ok: false, outputs: {} });
    expect(noFile.diagnostics.length).toBeGreaterThan(0);
  });
});
