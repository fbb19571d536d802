// The commands that only read state (issue 26 items 3 and 5): `state list/show/pull`, `output`
// and `show` find the stack's state through the app's last synthesis, so they neither typecheck
// nor run the app, and they keep answering while the app does not compile. Run from a
// subdirectory of a project, every command works on the project and says so; outside any project
// the read-only commands say that plainly instead of "nothing has been applied".

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stacksCli, stacksOk, stacksProject } from "../scenario/stacks-app.ts";

// The app records each of its runs, so a test can tell whether a command ran it.
const MAIN = `import { appendFileSync } from "node:fs";
import { App, TerraformOutput, TerraformStack } from "cdktf";
import { EdgeKVNamespace, TakoformProvider } from "takoform-cdk";
appendFileSync("runs.log", "run\\n");
const app = new App();
const stack = new TerraformStack(app, "main");
new TakoformProvider(stack, "takoform", {});
const kv = new EdgeKVNamespace(stack, "kv", { name: "read-only-kv" });
new TerraformOutput(stack, "kv_name", { value: kv.name });
app.synth();
`;

const TSCONFIG = {
  compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", types: ["node"], strict: true, skipLibCheck: true, noEmit: true },
  include: ["*.ts"],
};

/** No stack trace: no `    at …` frame, no Node's uncaught-error footer. */
function noStackTrace(text: string): void {
  expect(text).not.toMatch(/^\s+at .+[:(]/m);
  expect(text).not.toContain("Node.js v");
}

const runs = (dir: string): number => readFileSync(join(dir, "runs.log"), "utf8").split("\n").filter(Boolean).length;

let dir: string;
const outside = mkdtempSync(join(tmpdir(), "takoform-outside-"));
afterAll(() => rmSync(outside, { recursive: true, force: true }));

beforeAll(async () => {
  dir = stacksProject(MAIN);
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG));
  await stacksOk(dir, ["apply", "--auto-approve"]);
  expect(runs(dir)).toBe(1);
  // A type error: the app no longer compiles.
  writeFileSync(join(dir, "main.ts"), `${MAIN}\nconst broken: number = "not a number";\n`);
});

describe("read-only commands", () => {
  it("read state without typechecking or running the app, while the app does not compile", async () => {
    expect((await stacksOk(dir, ["state", "list"])).stdout.trim().split("\n")).toEqual(["takoform_edge_kv_namespace.kv"]);
    expect((await stacksOk(dir, ["state", "show", "takoform_edge_kv_namespace.kv"])).stdout).toContain("read-only-kv");
    expect(JSON.parse((await stacksOk(dir, ["state", "pull"])).stdout).resources).toHaveLength(1);
    expect((await stacksOk(dir, ["output", "-raw", "kv_name"])).stdout).toBe("read-only-kv");
    expect((await stacksOk(dir, ["output", "--json"])).stdout).toContain('"kv_name"');
    expect((await stacksOk(dir, ["show"])).stdout).toContain("takoform_edge_kv_namespace.kv");
    expect(runs(dir), "no read-only command ran the app").toBe(1);
  });

  it("a command that runs the app still refuses the type error, and --no-typecheck is honoured", async () => {
    const plan = await stacksCli(dir, ["plan"]);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain("Type 'string' is not assignable to type 'number'");
    noStackTrace(plan.stderr);
    expect(runs(dir), "the typecheck stopped the plan before the app ran").toBe(1);
    const unchecked = await stacksOk(dir, ["plan", "--no-typecheck"]);
    expect(unchecked.stdout).toContain("No changes.");
    expect(runs(dir)).toBe(2);
  });

  it("every other command that runs the app refuses the type error, and runs it with --no-typecheck", async () => {
    const commands = [["synth"], ["apply", "-auto-approve"], ["refresh", "-auto-approve"], ["state", "migrate"], ["state", "rebind"]];
    for (const args of commands) {
      const before = runs(dir);
      const checked = await stacksCli(dir, args);
      expect(checked.code, args.join(" ")).toBe(1);
      expect(checked.stderr, args.join(" ")).toContain("Type 'string' is not assignable to type 'number'");
      noStackTrace(checked.stderr);
      expect(runs(dir), `${args.join(" ")}: the typecheck stopped it before the app ran`).toBe(before);
      const unchecked = await stacksOk(dir, [...args, "--no-typecheck"]);
      noStackTrace(unchecked.stderr);
      expect(runs(dir), `${args.join(" ")} --no-typecheck ran the app`).toBe(before + 1);
    }
  }, 180_000);
});

describe("where the command runs", () => {
  it("from a subdirectory of the project, works on the project and says which directory it uses", async () => {
    const sub = join(dir, "src", "deep");
    mkdirSync(sub, { recursive: true });
    const listed = await stacksOk(sub, ["state", "list"]);
    expect(listed.stdout.trim()).toBe("takoform_edge_kv_namespace.kv");
    expect(listed.stderr).toContain(`takoform: using the project at ${dir}\n`);
    const planned = await stacksOk(sub, ["plan", "--no-typecheck"]);
    expect(planned.stderr).toContain(`takoform: using the project at ${dir}\n`);
    expect(planned.stdout).toContain("No changes.");
    // output said nothing and exited 0 here once: it lists the project's outputs.
    const outputs = await stacksOk(sub, ["output"]);
    expect(outputs.stderr).toContain(`takoform: using the project at ${dir}\n`);
    expect(outputs.stdout).toBe('kv_name = "read-only-kv"\n');
    for (const result of [listed, planned, outputs]) noStackTrace(result.stderr);
  });

  it("outside any project, the read-only commands and those that run the app say so plainly and exit 1", async () => {
    // (`show` answers Terraform's "No state." there, as `terraform show` does in any directory.)
    const commands = [["state", "list"], ["output"], ["state", "show", "x.y"], ["plan"], ["apply", "--auto-approve"], ["synth"], ["refresh"]];
    for (const args of commands) {
      const result = await stacksCli(outside, args);
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stderr, args.join(" ")).toContain(`${outside} is not inside a takoform project`);
      expect(result.stderr, args.join(" ")).toContain("Neither it nor any directory above it has a cdktf.json");
      expect(result.stderr, args.join(" ")).not.toContain("nothing has been applied");
      expect(result.stdout, args.join(" ")).toBe("");
      noStackTrace(result.stderr);
    }
  });
});
