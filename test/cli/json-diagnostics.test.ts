// One diagnostics path for --json (issue 28 item 6): every command that takes --json prints its
// problems as one JSON document on stdout, `{command, ok: false, diagnostics}`, with the exit
// status it has without --json, and nothing on stderr. Each case provokes one problem the way a
// script meets it, in every command that can meet it: a mistyped flag or command, a directory
// that is no project, no state yet, a stack file that does not parse or names an unknown type, an
// app that fails or has no such stack, a saved plan that is no plan, an address or output that is
// not there, a host endpoint nothing listens on, a state another run holds locked, a state file
// that is no database.

import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StateStore } from "../../src/state/index.ts";
import { runCli, Scratch } from "../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";
const STACK = JSON.stringify({ resource: { [KV]: { kv: { name: "json-kv" } } } });
/** An app of two stacks, written the way cdktf writes them (`<outdir>/manifest.json`). */
const TWO_STACKS_APP = `import { mkdirSync, writeFileSync } from "node:fs";
// With WARN set, each stack carries a construct's warning, as cdktf records an annotation.
const ANNOTATIONS = process.env.WARN ? [{ level: "@cdktf/warn", message: "kv is deprecated", constructPath: "kv" }] : [];
const out = process.env.CDKTF_OUTDIR ?? "cdktf.out";
const manifest = { version: "0.20.0", stacks: {} };
for (const name of ["one", "two"]) {
  mkdirSync(\`\${out}/stacks/\${name}\`, { recursive: true });
  // With BROKEN=NAME, that stack names a type no provider serves: it fails to plan, the other plans.
  const type = process.env.BROKEN === name ? "takoform_no_such_type" : "${KV}";
  writeFileSync(\`\${out}/stacks/\${name}/cdk.tf.json\`, JSON.stringify({ resource: { [type]: { kv: { name } } } }));
  manifest.stacks[name] = { name, synthesizedStackPath: \`stacks/\${name}/cdk.tf.json\`, dependencies: [], annotations: ANNOTATIONS };
}
writeFileSync(\`\${out}/manifest.json\`, JSON.stringify(manifest));
`;

/** Where a case runs: a project with no state, one applied, the same state locked, one whose state file is no database, two apps, no project. */
type Where = "fresh" | "applied" | "locked" | "damaged" | "app" | "failing-app" | "outside";
const dirs = {} as Record<Where, string>;
const scratches: Scratch[] = [];
let lockHolder: StateStore;
let closedEndpoint: string;

function project(files: Record<string, string>): string {
  const scratch = new Scratch();
  scratches.push(scratch);
  for (const [name, text] of Object.entries(files)) scratch.write(name, text);
  return scratch.dir;
}

const bare = { TAKOFORM_ENDPOINT: undefined, TAKOFORM_TOKEN: undefined, TAKOFORM_SPACE: undefined };

beforeAll(async () => {
  const files = {
    "pg.json": JSON.stringify({
      terraform: { backend: { pg: { conn_str: "postgres://takoform@127.0.0.1:1/takoform" } } },
      resource: JSON.parse(STACK).resource,
    }),
    "stack.json": STACK,
    "bad.json": "{nope",
    "unknown.json": JSON.stringify({ resource: { takoform_no_such_type: { x: {} } } }),
    "bad.plan": "garbage",
  };
  dirs.fresh = project(files);
  dirs.applied = project(files);
  dirs.damaged = project({ "stack.json": STACK, ".takoform/state.db": "not a database\n".repeat(256) });
  dirs.app = project({ "cdktf.json": JSON.stringify({ app: "node app.mjs" }), "app.mjs": TWO_STACKS_APP });
  dirs["failing-app"] = project({ "cdktf.json": JSON.stringify({ app: "node app.mjs" }), "app.mjs": "process.exit(3);\n" });
  dirs.outside = mkdtempSync(join(tmpdir(), "takoform-json-outside-"));
  const applied = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: dirs.applied, env: bare });
  expect(applied.code, applied.stderr).toBe(0);
  // The same state, held by a live run (this process) for as long as the cases take.
  dirs.locked = project(files);
  cpSync(join(dirs.applied, ".takoform"), join(dirs.locked, ".takoform"), { recursive: true });
  const locked = scratches[scratches.length - 1]!;
  lockHolder = locked.state();
  await lockHolder.acquire({ holder: "apply:json-diagnostics-test", leaseMs: 600_000 });
  // Port 1, as pg.json's backend: a port the kernel handed out and took back can be listened on
  // by another test file before the cases run (unreachable.test.ts met exactly that in CI), while
  // `listen(0)` never hands out a port under 1024.
  closedEndpoint = "http://127.0.0.1:1";
}, 60_000);
afterAll(async () => {
  await lockHolder?.close();
  for (const scratch of scratches) scratch.cleanup();
  rmSync(dirs.outside, { recursive: true, force: true });
});

