// `takoform state list`, `state show` and `state pull`, `show` and `output` read through the
// published API (workspace.state.list(), show(), pull(), outputs()) and print what they printed
// when they read the state's reader themselves: the expectations here are built from the state
// file's own reader (src/state), not from the API, so a change in the API's record shape or
// document shows up as a changed byte. For a state with resources, an empty one (all destroyed)
// and none at all, human and --json.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageVersion } from "../../src/cli/package-manifest.ts";
import { openLocalStateReadOnly } from "../../src/state/index.ts";
import { outputJson, recordText, stateText, stateToJson } from "../../src/views/index.ts";
import { runCli, Scratch } from "../scenario/harness.ts";
import { stacksCli, stacksOk, stacksProject } from "../scenario/stacks-app.ts";

const ENV = { TAKOFORM_ENDPOINT: undefined, TAKOFORM_TOKEN: undefined };
const CONFIG = ["--config", "stack.json"];
const STACK = {
  resource: { takoform_edge_kv_namespace: { a: { name: "reads-a" }, b: { name: "reads-b" } } },
  output: { a_name: { value: "${takoform_edge_kv_namespace.a.name}" }, b_name: { value: "${takoform_edge_kv_namespace.b.name}", sensitive: false } },
};
const A = "takoform_edge_kv_namespace.a";

const scratch = new Scratch();
afterAll(() => scratch.cleanup());
scratch.write("stack.json", JSON.stringify(STACK));

const cli = (args: string[]) => runCli(args, { cwd: scratch.dir, env: ENV });

/** What the state file's reader holds: the records' identities and the whole document, as the command printed them before the API. */
async function stored(): Promise<Record<"list" | "listJson" | "pull" | "show" | "showJson" | "stateShow" | "stateShowJson" | "output" | "outputJson", string>> {
  const reader = openLocalStateReadOnly(scratch.path(".takoform", "state.db"));
  try {
    const records = await reader.list();
    const document = await reader.pull();
    const record = await reader.get(A);
    const outputs = Object.entries(await reader.outputs());
    const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
    return {
      // state show, show and output: the record, the document and the outputs the reader holds,
      // through the views the command renders with (the renderers are not what moved).
      stateShow: record !== undefined ? `${recordText(record as unknown as Record<string, unknown>)}\n` : "",
      stateShowJson: record !== undefined ? json(record) : "",
      show: `${stateText(document)}\n`,
      showJson: json(stateToJson(document, packageVersion())),
      output: outputs.map(([name, o]) => `${name} = ${JSON.stringify(o.value)}\n`).join(""),
      outputJson: json(Object.fromEntries(outputs.map(([name, o]) => [name, outputJson(o)]))),
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
    [["show"], want.show],
    [["show", "--json"], want.showJson],
    [["output", "--json"], want.outputJson],
    ...(want.output !== "" ? [[["output"], want.output] as const] : []),
    ...(want.stateShow !== "" ? [[["state", "show", A], want.stateShow] as const, [["state", "show", A, "--json"], want.stateShowJson] as const] : []),
  ] as const) {
    const run = await cli([...args, ...CONFIG]);
    expect(run.code, `${args.join(" ")}\n${run.stderr}`).toBe(0);
    expect(run.stdout, args.join(" ")).toBe(printed);
    expect(run.stderr, args.join(" ")).toBe("");
  }
}

describe("state list, show and pull, show and output on the published API print what the state records", () => {
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

  it("no state: show says so and output lists nothing, each exit 0; state show exits 1 with the no-state diagnostic", async () => {
    const show = await cli(["show", ...CONFIG]);
    expect([show.code, show.stdout, show.stderr]).toEqual([0, "No state.\n", ""]);
    const output = await cli(["output", ...CONFIG]);
    expect([output.code, output.stdout, output.stderr]).toEqual([
      0,
      "",
      "No outputs recorded in state. Declare outputs in the app (TerraformOutput) and apply.\n",
    ]);
    expect((await cli(["output", "--json", ...CONFIG])).stdout).toBe("{}\n");
    const stateShow = await cli(["state", "show", A, ...CONFIG, "--json"]);
    expect(stateShow.code).toBe(1);
    expect((JSON.parse(stateShow.stdout) as { diagnostics: { code: string }[] }).diagnostics.map((d) => d.code)).toEqual(["takoform.cli/no-state"]);
  });

  it("a state with resources, then an empty one: byte for byte what the state's reader holds", async () => {
    expect((await cli(["apply", "--auto-approve", ...CONFIG])).code).toBe(0);
    await expectPrinted();
    expect((await stored()).output).toContain('a_name = "reads-a"');
    const missing = await cli(["state", "show", "takoform_edge_kv_namespace.c", ...CONFIG]);
    expect([missing.code, missing.stdout]).toEqual([1, ""]);
    expect(missing.stderr).toContain("takoform_edge_kv_namespace.c");
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
