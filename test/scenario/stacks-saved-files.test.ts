// A saved plan of several stacks that is not what `apply FILE` can apply as planned, through the
// command against the embedded host: a truncated or edited file, a plan of one stack where stacks
// are named (and a plan of several where one is), a file planned in another app. Each is refused
// with a typed diagnostic and its repair, exit 1, before anything is opened: the host holds nothing
// and the project's .takoform directory is byte for byte what it was.

import { createHash } from "node:crypto";
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hostHolds, stacksCli, stacksOk, stacksProject } from "./stacks-app.ts";

const app = (producer: string, consumer: string): string => `
import { App, TerraformOutput, TerraformStack } from "cdktf";
import type { Construct } from "constructs";
import { EdgeKVNamespace, TakoformProvider } from "takoform-cdk";

class Shared extends TerraformStack {
  readonly kv: EdgeKVNamespace;
  constructor(scope: Construct, id: string) {
    super(scope, id);
    new TakoformProvider(this, "takoform", {});
    this.kv = new EdgeKVNamespace(this, "kv", { name: "shared-kv" });
  }
}

class Api extends TerraformStack {
  constructor(scope: Construct, id: string, shared: Shared) {
    super(scope, id);
    new TakoformProvider(this, "takoform", {});
    new EdgeKVNamespace(this, "own", { name: "api-own" });
    new TerraformOutput(this, "kv_name", { value: shared.kv.name });
  }
}

const app = new App();
new Api(app, "${consumer}", new Shared(app, "${producer}"));
app.synth();
`;

/** Every file under the project's .takoform directory with a digest of its bytes. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string): void => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry));
    else out[path.slice(dir.length)] = createHash("sha256").update(readFileSync(path)).digest("hex");
  };
  walk(join(dir, ".takoform"));
  return out;
}

/** A diagnostic as the command prints it. */
const printed = (summary: string, detail: string, code: string, repair: string): string =>
  [`Error: ${summary}`, "", `  ${detail}`, "", `  Code: ${code}`, "  Retryable: no", "", `  ${repair}`].join("\n");
const INVALID_REPAIR = "Write a plan with `takoform plan --out FILE` and apply that file.";

