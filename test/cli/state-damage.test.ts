// Issue 26, item 4, through the command: state that never crashes it.
//
// - Simultaneous first runs in a new project (no state file yet, the embedded host; of a stack
//   file, and of an app, each run synthesizing it into cdktf.out at once): every apply
//   either proceeds or waits for the lock (--lock-timeout), every `state list` beside them reads
//   no state or a whole one — none prints "not a takoform state" or a stack trace.
// - A damaged state file — bytes overwritten in the middle, cut short, emptied, another program's
//   SQLite file in its place — gets one diagnostic naming the file and the repair, from every
//   reader (`state list/show/pull`, `output`, `show`), `plan` and a writer (`apply`), and the file
//   is left byte for byte as it was.
// - Every run that writes state keeps a backup first (`state.db.backup`, checked whole), and
//   `takoform state restore-backup` puts it back: the records the backup holds are listed again
//   and the next apply finishes the job.

import { readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, Scratch, spawnCli } from "../scenario/harness.ts";
import { stacksProject } from "../scenario/stacks-app.ts";

const KV = "takoform_edge_kv_namespace";
const bare = { TAKOFORM_ENDPOINT: undefined, TAKOFORM_TOKEN: undefined, TAKOFORM_SPACE: undefined };
const scratches: Scratch[] = [];
afterAll(() => {
  for (const s of scratches) s.cleanup();
});

function project(names: string[]): Scratch {
  const scratch = new Scratch();
  scratches.push(scratch);
  scratch.write("stack.json", JSON.stringify({ resource: { [KV]: Object.fromEntries(names.map((n) => [n, { name: `damage-${n}` }])) } }));
  return scratch;
}

const run = (scratch: Scratch, args: string[]) => runCli(args, { cwd: scratch.dir, env: bare, timeoutMs: 180_000 });