interface Case {
  args: string[];
  where: Where;
  /** The document's `command`: the subcommand's own name once it runs, the dispatcher's before. */
  command: string;
  /** The first diagnostic's code (every diagnostic has one). */
  code: string;
  summary?: string;
  /** Point the provider at a loopback port nothing listens on. */
  unreachable?: true;
  env?: Record<string, string>;
  /** A run of several stacks: the stack the first diagnostic names (`stack`). */
  stack?: string;
}

const C = ["--config", "stack.json"];
const usage = (args: string[], command: string): Case => ({ args: [...args, "--no-such-flag"], where: "fresh", command, code: "takoform.cli/usage" });
const at = (where: Where, command: string, code: string, ...args: string[]): Case => ({ args, where, command, code });

const CASES: Case[] = [
  // A mistake in how the command was invoked: the dispatcher's, named after the command typed.
  ...["plan", "apply", "import", "synth", "show", "output", "init", "get", "dev"].map((c) => usage([c], c)),
  usage(["state", "list"], "state"),
  usage(["forms", "inspect"], "forms"),
  usage(["host", "serve"], "host"),
  usage(["host", "upgrade-lane"], "host"),
  at("fresh", "state", "takoform.cli/usage", "state", "show", ...C),
  at("fresh", "aply", "takoform.cli/unknown-command", "aply"),
  at("fresh", "plan", "takoform.cli/usage", "-chdir=no-such-dir", "plan"),
  // No project here, and none above.
  ...["plan", "apply", "synth", "output"].map((c) => at("outside", c, "takoform.config/project-not-found", c)),
  at("outside", "state list", "takoform.config/project-not-found", "state", "list"),
  at("outside", "state rebind", "takoform.config/project-invalid", "state", "rebind"),
  // No state yet.
  ...["list", "pull", "rebind", "upgrade-lane"].map((s) => at("fresh", `state ${s}`, "takoform.cli/no-state", "state", s, ...C)),
  at("fresh", "state show", "takoform.cli/no-state", "state", "show", ...C, `${KV}.kv`),
  at("fresh", "state rm", "takoform.cli/no-state", "state", "rm", ...C, `${KV}.kv`),
  at("fresh", "state mv", "takoform.cli/no-state", "state", "mv", ...C, `${KV}.kv`, `${KV}.kv2`),
  at("fresh", "output", "takoform.cli/output-not-found", "output", ...C, "nope"),
  // A stack file that is not there, does not parse, or names a type no provider serves.
  at("fresh", "plan", "takoform.config/file-not-found", "plan", "--config", "missing.json"),
  at("fresh", "destroy", "takoform.config/invalid-json", "destroy", "--auto-approve", "--config", "bad.json"),
  ...["refresh", "show"].map((c) => at("fresh", c, "takoform.config/invalid-json", c, "--config", "bad.json")),
  at("fresh", "state pull", "takoform.config/invalid-json", "state", "pull", "--config", "bad.json"),
  at("fresh", "plan", "takoform.engine/unknown-resource-type", "plan", "--config", "unknown.json"),
  at("fresh", "apply", "takoform.engine/unknown-resource-type", "apply", "--auto-approve", "--config", "unknown.json"),
  // An app that fails, or has no stack of that name.
  ...["plan", "synth"].map((c) => at("failing-app", c, "takoform.config/app-failed", c)),
  ...["apply", "output", "state list"].map((c) => at("app", c, "takoform.config/stack-not-found", ...c.split(" "), "--stack", "nope")),
  { ...at("app", "synth", "takoform.config/stack-not-found", "synth", "--stack", "nope"), summary: 'The app has no stack named "nope"' },
  // A run of several stacks, one of which fails: its error is in the top-level diagnostics too.
  ...["plan *", "apply * --auto-approve", "destroy * --auto-approve"].map((c): Case => ({
    ...at("app", c.split(" ")[0]!, "takoform.engine/unknown-resource-type", ...c.split(" ")),
    env: { BROKEN: "two" },
    stack: "two",
  })),
  // A saved plan that is no plan, and one that cannot be saved.
  at("fresh", "apply", "takoform.engine/plan-file-invalid", "apply", "bad.plan"),
  at("fresh", "show", "takoform.engine/plan-file-invalid", "show", "bad.plan"),
  {
    ...at("applied", "plan", "takoform.cli/plan-not-saved", "plan", ...C, "--out", "no-such-dir/x.plan"),
    summary: "Cannot save the plan to no-such-dir/x.plan",
  },
  // What is not in state, or already is.
  at("applied", "state show", "takoform.cli/not-in-state", "state", "show", ...C, `${KV}.nope`),
  at("applied", "output", "takoform.cli/output-not-found", "output", ...C, "nope"),
  at("applied", "import", "takoform.engine/import-target-undeclared", "import", ...C, `${KV}.nope`, "some-id"),
  at("applied", "import", "takoform.engine/import-already-managed", "import", ...C, `${KV}.kv`, "some-id"),
  at("applied", "state push", "takoform.config/invalid-json", "state", "push", ...C, "bad.json"),
  // A state command that runs and finds an address missing: its own document, with command and ok.
  at("applied", "state rm", "takoform.cli/not-in-state", "state", "rm", ...C, `${KV}.nope`),
  at("applied", "state mv", "takoform.engine/move-source-missing", "state", "mv", ...C, `${KV}.nope`, `${KV}.nope2`),
  // A host endpoint nothing listens on.
  ...["plan", "state rebind"].map((c): Case => ({
    ...at("applied", c.replace(" --auto-approve", ""), "takoform.provider/host-connection-refused", ...c.split(" "), ...C),
    unreachable: true,
  })),
  // A state backend nothing listens on (a pg backend on a closed loopback port).
  ...["plan", "state list"].map((c): Case => ({
    ...at("fresh", c, "takoform.engine/backend-unavailable", ...c.split(" "), "--config", "pg.json"),
    env: { TAKOFORM_PG_TIMEOUT: "2s" },
  })),
  // A state another run holds.
  ...["apply --auto-approve", "refresh", "state rebind", "state restore-backup", `state rm ${KV}.kv`, `state mv ${KV}.kv ${KV}.kv2`].map((c) =>
    at("locked", c.split(" ").slice(0, 2).join(" ").replace(" --auto-approve", ""), "takoform.engine/state-locked", ...c.split(" "), ...C),
  ),
  // A state file that is no database (the dispatcher reports it, under the command typed).
  ...["plan", "output", "state list"].map((c) => at("damaged", c.split(" ")[0]!, "takoform.engine/state-damaged", ...c.split(" "), ...C)),
  // Definitions that do not parse (bad.json is one), and a project that is not empty.
  at("fresh", "forms inspect", "takoform.forms/json-invalid", "forms", "inspect", "."),
  at("fresh", "forms check", "takoform.forms/json-invalid", "forms", "check", "."),
  at("fresh", "get", "takoform.generate/definition-refused", "get", "--forms", "."),
  { ...at("applied", "init", "takoform.cli/directory-not-empty", "init", "."), summary: "is not empty" },
  // A run that needs approval, with no terminal to ask on (the cases' stdin is none).
  at("fresh", "apply", "takoform.cli/approval-required", "apply", ...C),
  at("applied", "destroy", "takoform.cli/approval-required", "destroy", ...C),
];

