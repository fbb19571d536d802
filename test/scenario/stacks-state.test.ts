// One state per stack, through the command, against the embedded host (issue 22, item 1). A cdktf
// app of two stacks: `shared` (a KV namespace and a queue) and `api` (a worker that binds the
// namespace by its name). Before, every stack of an app mapped to the one `.takoform/state.db`, so
// `apply --stack api` planned shared's resources as "not in configuration" and destroyed them.
// Each stage below checks what the host holds, exactly, by reading the embedded host's own data.

import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { openLocalStateReadOnly } from "../../src/state/index.ts";
import type { CliResult } from "./harness.ts";
import { hostHolds, stacksCli, stacksOk, stacksProject } from "./stacks-app.ts";

const SHARED = `
class Shared extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    new TakoformProvider(this, "takoform", {});
    new EdgeKVNamespace(this, "kv", { name: "shared-kv" });
    new AtLeastOnceQueue(this, "q", { name: "shared-q", messageRetentionSeconds: 3600 });
  }
}`;

const API = `
class Api extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    new TakoformProvider(this, "takoform", {});
    new WorkerApp(this, "api", { name: "api", contentDir: "dist", kvBindings: { KV: "shared-kv" } });
  }
}`;

/** The app's main.ts with the given stacks (class name → stack name). */
function main(stacks: Record<string, string>): string {
  return [
    'import { App, TerraformStack } from "cdktf";',
    'import type { Construct } from "constructs";',
    'import { AtLeastOnceQueue, EdgeKVNamespace, TakoformProvider, WorkerApp } from "takoform-cdk";',
    ...Object.keys(stacks).map((cls) => (cls === "Shared" ? SHARED : API)),
    "const app = new App();",
    ...Object.entries(stacks).map(([cls, name]) => `new ${cls}(app, ${JSON.stringify(name)});`),
    "app.synth();",
  ].join("\n");
}

function project(stacks: Record<string, string>): string {
  return stacksProject(main(stacks));
}

const cli = (dir: string, args: string[]): Promise<CliResult> => stacksCli(dir, args);
const ok = (dir: string, args: string[]): Promise<CliResult> => stacksOk(dir, args);

async function recorded(file: string): Promise<{ stack: string | null; addresses: string[] }> {
  const reader = openLocalStateReadOnly(file);
  try {
    return { stack: await reader.stack(), addresses: (await reader.list()).map((r) => r.address) };
  } finally {
    await reader.close();
  }
}

const SHARED_OBJECTS = ["AtLeastOnceQueue shared-q", "EdgeKVNamespace shared-kv"];

