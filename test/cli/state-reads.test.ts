// `takoform state list` and `state pull` read through the published API (workspace.state.list()
// and pull()) and print what they printed when they read the state's reader themselves: the
// expectations here are built from the state file's own reader (src/state), not from the API, so
// a change in the API's record shape or document shows up as a changed byte. For a state with
// resources, an empty one (all destroyed) and none at all, human and --json.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openLocalStateReadOnly } from "../../src/state/index.ts";
import { runCli, Scratch } from "../scenario/harness.ts";
import { stacksCli, stacksOk, stacksProject } from "../scenario/stacks-app.ts";

const ENV = { TAKOFORM_ENDPOINT: undefined, TAKOFORM_TOKEN: undefined };
const CONFIG = ["--config", "stack.json"];
const STACK = { resource: { takoform_edge_kv_namespace: { a: { name: "reads-a" }, b: { name: "reads-b" } } } };

const scratch = new Scratch();
afterAll(() => scratch.cleanup());
scratch.write("stack.json", JSON.stringify(STACK));

const cli = (args: string[]) => runCli(args, { cwd: scratch.dir, env: ENV });

/** What the state file's reader holds: the records' identities and the whole document, as the command printed them before the API. */
async function stored(): Promise<{ list: string; listJson: string; pull: string }> {
  const reader = openLocalStateReadOnly(scratch.path(".takoform", "state.db"));
  try {
    const records = await reader.list();
    return {
      list: records.map((r) => `${r.address}\n`).join(""),
      listJson: `${JSON.stringify(
        records.map((r) => ({ address: r.address, type: r.type, status: r.status, name: r.name, uid: r.uid })),
        null,
        2,
      )}\n`,
      pull: `${JSON.stringify(await reader.pull(), null, 2)}\n`,
    };
  } finally {
    await reader.close();
  }
}

async function expectPrinted(): Promise<void> {
  const want = await stored();
  for (const [args, printed] of [
    [["state", "list"], want.list],
    [["state", "list", "--json"], want.listJson],
    [["state", "pull"], want.pull],
    [["state", "pull", "--json"], want.pull],
  ] as const) {
    const run = await cli([...args, ...CONFIG]);
    expect(run.code, `${args.join(" ")}\n${run.stderr}`).toBe(0);
    expect(run.stdout, args.join(" ")).toBe(printed);
    expect(run.stderr, args.join(" ")).toBe("");
  }
}

describe("state list and state pull on the published API print what the state records", () => {
  it("no state: exit 1, the no-state diagnostic on stderr, or alone in the --json document", async () => {
    for (const sub of ["list", "pull"]) {
      const plain = await cli(["state", sub, ...CONFIG]);
      expect(plain.code).toBe(1);
      expect(plain.stdout).toBe("");
      expect(plain.stderr).toContain("No state");
      const json = await cli(["state", sub, ...CONFIG, "--json"]);
      expect(json.code).toBe(1);
      const document = JSON.parse(json.stdout) as { command: string; ok: boolean; diagnostics: { code: string }[] };
      expect(document.command).toBe(`state ${sub}`);
      expect(document.ok).toBe(false);
      expect(document.diagnostics.map((d) => d.code)).toEqual(["takoform.cli/no-state"]);
    }
  });

  it("a state with resources, then an empty one: byte for byte what the state's reader holds", async () => {
    expect((await cli(["apply", "--auto-approve", ...CONFIG])).code).toBe(0);
    await expectPrinted();
    expect((await stored()).list).toBe("takoform_edge_kv_namespace.a\ntakoform_edge_kv_namespace.b\n");
    expect((await cli(["destroy", "--auto-approve", ...CONFIG])).code).toBe(0);
    await expectPrinted();
    expect((await cli(["state", "list", "--json", ...CONFIG])).stdout).toBe("[]\n");
  }, 120_000);
});

describe("the state target's notes", () => {
  // Two stacks, and the project's state from before stacks had their own holding a resource
  // neither declares: every stack uses its own state, with a warning naming the older file.
  const MAIN = `import { App, TerraformStack } from "cdktf";
import { EdgeKVNamespace, TakoformProvider } from "takoform-cdk";
const app = new App();
for (const name of ["one", "two"]) {
  const stack = new TerraformStack(app, name);
  new TakoformProvider(stack, "takoform", {});
  new EdgeKVNamespace(stack, "kv", { name: \`reads-\${name}\` });
}
app.synth();
`;

  it("with no state of the stack's own, --json carries the warning as a diagnostic before no-state (it once reached only stderr, without --json)", async () => {
    const dir = stacksProject(MAIN);
    const old = { resource: { takoform_edge_kv_namespace: { old: { name: "reads-old" } } } };
    writeFileSync(join(dir, "old.json"), JSON.stringify(old));
    await stacksOk(dir, ["apply", "--auto-approve", "--config", "old.json"]);
    await stacksOk(dir, ["synth"]);
    for (const sub of ["list", "pull"]) {
      const plain = await stacksCli(dir, ["state", sub, "--stack", "one"]);
      expect(plain.code).toBe(1);
      expect(plain.stderr).toContain("takoform.engine/legacy-state-unclaimed");
      expect(plain.stderr).toContain("No state");
      const json = await stacksCli(dir, ["state", sub, "--stack", "one", "--json"]);
      expect(json.code).toBe(1);
      const document = JSON.parse(json.stdout) as { diagnostics: { severity: string; code: string }[] };
      expect(document.diagnostics.map((d) => [d.severity, d.code])).toEqual([
        ["warning", "takoform.engine/legacy-state-unclaimed"],
        ["error", "takoform.cli/no-state"],
      ]);
    }
  }, 180_000);
});