describe("--json problems are JSON diagnostics", () => {
  for (const c of CASES) {
    it(`takoform ${c.args.join(" ")} (${c.where})`, async () => {
      const env = { ...bare, ...c.env, ...(c.unreachable ? { TAKOFORM_ENDPOINT: closedEndpoint } : {}) };
      const plain = await runCli(c.args, { cwd: dirs[c.where], env });
      const json = await runCli([...c.args, "--json"], { cwd: dirs[c.where], env });
      expect(json.code, json.stderr).toBe(plain.code);
      expect(json.code).toBe(1);
      const document = JSON.parse(json.stdout) as {
        command: string;
        ok: boolean;
        diagnostics: { severity: string; code?: string; summary: string; stack?: string }[];
      };
      expect(document).toMatchObject({ command: c.command, ok: false });
      const first = document.diagnostics[0]!;
      expect(first).toMatchObject({ severity: "error" });
      expect(first.code).toBe(c.code);
      if (c.summary !== undefined) expect(first.summary).toContain(c.summary);
      if (c.stack !== undefined) expect(first).toMatchObject({ stack: c.stack });
      // The problem is said once, in the document: nothing of it as text on stderr.
      expect(json.stderr).toBe("");
      // Without --json it is text (a plan's own problems are part of the plan, on stdout).
      expect(plain.stderr + plain.stdout).toContain(first.summary.replace(/^takoform [^:]+: /, ""));
    });
  }
});