/** No stack trace: no `    at …` frame, no Node's uncaught-error footer. */
function noStackTrace(text: string): void {
  expect(text).not.toMatch(/^\s+at .+[:(]/m);
  expect(text).not.toContain("Node.js v");
}

describe("simultaneous first runs", () => {
  it("four applies and four state lists at once in a new project: each apply proceeds or waits, each reader sees no state or a whole one", async () => {
    const scratch = project(["a", "b"]);
    const applies = Array.from({ length: 4 }, () =>
      spawnCli(["apply", "--config", "stack.json", "-auto-approve", "-lock-timeout=150s"], { cwd: scratch.dir, env: bare, timeoutMs: 180_000 }),
    );
    const readers = Array.from({ length: 4 }, () => spawnCli(["state", "list", "--config", "stack.json"], { cwd: scratch.dir, env: bare }));
    const applied = await Promise.all(applies.map((a) => a.done));
    const read = await Promise.all(readers.map((r) => r.done));
    for (const result of applied) {
      expect(result.code, result.stdout + result.stderr).toBe(0);
      noStackTrace(result.stderr);
    }
    // One apply created both; the others, after waiting, found nothing to change.
    expect(applied.filter((r) => r.stdout.includes("Apply complete! Resources: 2 added")).length).toBe(1);
    for (const result of read) {
      noStackTrace(result.stderr);
      expect(result.stderr).not.toContain("not a takoform state");
      if (result.code === 0) expect(["", `${KV}.a\n${KV}.b\n`]).toContain(result.stdout);
      else expect(result.stderr).toContain("No state: nothing has been applied in this project yet");
    }
  }, 240_000);

  it("the same in a new project of an app (cdktf.json): three applies and two state lists at once, each synthesizing it", async () => {
    const dir = stacksProject(`import { App, TerraformStack } from "cdktf";
import { EdgeKVNamespace, TakoformProvider } from "takoform-cdk";
const app = new App();
const stack = new TerraformStack(app, "main");
new TakoformProvider(stack, "takoform", {});
new EdgeKVNamespace(stack, "kv", { name: "first-runs-kv" });
app.synth();
`);
    const applies = Array.from({ length: 3 }, () =>
      spawnCli(["apply", "-auto-approve", "-lock-timeout=150s", "--no-typecheck"], { cwd: dir, env: bare, timeoutMs: 180_000 }),
    );
    const readers = Array.from({ length: 2 }, () => spawnCli(["state", "list", "--no-typecheck"], { cwd: dir, env: bare, timeoutMs: 180_000 }));
    const applied = await Promise.all(applies.map((a) => a.done));
    const read = await Promise.all(readers.map((r) => r.done));
    for (const result of applied) {
      expect(result.code, result.stdout + result.stderr).toBe(0);
      noStackTrace(result.stderr);
    }
    expect(applied.filter((r) => r.stdout.includes("Apply complete! Resources: 1 added")).length).toBe(1);
    for (const result of read) {
      noStackTrace(result.stderr);
      expect(result.stderr).not.toContain("not a takoform state");
      if (result.code === 0) expect(["", `${KV}.kv\n`]).toContain(result.stdout);
      else expect(result.stderr).toContain("No state: nothing has been applied in this project yet");
    }
  }, 240_000);
});

type Damage = (file: string) => void;

const DAMAGES: [string, Damage, RegExp][] = [
  [
    "bytes overwritten in the middle",
    (file) => {
      const bytes = readFileSync(file);
      bytes.fill(0x41, Math.floor(bytes.length / 2), Math.floor(bytes.length / 2) + 4096);
      writeFileSync(file, bytes);
    },
    /Error: The state file .*state\.db is damaged\n\n {2}Its bytes are damaged/,
  ],
  ["cut short", (file) => truncateSync(file, Math.floor(statSync(file).size / 2)), /Error: The state file .*state\.db is damaged\n\n {2}Its bytes are damaged/],
  ["emptied to zero bytes", (file) => truncateSync(file, 0), /Error: The state file .*state\.db is damaged\n\n {2}The file is empty \(0 bytes\)\./],
  [
    "another program's SQLite file",
    (file) => {
      writeFileSync(file, "");
      const db = new Database(file);
      db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('mine');");
      db.close();
    },
    /Error: .*state\.db is not a takoform state file\n\n {2}It is an SQLite database, but not a takoform state \(application_id differs\)\./,
  ],
];

describe("a damaged state file", () => {
  for (const [what, damage, message] of DAMAGES) {
    it(`${what}: a diagnostic naming the file and its repair, the file untouched; restore-backup puts the backup back`, async () => {
      const scratch = project(["a", "b"]);
      const file = scratch.path(".takoform", "state.db");
      expect((await run(scratch, ["apply", "--config", "stack.json", "-auto-approve"])).code).toBe(0);
      // The second run's backup holds a and b; it then adds c.
      scratch.write("stack.json", JSON.stringify({ resource: { [KV]: { a: { name: "damage-a" }, b: { name: "damage-b" }, c: { name: "damage-c" } } } }));
      const second = await run(scratch, ["apply", "--config", "stack.json", "-auto-approve"]);
      expect(second.stdout, second.stderr).toContain("Apply complete! Resources: 1 added, 0 changed, 0 destroyed.");
      // Everything the state holds is in the main file (the last connection checkpointed the WAL).
      damage(file);
      const damaged = readFileSync(file);

      for (const args of [
        ["state", "list", "--config", "stack.json"],
        ["state", "show", `${KV}.a`, "--config", "stack.json"],
        ["state", "pull", "--config", "stack.json"],
        ["output", "--config", "stack.json"],
        ["show", "--config", "stack.json"],
        ["plan", "--config", "stack.json"],
        ["apply", "--config", "stack.json", "-auto-approve"],
      ]) {
        const result = await run(scratch, args);
        expect(result.code, `${args.join(" ")}\n${result.stdout}${result.stderr}`).toBe(1);
        expect(result.stderr, args.join(" ")).toMatch(message);
        expect(result.stderr).toContain("Code: takoform.engine/state-damaged");
        expect(result.stderr).toMatch(
          what === "another program's SQLite file" ? /This file belongs to another program/ : /Run `takoform state restore-backup`/,
        );
        noStackTrace(result.stderr);
        expect(readFileSync(file).equals(damaged), "the damaged file is left as it was").toBe(true);
      }

      const restored = await run(scratch, ["state", "restore-backup", "--config", "stack.json"]);
      expect(restored.code, restored.stdout + restored.stderr).toBe(0);
      expect(restored.stdout).toMatch(
        /^Restored the local state file \.takoform\/state\.db from .*state\.db\.backup \(serial \d+, 2 resources\)\. The damaged file is kept as .*state\.db\.before-restore-/,
      );
      const list = await run(scratch, ["state", "list", "--config", "stack.json"]);
      expect(list.stdout).toBe(`${KV}.a\n${KV}.b\n`);
      // c exists on the host but not in the backup: the next apply meets it, as the message said.
      const plan = await run(scratch, ["plan", "--config", "stack.json"]);
      expect(plan.stdout).toContain("Plan: 1 to add, 0 to change, 0 to destroy.");
    }, 120_000);
  }

  it("restore-backup refuses to replace a state that is not damaged and is newer than its backup, unless --force", async () => {
    const scratch = project(["a"]);
    expect((await run(scratch, ["apply", "--config", "stack.json", "-auto-approve"])).code).toBe(0);
    const none = await run(scratch, ["state", "restore-backup", "--config", "stack.json"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("Error: There is no backup of");
    scratch.write("stack.json", JSON.stringify({ resource: { [KV]: { a: { name: "damage-a" }, b: { name: "damage-b" } } } }));
    expect((await run(scratch, ["apply", "--config", "stack.json", "-auto-approve"])).code).toBe(0);
    const before = readFileSync(scratch.path(".takoform", "state.db.backup"));
    const refused = await run(scratch, ["state", "restore-backup", "--config", "stack.json"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("is not damaged, and is newer than its backup");
    const forced = await run(scratch, ["state", "restore-backup", "--config", "stack.json", "--force"]);
    expect(forced.code, forced.stderr).toBe(0);
    expect((await run(scratch, ["state", "list", "--config", "stack.json"])).stdout).toBe(`${KV}.a\n`);
    // The state it replaced became the backup: restoring again undoes the restore.
    expect(readFileSync(scratch.path(".takoform", "state.db.backup")).equals(before)).toBe(false);
    const undone = await run(scratch, ["state", "restore-backup", "--config", "stack.json", "--force"]);
    expect(undone.code, undone.stderr).toBe(0);
    expect((await run(scratch, ["state", "list", "--config", "stack.json"])).stdout).toBe(`${KV}.a\n${KV}.b\n`);
  }, 120_000);
});