describe("one state per stack", () => {
  it("apply shared, apply api, apply both, destroy both: the host holds exactly what each stage configures", async () => {
    const dir = project({ Shared: "shared", Api: "api" });

    const shared = await ok(dir, ["apply", "--stack", "shared", "--auto-approve"]);
    expect(shared.stdout).toContain("Apply complete! Resources: 2 added, 0 changed, 0 destroyed.");
    expect(hostHolds(dir)).toEqual(SHARED_OBJECTS);

    // The bug: this planned shared's two resources as "not in configuration" and destroyed them.
    const api = await ok(dir, ["apply", "--stack", "api", "--auto-approve"]);
    expect(api.stdout).not.toContain("will be destroyed");
    expect(api.stdout).toMatch(/Apply complete! Resources: \d+ added, 0 changed, 0 destroyed\./);
    const both = hostHolds(dir);
    expect(both.filter((o) => !SHARED_OBJECTS.includes(o))).toEqual([
      "ModuleWorker api",
      expect.stringMatching(/^WorkerBundle bundle-/),
      "WorkerDeployment api-deployment",
      expect.stringMatching(/^WorkerVersion version-/),
    ]);
    expect(both).toEqual(expect.arrayContaining(SHARED_OBJECTS));

    // Each stack's state is its own, records its stack, and holds only its own resources.
    expect(existsSync(join(dir, ".takoform", "state.db"))).toBe(false);
    expect(await recorded(join(dir, ".takoform", "stacks", "shared", "state.db"))).toEqual({
      stack: "shared",
      addresses: ["takoform_at_least_once_queue.q", "takoform_edge_kv_namespace.kv"],
    });
    const apiState = await recorded(join(dir, ".takoform", "stacks", "api", "state.db"));
    expect(apiState.stack).toBe("api");
    expect(apiState.addresses).toHaveLength(4);
    expect(apiState.addresses.every((a) => !a.startsWith("takoform_edge_kv_namespace") && !a.startsWith("takoform_at_least_once_queue"))).toBe(true);
    const listed = await ok(dir, ["state", "list", "--stack", "shared"]);
    expect(listed.stdout.trim().split("\n")).toEqual(["takoform_at_least_once_queue.q", "takoform_edge_kv_namespace.kv"]);

    // Both in one command: each stack plans against its own state, and nothing changes.
    const again = await ok(dir, ["apply", "shared", "api", "--auto-approve"]);
    expect(again.stdout).toContain("Apply complete! 2 stacks: 0 added, 0 changed, 0 destroyed.");
    expect(again.stdout).not.toContain("will be destroyed");
    expect(hostHolds(dir)).toEqual(both);

    const apiGone = await ok(dir, ["destroy", "--stack", "api", "--auto-approve"]);
    expect(apiGone.stdout).toContain("Destroy complete! Resources: 4 destroyed.");
    expect(hostHolds(dir)).toEqual(SHARED_OBJECTS);
    const sharedGone = await ok(dir, ["destroy", "--stack", "shared", "--auto-approve"]);
    expect(sharedGone.stdout).toContain("Destroy complete! Resources: 2 destroyed.");
    expect(hostHolds(dir)).toEqual([]);
  }, 300_000);

  it("two stacks whose backends name one state are refused before anything is read, naming both", async () => {
    const dir = project({ Shared: "shared", Api: "api" });
    const source = readFileSync(join(dir, "main.ts"), "utf8")
      .replace('import { App, TerraformStack } from "cdktf";', 'import { App, LocalBackend, TerraformStack } from "cdktf";')
      .replaceAll(
        'new TakoformProvider(this, "takoform", {});',
        'new TakoformProvider(this, "takoform", {});\n    new LocalBackend(this, { path: "one.db" });',
      );
    writeFileSync(join(dir, "main.ts"), source);
    for (const stack of ["shared", "api"]) {
      const refused = await cli(dir, ["plan", "--stack", stack]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('The stacks "api" and "shared" would share one state');
      expect(refused.stderr).toContain("takoform.engine/stack-state-shared");
    }
    expect(existsSync(join(dir, "one.db"))).toBe(false);
    expect(hostHolds(dir)).toEqual([]);
  }, 120_000);

  it("a state another stack wrote is refused before anything is read or written, naming both stacks", async () => {
    const dir = project({ Shared: "shared", Api: "api" });
    await ok(dir, ["apply", "--stack", "shared", "--auto-approve"]);
    // api's synthesized stack, pointed (outside the app, so no other stack is known) at shared's state.
    const synthesized = JSON.parse(readFileSync(join(dir, "cdktf.out", "stacks", "api", "cdk.tf.json"), "utf8"));
    synthesized.terraform.backend = { local: { path: ".takoform/stacks/shared/state.db" } };
    writeFileSync(join(dir, "api.json"), JSON.stringify(synthesized));
    const before = readFileSync(join(dir, ".takoform", "stacks", "shared", "state.db"));
    for (const args of [
      ["plan", "--config", "api.json"],
      ["apply", "--config", "api.json", "--auto-approve"],
      ["state", "list", "--config", "api.json"],
    ]) {
      const refused = await cli(dir, args);
      expect(refused.code, args.join(" ")).toBe(1);
      expect(refused.stderr).toContain('The state in the local state file .takoform/stacks/shared/state.db belongs to stack "shared", not to stack "api"');
      expect(refused.stderr).toContain("takoform.engine/stack-mismatch");
      expect(refused.stdout).not.toContain("will be destroyed");
    }
    expect(readFileSync(join(dir, ".takoform", "stacks", "shared", "state.db")).equals(before)).toBe(true);
    expect(hostHolds(dir)).toEqual(SHARED_OBJECTS);
  }, 180_000);
});

/** What an earlier takoform-cdk left: the stack's state as `.takoform/state.db` (layout 3, no stack recorded) and its record as `.takoform/backend.json`. */
function makeLegacy(dir: string, stack: string): void {
  const own = join(dir, ".takoform", "stacks", stack);
  for (const suffix of ["", "-wal", "-shm"])
    if (existsSync(join(own, `state.db${suffix}`))) renameSync(join(own, `state.db${suffix}`), join(dir, ".takoform", `state.db${suffix}`));
  const record = JSON.parse(readFileSync(join(own, "backend.json"), "utf8"));
  delete record.stack;
  writeFileSync(join(dir, ".takoform", "backend.json"), JSON.stringify(record));
  rmSync(join(dir, ".takoform", "stacks"), { recursive: true });
  const db = new Database(join(dir, ".takoform", "state.db"));
  db.exec("ALTER TABLE info DROP COLUMN stack;");
  db.pragma("user_version = 3");
  db.close();
}

describe("a project from before stacks had their own state", () => {
  it("keeps its .takoform/state.db for the stack that wrote it, also once the app gains a second stack", async () => {
    const dir = project({ Shared: "shared" });
    await ok(dir, ["apply", "--auto-approve"]);
    makeLegacy(dir, "shared");

    // Single-stack: the one stack owns it, unchanged.
    const planned = await ok(dir, ["plan", "--detailed-exitcode"]);
    expect(planned.stdout).toContain("No changes.");
    expect(existsSync(join(dir, ".takoform", "stacks"))).toBe(false);

    // The app gains a second stack: the stack that declares its resources keeps it.
    writeFileSync(join(dir, "main.ts"), main({ Shared: "shared", Api: "api" }));
    const api = await ok(dir, ["apply", "--stack", "api", "--auto-approve"]);
    expect(api.stdout).not.toContain("will be destroyed");
    expect(hostHolds(dir)).toEqual(expect.arrayContaining(SHARED_OBJECTS));
    expect((await recorded(join(dir, ".takoform", "stacks", "api", "state.db"))).stack).toBe("api");
    const again = await ok(dir, ["apply", "--stack", "shared", "--auto-approve"]);
    expect(again.stdout).toContain("No changes.");
    // Used for writing, the file now records its stack; the project's record names it too.
    expect(await recorded(join(dir, ".takoform", "state.db"))).toEqual({
      stack: "shared",
      addresses: ["takoform_at_least_once_queue.q", "takoform_edge_kv_namespace.kv"],
    });
    expect(JSON.parse(readFileSync(join(dir, ".takoform", "backend.json"), "utf8")).stack).toBe("shared");
    expect(existsSync(join(dir, ".takoform", "stacks", "shared"))).toBe(false);

    // A configuration with no stack name no longer uses the claimed file.
    const nameless = JSON.parse(readFileSync(join(dir, "cdktf.out", "stacks", "shared", "cdk.tf.json"), "utf8"));
    delete nameless["//"];
    delete nameless.terraform.backend;
    writeFileSync(join(dir, "nameless.json"), JSON.stringify(nameless));
    const refused = await cli(dir, ["plan", "--config", "nameless.json"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('belongs to stack "shared", not to a stack with no name');

    await ok(dir, ["destroy", "--stack", "api", "--auto-approve"]);
    await ok(dir, ["destroy", "--stack", "shared", "--auto-approve"]);
    expect(hostHolds(dir)).toEqual([]);
  }, 300_000);

  it("holding resources of several stacks, it is refused for them until one adopts it", async () => {
    const dir = project({ Shared: "shared", Api: "api" });
    await ok(dir, ["apply", "--stack", "shared", "--auto-approve"]);
    await ok(dir, ["apply", "--stack", "api", "--auto-approve"]);
    // What the old bug could leave: one file holding records of both stacks.
    const store = (await import("../../src/state/index.ts")).openLocalState(join(dir, ".takoform", "stacks", "shared", "state.db"));
    const apiReader = openLocalStateReadOnly(join(dir, ".takoform", "stacks", "api", "state.db"));
    const bundle = (await apiReader.list()).find((r) => r.type === "takoform_worker_bundle")!;
    await apiReader.close();
    await store.putResource(bundle.address, { type: bundle.type, status: "ready", attributes: bundle.attributes, dependencies: bundle.dependencies });
    await store.close();
    rmSync(join(dir, ".takoform", "stacks", "api"), { recursive: true });
    makeLegacy(dir, "shared");

    for (const stack of ["shared", "api"]) {
      const refused = await cli(dir, ["plan", "--stack", stack]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("takoform.engine/legacy-state-ambiguous");
      expect(refused.stderr).toContain('the stacks "api" and "shared" each declare resources it records');
    }
    const adopted = await ok(dir, ["state", "adopt", "--stack", "shared"]);
    expect(adopted.stdout).toContain('is the state of stack "shared"');
    expect((await recorded(join(dir, ".takoform", "state.db"))).stack).toBe("shared");
    // api now plans against a state of its own: nothing of shared's is touched.
    const planned = await ok(dir, ["plan", "--stack", "api"]);
    expect(planned.stdout).toContain("Plan: 4 to add, 0 to change, 0 to destroy.");
  }, 300_000);
});