describe("--json keeps every problem of a run that goes on", () => {
  it("a warning the app reported is in plan --json's diagnostics, as it is on stderr without", async () => {
    const env = { ...bare, WARN: "1" };
    const plain = await runCli(["plan", "--stack", "one"], { cwd: dirs.app, env });
    const json = await runCli(["plan", "--stack", "one", "--json"], { cwd: dirs.app, env });
    expect([plain.code, json.code], json.stderr).toEqual([0, 0]);
    expect(plain.stderr).toContain("Warning: kv is deprecated");
    const document = JSON.parse(json.stdout) as { diagnostics: { severity: string; code: string; summary: string }[] };
    expect(document.diagnostics).toContainEqual(
      expect.objectContaining({ severity: "warning", code: "takoform.config/app-annotation", summary: "kv is deprecated" }),
    );
    expect(json.stderr).toBe("");
  });
});

describe("--json keeps the app's warnings in an apply, destroy or refresh", () => {
  // In this order on one state: apply creates `one`, refresh reads it, destroy removes it, and an
  // apply that cannot ask (-input=false, no --auto-approve) is refused after its plan.
  const RUNS: { args: string[]; code: number; ok: boolean; unreachable?: true }[] = [
    { args: ["apply", "--stack", "one", "--auto-approve"], code: 0, ok: true },
    { args: ["refresh", "--stack", "one"], code: 0, ok: true },
    { args: ["destroy", "--stack", "one", "--auto-approve"], code: 0, ok: true },
    { args: ["apply", "--stack", "one", "-input=false"], code: 1, ok: false },
    // A run that cannot start (no host listens): the warnings, then why.
    { args: ["apply", "--stack", "one", "--auto-approve"], code: 1, ok: false, unreachable: true },
  ];
  for (const run of RUNS) {
    it(`takoform ${run.args.join(" ")}${run.unreachable ? " (no host)" : ""} --json carries "kv is deprecated", as stderr does without`, async () => {
      const env = { ...bare, WARN: "1", ...(run.unreachable ? { TAKOFORM_ENDPOINT: closedEndpoint } : {}) };
      const plain = await runCli(run.args, { cwd: dirs.app, env });
      expect(plain.code, plain.stderr).toBe(run.code);
      expect(plain.stderr).toContain("Warning: kv is deprecated");
      const json = await runCli([...run.args, "--json"], { cwd: dirs.app, env });
      expect(json.code, json.stderr).toBe(run.code);
      type Doc = { command: string; ok: boolean; diagnostics: { severity: string; code: string; summary: string; detail: string }[] };
      const document = JSON.parse(json.stdout) as Doc;
      expect(document).toMatchObject({ command: run.args[0], ok: run.ok });
      // Once per stack the app synthesized (as the text says), and first: they came before anything ran.
      const warnings = document.diagnostics.filter((d) => d.summary === "kv is deprecated");
      expect(warnings.map((d) => [d.severity, d.code, d.detail])).toEqual(
        ["one", "two"].map((stack) => ["warning", "takoform.config/app-annotation", `Reported by the construct kv in stack ${stack}.`]),
      );
      expect(document.diagnostics.slice(0, 2)).toEqual(warnings);
      expect(plain.stderr).toContain("stack two");
      if (!run.ok) expect(document.diagnostics.at(-1)).toMatchObject({ severity: "error" });
      expect(json.stderr).toBe("");
    });
  }
});