describe("apply FILE of a file it cannot apply as planned", () => {
  it("a truncated file, an edited record of what a stack read, an order naming a stack twice, a file that is not there: plan-file-invalid, nothing opened", async () => {
    const dir = stacksProject(app("shared", "api"));
    await stacksOk(dir, ["plan", "*", "--out", "app.plan"]);
    const text = readFileSync(join(dir, "app.plan"), "utf8");
    writeFileSync(join(dir, "cut.plan"), text.slice(0, Math.floor(text.length / 2)));
    const edited = JSON.parse(text);
    edited.stacks.api.reads["cross-stack-reference-input-shared"].outputs = { "cross-stack-output-takoform_edge_kv_namespacekvname": null };
    writeFileSync(join(dir, "edited.plan"), JSON.stringify(edited));
    const twice = JSON.parse(text);
    twice.order = ["shared", "api", "api"];
    writeFileSync(join(dir, "twice.plan"), JSON.stringify(twice));
    const before = snapshot(dir);
    expect(Object.keys(before)).toEqual(expect.arrayContaining(["/.takoform/stacks/api/state.db", "/.takoform/stacks/shared/state.db"]));

    const cut = await stacksCli(dir, ["apply", "cut.plan"]);
    expect(cut.code).toBe(1);
    expect(cut.stderr).toMatch(
      /^\s*Error: cut\.plan is not a takoform plan file\n\n {2}cut\.plan is not valid JSON\. At line 1, column \d+: unterminated string\.\n/,
    );
    expect(cut.stderr).toContain(`  Code: takoform.engine/plan-file-invalid\n  Retryable: no\n\n  ${INVALID_REPAIR}`);
    for (const [file, detail] of [
      ["edited.plan", 'What stack "api" read through "cross-stack-reference-input-shared" is not a record of digests and unknown values.'],
      ["twice.plan", 'Its order names stack "api" twice.'],
    ]) {
      const refused = await stacksCli(dir, ["apply", file!]);
      expect(refused.code, file).toBe(1);
      expect(refused.stdout, file).toBe("");
      expect(refused.stderr, file).toContain(printed(`${file} is not a takoform plan file`, detail!, "takoform.engine/plan-file-invalid", INVALID_REPAIR));
    }
    // A plan file that is not there is one it cannot read, not a stack of that name (a name ending
    // in .plan or holding a path separator is taken as a file: apply-flow's spelledAsPlanFile).
    for (const file of ["missing.plan", "plans/gone.tfplan"]) {
      const missing = await stacksCli(dir, ["apply", file]);
      expect(missing.code, file).toBe(1);
      expect(missing.stdout, file).toBe("");
      expect(missing.stderr, file).toContain(`Error: Cannot read the plan file ${file}\n`);
      expect(missing.stderr, file).toContain("ENOENT");
      expect(missing.stderr, file).toContain(
        "  Code: takoform.engine/plan-file-invalid\n  Retryable: no\n\n  Give the path written by `takoform plan --out FILE`.",
      );
      expect(missing.stderr, file).not.toContain("no stack named");
    }
    // (Read before the host is: opening its database leaves its -wal and -shm files beside it.)
    expect(snapshot(dir)).toEqual(before);
    expect(hostHolds(dir)).toEqual([]);
  }, 600_000);

  it("a plan of one stack with stacks or another stack named, a plan of several with one named, a plan of another app: plan-file-stacks-mismatch, nothing opened", async () => {
    const dir = stacksProject(app("shared", "api"));
    // An older file readable by anyone is replaced by one only its owner reads (before, it kept its mode).
    writeFileSync(join(dir, "app.plan"), "an older plan", { mode: 0o644 });
    await stacksOk(dir, ["plan", "*", "--out", "app.plan"]);
    expect(statSync(join(dir, "app.plan")).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).filter((name) => name.includes("app.plan"))).toEqual(["app.plan"]);
    await stacksOk(dir, ["plan", "shared", "--out", "one.plan"]);
    const before = snapshot(dir);

    // Before, the file was set aside and every stack planned again and applied.
    const one = await stacksCli(dir, ["apply", "one.plan", "--stack", "*", "--auto-approve"]);
    expect(one.code).toBe(1);
    expect(one.stderr).toContain(
      printed(
        "one.plan is a saved plan of one stack, not of the stacks *",
        "Nothing was applied.",
        "takoform.engine/plan-file-stacks-mismatch",
        "Apply the file alone (takoform apply one.plan), or save a plan of those stacks (takoform plan * --out FILE) and apply that.",
      ),
    );
    // Before, shared's plan applied, whatever stack was named.
    const another = await stacksCli(dir, ["apply", "one.plan", "--stack", "api"]);
    expect(another.code).toBe(1);
    expect(another.stderr).toContain(
      printed(
        'one.plan is a saved plan of stack "shared", not of "api"',
        "Nothing was applied.",
        "takoform.engine/plan-file-stacks-mismatch",
        'Apply it as it is (takoform apply one.plan), or save a plan of "api" (takoform plan api --out FILE) and apply that.',
      ),
    );
    const several = await stacksCli(dir, ["apply", "app.plan", "--stack", "api"]);
    expect(several.code).toBe(1);
    expect(several.stderr).toContain(
      printed(
        "app.plan is a saved plan of several stacks (shared, api), applied whole; api cannot be picked from it",
        "Nothing was applied.",
        "takoform.engine/plan-file-stacks-mismatch",
        "Apply the file alone (takoform apply app.plan), or plan the stacks you want into a file of their own (takoform plan api --out FILE).",
      ),
    );
    // (Read before the host is: opening its database leaves its -wal and -shm files beside it.)
    expect(snapshot(dir)).toEqual(before);
    expect(hostHolds(dir)).toEqual([]);

    // Another project, whose app's stacks are alpha and beta. Before, each stack's state was created there, then refused.
    const other = stacksProject(app("alpha", "beta"));
    await stacksOk(other, ["synth"]);
    copyFileSync(join(dir, "app.plan"), join(other, "app.plan"));
    const foreign = await stacksCli(other, ["apply", "app.plan"]);
    expect(foreign.code).toBe(1);
    expect(foreign.stdout).toBe("");
    expect(foreign.stderr).toContain(
      printed(
        `app.plan is a saved plan of another app: this project's app has no stack "shared", "api"`,
        "The file's stacks are shared, api; this project's app's are alpha, beta. Nothing was applied.",
        "takoform.engine/plan-file-stacks-mismatch",
        "Apply the file in the project it was planned in, or plan this project's stacks (takoform plan '*' --out FILE) and apply that file.",
      ),
    );
    expect(existsSync(join(other, ".takoform"))).toBe(false);
  }, 600_000);
});
