// The takoform command end to end (child processes through bin/takoform.js) against the local
// host served over HTTP by the test, and against the embedded host it starts itself.

import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLocalStateReadOnly } from "../../src/state/index.ts";
import { runCli, Scratch, spawnCli, startHost, type TestHost } from "../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";
const Q = "takoform_at_least_once_queue";
const TOKEN = "takoform-dev-token";

describe("takoform CLI", () => {
  let host: TestHost;
  const scratches: Scratch[] = [];
  const env = () => ({ TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: TOKEN });
  const project = (document: unknown): Scratch => {
    const s = new Scratch();
    scratches.push(s);
    s.write("stack.json", JSON.stringify(document));
    return s;
  };
  beforeAll(async () => {
    host = await startHost();
  });
  afterAll(async () => {
    await host.close();
    for (const s of scratches) s.cleanup();
  });

  it("answers --help for every command", async () => {
    for (const command of ["synth", "plan", "apply", "destroy", "refresh", "import", "state", "output"]) {
      const result = await runCli([command, "--help"], { cwd: process.cwd() });
      expect(result.code, command).toBe(0);
      expect(result.stdout).toContain(`Usage: takoform ${command}`);
    }
  }, 60_000);

  it("plans with --detailed-exitcode (2 changes, 0 none, 1 error), applies, and shows state and outputs", async () => {
    const p = project({
      resource: { [KV]: { a: { name: "cli-a" } }, [Q]: { q: { name: "cli-q", message_retention_seconds: 60 } } },
      output: { a_uid: { value: `\${${KV}.a.uid}` } },
    });
    const planned = await runCli(["plan", "--config", "stack.json", "--detailed-exitcode"], { cwd: p.dir, env: env() });
    expect(planned.code, planned.stderr).toBe(2);
    expect(planned.stdout).toContain("Plan: 2 to add, 0 to change, 0 to destroy.");
    expect(planned.stdout).toContain("(known after apply)");

    const refused = await runCli(["apply", "--config", "stack.json"], { cwd: p.dir, env: env() });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("needs approval, and there is no terminal to ask on");
    const untouched = openLocalStateReadOnly(p.path(".takoform", "state.db"));
    expect(await untouched.list()).toEqual([]);
    await untouched.close();

    const applied = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: p.dir, env: env() });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/takoform_edge_kv_namespace\.a: Creation complete after [0-9.]+s \[uid=[a-z0-9]+\]/);
    expect(applied.stdout).toContain("Apply complete! Resources: 2 added, 0 changed, 0 destroyed.");

    const clean = await runCli(["plan", "--config", "stack.json", "--detailed-exitcode"], { cwd: p.dir, env: env() });
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain("No changes.");

    const list = await runCli(["state", "list"], { cwd: p.dir });
    expect(list.stdout.trim().split("\n")).toEqual([`${Q}.q`, `${KV}.a`]);
    const show = await runCli(["state", "show", `${KV}.a`], { cwd: p.dir });
    expect(show.stdout).toContain(`resource "${KV}" "a" {`);
    expect(show.stdout).toContain('name                    = "cli-a"');
    const output = await runCli(["output", "--json"], { cwd: p.dir });
    const uid = (JSON.parse(output.stdout) as Record<string, { value: string }>)["a_uid"]!.value;
    expect(uid).toMatch(/^[a-z0-9]+$/);

    const rm = await runCli(["state", "rm", `${Q}.q`], { cwd: p.dir });
    expect(rm.code).toBe(0);
    expect(rm.stdout).toContain("The host resource is untouched");
    expect(
      host.host.controls.resource({ tenant: "dev", space: "default", apiVersion: "edge.takoform-cdk.dev/v1beta1", kind: "AtLeastOnceQueue", name: "cli-q" }),
    ).toBeDefined();

    p.write("bad.json", JSON.stringify({ data: { x: {} }, resource: { [KV]: { a: { name: "cli-a" } } } }));
    const bad = await runCli(["plan", "--config", "bad.json", "--detailed-exitcode"], { cwd: p.dir, env: env() });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("`data.x` data sources are not supported");
    expect(bad.stderr).toContain("takoform.config/unsupported-block");

    for (const text of [planned.stdout, planned.stderr, applied.stdout, applied.stderr, readFileSync(p.path(".takoform", "state.db")).toString("latin1")]) {
      expect(text).not.toContain(TOKEN);
    }
  }, 60_000);

  it("emits the plan and the apply summary as JSON", async () => {
    const p = project({ resource: { [KV]: { j: { name: "cli-json" } } } });
    const planned = await runCli(["plan", "--config", "stack.json", "--json"], { cwd: p.dir, env: env() });
    expect(planned.code).toBe(0);
    const json = JSON.parse(planned.stdout) as Record<string, any>;
    expect(json["resource_changes"][0]).toMatchObject({ address: `${KV}.j`, type: KV, name: "j", change: { actions: ["create"] } });
    expect(json["resource_changes"][0].change.after_unknown.uid).toBe(true);
    expect(json["steps"]).toEqual([{ id: `create:${KV}.j`, address: `${KV}.j`, action: "create", depends_on: [] }]);
    expect(json["diagnostics"]).toEqual([]);
    const applied = await runCli(["apply", "--config", "stack.json", "--auto-approve", "--json"], { cwd: p.dir, env: env() });
    expect(applied.code, applied.stderr).toBe(0);
    const summary = JSON.parse(applied.stdout) as Record<string, any>;
    expect(summary).toMatchObject({ command: "apply", status: "applied", ok: true, added: 1 });
    expect(summary["steps"][0]).toMatchObject({ id: `create:${KV}.j`, status: "ok" });
    expect(summary["steps"][0].uid).toMatch(/^[a-z0-9]+$/);
  }, 60_000);

  it("applies a saved plan exactly and refuses it once state moved", async () => {
    const p = project({ resource: { [KV]: { s: { name: "cli-saved" } } } });
    // An older file others may read is replaced by one only its owner reads (writeFile's mode would keep 0644).
    writeFileSync(p.path("tfplan"), "an older plan", { mode: 0o644 });
    const saved = await runCli(["plan", "--config", "stack.json", "--out", "tfplan"], { cwd: p.dir, env: env() });
    expect(saved.code, saved.stderr).toBe(0);
    expect(statSync(p.path("tfplan")).mode & 0o777).toBe(0o600);
    expect(readdirSync(p.dir).filter((name) => name.includes("tfplan"))).toEqual(["tfplan"]);
    expect(saved.stdout).toContain("takoform apply tfplan");
    p.write("stack.json", JSON.stringify({ resource: { [KV]: { s: { name: "cli-saved-edited" } } } }));
    const applied = await runCli(["apply", "tfplan"], { cwd: p.dir, env: env() });
    expect(applied.code, applied.stderr).toBe(0);
    const reader = openLocalStateReadOnly(p.path(".takoform", "state.db"));
    expect((await reader.list()).map((r) => r.name)).toEqual(["cli-saved"]); // the plan's stack, not the edited file
    await reader.close();
    const stale = await runCli(["apply", "tfplan"], { cwd: p.dir, env: env() });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain("The saved plan is stale: state changed since it was made");
  }, 60_000);

  it("lets one apply hold the state lock: a second fails at once naming the holder, a third waits with --lock-timeout", async () => {
    const p = project({ resource: { [KV]: { l: { name: "cli-lock" } } } });
    let open!: () => void;
    host.gate = new Promise<void>((resolve) => (open = resolve));
    try {
      const first = spawnCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: p.dir, env: env() });
      // Wait until the first run recorded its intent (it holds the lock and waits on the host).
      for (let i = 0; i < 200; i++) {
        await new Promise((r) => setTimeout(r, 50));
        try {
          const reader = openLocalStateReadOnly(p.path(".takoform", "state.db"));
          const inFlight = await reader.inFlight();
          await reader.close();
          if (inFlight.length > 0) break;
        } catch {
          // not created yet
        }
      }
      const second = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: p.dir, env: env() });
      expect(second.code).toBe(1);
      expect(second.stderr).toContain("The state is locked by another run");
      expect(second.stderr).toContain(`takoform apply (pid ${first.pid}`);
      expect(second.stderr).toContain("--lock-timeout");
      // One that already waited with --lock-timeout is told to wait longer, not to use the flag it used.
      const waited = await runCli(["apply", "--config", "stack.json", "--auto-approve", "--lock-timeout", "300ms"], { cwd: p.dir, env: env() });
      expect(waited.code).toBe(1);
      expect(waited.stderr).toContain("This run waited 300ms (--lock-timeout)");
      expect(waited.stderr).toContain("a longer --lock-timeout");
      expect(waited.stderr).not.toContain("retry with --lock-timeout DURATION");
      const third = spawnCli(["apply", "--config", "stack.json", "--auto-approve", "--lock-timeout", "30s"], { cwd: p.dir, env: env() });
      await new Promise((r) => setTimeout(r, 1500));
      open();
      const [a, c] = await Promise.all([first.done, third.done]);
      expect(a.code, a.stderr).toBe(0);
      expect(c.code, c.stderr).toBe(0);
      expect(c.stdout).toContain("No changes.");
    } finally {
      host.gate = null;
      open?.();
    }
  }, 60_000);

  it("imports an existing resource by ADDRESS and ID, then plans no changes", async () => {
    const p = project({ resource: { [Q]: { i: { name: "cli-import", message_retention_seconds: 120 } } } });
    const other = project({ resource: { [Q]: { i: { name: "cli-import", message_retention_seconds: 120 } } } });
    expect((await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: other.dir, env: env() })).code).toBe(0);
    const imported = await runCli(["import", "--config", "stack.json", `${Q}.i`, "default/cli-import"], { cwd: p.dir, env: env() });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain("Import successful!");
    const again = await runCli(["import", "--config", "stack.json", `${Q}.i`, "default/cli-import"], { cwd: p.dir, env: env() });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("is already managed");
    const planned = await runCli(["plan", "--config", "stack.json", "--detailed-exitcode"], { cwd: p.dir, env: env() });
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
  }, 60_000);

  it("records what changed on the host with `refresh`, and --refresh-only plans show it first", async () => {
    const p = project({ resource: { [KV]: { r: { name: "cli-refresh" } } } });
    expect((await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: p.dir, env: env() })).code).toBe(0);
    host.host.controls.deleteOutOfBand({
      tenant: "dev",
      space: "default",
      apiVersion: "edge.takoform-cdk.dev/v1beta1",
      kind: "EdgeKVNamespace",
      name: "cli-refresh",
    });
    const shown = await runCli(["plan", "--config", "stack.json", "--refresh-only", "--detailed-exitcode"], { cwd: p.dir, env: env() });
    expect(shown.code).toBe(2);
    expect(shown.stdout).toContain(`# ${KV}.r has been deleted`);
    const refreshed = await runCli(["refresh", "--config", "stack.json"], { cwd: p.dir, env: env() });
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(refreshed.stdout).toContain("Refresh complete!");
    expect((await runCli(["state", "list"], { cwd: p.dir })).stdout.trim()).toBe("");
    const missing = await runCli(["state", "show", `${KV}.r`], { cwd: p.dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`Error: ${KV}.r is not in state`);
  }, 60_000);

  it("loads the project's own generated registry (.gen/takoform) beside the bundled one", async () => {
    const p = project({ resource: { takoform_other_kv: { o: { name: "cli-gen" } } } });
    const forms = fileURLToPath(new URL("../../registry/packages/forms/other", import.meta.url));
    const got = await runCli(["get", "--forms", forms, "--type-name", "other.takoform-cdk.dev/v1alpha1/EdgeKVNamespace=takoform_other_kv"], { cwd: p.dir });
    expect(got.code, got.stderr).toBe(0);
    const applied = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: p.dir, env: env() });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stderr).toContain("The project's registry (.gen/takoform) replaces the bundled types takoform_other_edge_kv_namespace.");
    expect(applied.stdout).toContain("takoform_other_kv.o: Creation complete");
    expect(
      host.host.controls.resource({ tenant: "dev", space: "default", apiVersion: "other.takoform-cdk.dev/v1alpha1", kind: "EdgeKVNamespace", name: "cli-gen" }),
    ).toBeDefined();
  }, 60_000);

  it("deploys with nothing else running: the embedded local host keeps its data under .takoform/host", async () => {
    const p = project({ resource: { [KV]: { e: { name: "embedded" } } } });
    const bare = { TAKOFORM_ENDPOINT: undefined, TAKOFORM_TOKEN: undefined, TAKOFORM_SPACE: undefined };
    const applied = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: p.dir, env: bare });
    expect(applied.code, applied.stderr).toBe(0);
    const planned = await runCli(["plan", "-C", p.dir, "--config", "stack.json", "--detailed-exitcode"], { cwd: process.cwd(), env: bare });
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    const destroyed = await runCli(["destroy", "--config", "stack.json", "--auto-approve"], { cwd: p.dir, env: bare });
    expect(destroyed.code, destroyed.stderr).toBe(0);
    expect(destroyed.stdout).toContain("1 destroyed");
  }, 60_000);
});
