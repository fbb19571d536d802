// Issue 14, item 1: every flag takes Terraform's spellings as well as ours — one dash or two, a
// value after `=` or a space, on/off flags bare or `=true`/`=false` — and an unknown flag names
// the closest known one. The parser is checked for every flag of every command (and docs/cli.md
// must list each in both spellings); then each Terraform spelling is run through the command
// against the local host served over HTTP.

import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliUsageError, parseArgs, type FlagSpec } from "../../src/cli/command.ts";
import { applyFlags } from "../../src/cli/apply-flow.ts";
import { FLAGS as IMPORT } from "../../src/cli/commands/import.ts";
import { FLAGS as INIT } from "../../src/cli/commands/init.ts";
import { FLAGS as OUTPUT } from "../../src/cli/commands/output.ts";
import { FLAGS as PLAN } from "../../src/cli/commands/plan.ts";
import { FLAGS as SHOW } from "../../src/cli/commands/show.ts";
import { FLAGS as STATE } from "../../src/cli/commands/state.ts";
import { REBIND_FLAGS } from "../../src/cli/commands/state-rebind.ts";
import { FLAGS as SYNTH } from "../../src/cli/commands/synth.ts";
import { openLocalStateReadOnly } from "../../src/state/index.ts";
import { runCli, Scratch, startHost, type TestHost } from "../scenario/harness.ts";

const COMMANDS: Record<string, FlagSpec> = {
  plan: PLAN,
  apply: applyFlags("apply"),
  destroy: applyFlags("destroy"),
  refresh: applyFlags("refresh"),
  import: IMPORT,
  synth: SYNTH,
  output: OUTPUT,
  show: SHOW,
  init: INIT,
  state: STATE,
  "state rebind": REBIND_FLAGS,
};

describe("the flag parser, for every flag of every command", () => {
  for (const [name, spec] of Object.entries(COMMANDS)) {
    it(`${name}: each value flag reads the same in four spellings; each on/off flag bare, =true and =false`, () => {
      for (const flag of spec.values ?? []) {
        const bare = flag.slice(2);
        const expected = parseArgs([flag, "v1"], spec).values.get(flag);
        expect(expected, `${name} ${flag}`).toEqual(["v1"]);
        for (const spelling of [[`-${bare}=v1`], [`-${bare}`, "v1"], [`--${bare}=v1`]]) {
          expect(parseArgs(spelling, spec).values.get(flag), `${name} ${spelling.join(" ")}`).toEqual(["v1"]);
        }
        // Repeated: every value, in order (a single-valued flag uses the last).
        expect(parseArgs([`-${bare}=a`, `--${bare}`, "b"], spec).values.get(flag)).toEqual(["a", "b"]);
        expect(() => parseArgs([`-${bare}`], spec), `${name} -${bare}`).toThrow(`-${bare} needs a value`);
      }
      for (const flag of spec.switches ?? []) {
        const bare = flag.slice(2);
        for (const spelling of [[`-${bare}`], [`--${bare}`], [`-${bare}=true`], [`--${bare}`, "true"]]) {
          const parsed = parseArgs(spelling, spec);
          expect(parsed.switches.has(flag) && parsed.settings.get(flag), `${name} ${spelling.join(" ")}`).toBe(true);
        }
        for (const spelling of [[`-${bare}=false`], [`--${bare}=false`], [`-${bare}`, "false"]]) {
          const parsed = parseArgs(spelling, spec);
          expect(parsed.switches.has(flag) || parsed.settings.get(flag) !== false, `${name} ${spelling.join(" ")}`).toBe(false);
        }
        // The last setting wins, as with Go's flag package.
        expect(parseArgs([`-${bare}`, `-${bare}=false`], spec).switches.has(flag)).toBe(false);
        expect(() => parseArgs([`-${bare}=yes`], spec)).toThrow(`-${bare} takes true or false, got "yes"`);
      }
    });
  }

  it("keeps positionals in place, stops at --, and takes -C and -h as short spellings", () => {
    const parsed = parseArgs(["a", "-C", "dir", "b", "-json", "--", "-auto-approve"], COMMANDS.apply!);
    expect(parsed.positionals).toEqual(["a", "b", "-auto-approve"]);
    expect(parsed.values.get("--chdir")).toEqual(["dir"]);
    expect(parsed.switches.has("--json")).toBe(true);
    expect(parseArgs(["-h"], PLAN).switches.has("--help")).toBe(true);
    // A value may itself start with a dash or hold `=`.
    expect(parseArgs(["-var", "n=-1", "-var=m=a=b"], PLAN).values.get("--var")).toEqual(["n=-1", "m=a=b"]);
  });

  it("names the closest known flag of an unknown one, in the spelling it was typed", () => {
    const message = (argv: string[], spec: FlagSpec): string => {
      try {
        parseArgs(argv, spec);
      } catch (error) {
        expect(error).toBeInstanceOf(CliUsageError);
        return (error as Error).message;
      }
      throw new Error("no usage error");
    };
    expect(message(["-auto-aprove"], COMMANDS.apply!)).toBe("unknown option -auto-aprove (did you mean -auto-approve?); `--help` lists the options");
    expect(message(["--targt=x"], PLAN)).toBe("unknown option --targt (did you mean --target?); `--help` lists the options");
    expect(message(["-detailed-exit-code"], PLAN)).toContain("(did you mean -detailed-exitcode?)");
    expect(message(["-refreshonly"], PLAN)).toContain("(did you mean -refresh-only?)");
    // Nothing close: no guess.
    expect(message(["-frobnicate"], PLAN)).toBe("unknown option -frobnicate; `--help` lists the options");
  });

  it("docs/cli.md lists every flag of every command in both spellings", () => {
    const doc = readFileSync(fileURLToPath(new URL("../../docs/cli.md", import.meta.url)), "utf8");
    const flags = new Set(Object.values(COMMANDS).flatMap((spec) => [...(spec.values ?? []), ...(spec.switches ?? [])]));
    for (const flag of flags) {
      const bare = flag.slice(2);
      expect(doc, flag).toContain(`\`-${bare}`);
      expect(doc, flag).toContain(`\`--${bare}`);
    }
  });
});

describe("Terraform's spellings through the command", () => {
  const KV = "takoform_edge_kv_namespace";
  const TOKEN = "takoform-dev-token";
  let host: TestHost;
  const scratch = new Scratch();
  const env = () => ({ TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: TOKEN });
  const uids = async (): Promise<Record<string, string | null>> => {
    const reader = openLocalStateReadOnly(scratch.path(".takoform", "state.db"));
    try {
      return Object.fromEntries((await reader.list()).map((r) => [r.address, r.uid]));
    } finally {
      await reader.close();
    }
  };
  beforeAll(async () => {
    host = await startHost();
    scratch.write(
      "stack.json",
      JSON.stringify({
        variable: { prefix: { type: "string" }, suffix: { type: "string", default: "x" } },
        resource: { [KV]: { a: { name: "${var.prefix}-a-${var.suffix}" }, b: { name: "${var.prefix}-b" } } },
      }),
    );
    scratch.write("vars.json", JSON.stringify({ suffix: "one" }));
  });
  afterAll(async () => {
    await host.close();
    scratch.cleanup();
  });
  const run = (args: string[]) => runCli(args, { cwd: scratch.dir, env: env() });

  it("plans with -var, -var-file=, -parallelism=, -refresh=false, -lock-timeout=, -no-color, -detailed-exitcode and -out=", async () => {
    const planned = await run([
      "plan",
      "-config=stack.json",
      "-var",
      "prefix=tf",
      "-var-file=vars.json",
      "-parallelism=2",
      "-refresh=false",
      "-lock-timeout=1s",
      "-no-color",
      "-detailed-exitcode",
      "-out=tfplan",
    ]);
    expect(planned.code, planned.stderr).toBe(2);
    expect(planned.stdout).toMatch(/\+ name +\= "tf-a-one"/);
    expect(planned.stdout).toContain("Plan: 2 to add, 0 to change, 0 to destroy.");
    expect(planned.stdout).not.toContain("\x1b[");
    expect(existsSync(scratch.path("tfplan"))).toBe(true);
  }, 60_000);

  it("-input=false never asks: apply without -auto-approve is refused and applies nothing", async () => {
    const refused = await run(["apply", "-input=false", "-config", "stack.json", "-var=prefix=tf"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("apply needs approval, and -input=false forbids asking for it");
    expect(refused.stdout).toContain("Plan: 2 to add");
    expect(await uids()).toEqual({});
  }, 60_000);

  it("applies with -auto-approve, -target= and -json, then the rest with --auto-approve=true", async () => {
    const targeted = await run(["apply", "-auto-approve", "-config=stack.json", "-var", "prefix=tf", "-target=" + `${KV}.a`, "-json"]);
    expect(targeted.code, targeted.stderr).toBe(0);
    expect(JSON.parse(targeted.stdout)).toMatchObject({ command: "apply", status: "applied", added: 1 });
    expect(Object.keys(await uids())).toEqual([`${KV}.a`]);
    const rest = await run(["apply", "--auto-approve=true", "--config", "stack.json", "--var", "prefix=tf"]);
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stdout).toContain("Apply complete! Resources: 1 added, 0 changed, 0 destroyed.");
  }, 60_000);

  it("-replace=ADDR replaces a resource nothing else would change, as requested", async () => {
    const before = await uids();
    const planned = await run(["plan", "-config=stack.json", "-var=prefix=tf", `-replace=${KV}.b`, "-json"]);
    expect(planned.code, planned.stderr).toBe(0);
    const changes = (JSON.parse(planned.stdout) as { resource_changes: { address: string; action_reason?: string; change: { actions: string[] } }[] })
      .resource_changes;
    expect(changes.map((c) => [c.address, c.change.actions.join(","), c.action_reason ?? null])).toEqual([
      [`${KV}.a`, "no-op", null],
      [`${KV}.b`, "delete,create", "replace_by_request"],
    ]);
    const human = await run(["plan", "-config=stack.json", "-var=prefix=tf", "-replace", `${KV}.b`]);
    expect(human.stdout).toContain(`# ${KV}.b will be replaced, as requested`);
    const applied = await run(["apply", "-auto-approve", "-config=stack.json", "-var=prefix=tf", `--replace=${KV}.b`]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain("Apply complete! Resources: 1 added, 0 changed, 1 destroyed.");
    const after = await uids();
    expect(after[`${KV}.a`]).toBe(before[`${KV}.a`]);
    expect(after[`${KV}.b`]).not.toBe(before[`${KV}.b`]);
    // An address the configuration does not declare is warned about; the plan goes on.
    const unmatched = await run(["plan", "-config=stack.json", "-var=prefix=tf", `-replace=${KV}.nope`, "-detailed-exitcode"]);
    expect(unmatched.code, unmatched.stderr).toBe(0);
    expect(unmatched.stdout + unmatched.stderr).toContain("Warning: Incompletely-matched force-replace resource instance");
    expect(unmatched.stdout + unmatched.stderr).toContain("takoform.engine/replace-unmatched");
    const combined = await run(["plan", "-config=stack.json", "-var=prefix=tf", `-replace=${KV}.b`, "-destroy"]);
    expect(combined.code).toBe(1);
    expect(combined.stderr).toContain("--replace cannot be combined with --destroy");
  }, 90_000);

  it("plans a destroy with -destroy, a refresh with -refresh-only, and runs from -chdir=DIR", async () => {
    const destroy = await runCli(["-chdir=" + scratch.dir, "plan", "-destroy", "-config=stack.json", "-var=prefix=tf", "-detailed-exitcode"], {
      cwd: process.cwd(),
      env: env(),
    });
    expect(destroy.code, destroy.stderr).toBe(2);
    expect(destroy.stdout).toContain("Plan: 0 to add, 0 to change, 2 to destroy.");
    const refreshOnly = await run(["plan", "-refresh-only", "-config=stack.json", "-var=prefix=tf", "-detailed-exitcode"]);
    expect(refreshOnly.code, refreshOnly.stdout + refreshOnly.stderr).toBe(0);
    const destroyed = await run(["destroy", "-auto-approve", "-config=stack.json", "-var=prefix=tf"]);
    expect(destroyed.code, destroyed.stderr).toBe(0);
    expect(destroyed.stdout).toContain("2 destroyed");
  }, 90_000);

  it("an unknown flag names the closest known one and changes nothing", async () => {
    const typo = await run(["apply", "-auto-aprove", "-config=stack.json"]);
    expect(typo.code).toBe(1);
    expect(typo.stderr.trim()).toBe("takoform apply: unknown option -auto-aprove (did you mean -auto-approve?); `--help` lists the options");
  }, 60_000);

  it("an unknown command names the closest one, and another tool's name for a command gets takoform's", async () => {
    const cases: [string, string][] = [
      ["aply", 'takoform: unknown command "aply" (did you mean apply?); `takoform --help` lists the commands'],
      ["stat", 'takoform: unknown command "stat" (did you mean state?); `takoform --help` lists the commands'],
      ["deploy", 'takoform: unknown command "deploy" (takoform calls it `takoform apply`); `takoform --help` lists the commands'],
      ["diff", 'takoform: unknown command "diff" (takoform calls it `takoform plan`); `takoform --help` lists the commands'],
      ["frobnicate", 'takoform: unknown command "frobnicate"; `takoform --help` lists the commands'],
    ];
    for (const [name, expected] of cases) {
      const result = await run([name]);
      expect(result.code, name).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr.trim()).toBe(expected);
    }
  }, 60_000);

  it("--help lists every option in one block (apply's --replace among them), then how flags may be spelled", async () => {
    for (const command of ["apply", "plan", "destroy", "refresh", "import"]) {
      const help = (await run([command, "--help"])).stdout;
      const options = help.slice(help.indexOf("\nOptions:\n") + 10, help.indexOf("  -h, --help             Show this help\n"));
      // No blank line, and no prose, inside the option list.
      expect(
        options.split("\n").filter((line) => line !== "" && !/^ {2}\S/.test(line) && !/^ {20,}\S/.test(line)),
        command,
      ).toEqual([]);
      expect(options, command).not.toMatch(/\n\n/);
      expect(help, command).toContain("  -h, --help             Show this help\n\nEvery flag may be written with one dash or two");
    }
    expect((await run(["apply", "--help"])).stdout).toContain("  --replace ADDR         Replace this resource even if nothing changed (repeatable)\n");
  }, 60_000);

  it("a missing --config file is reported as file-not-found, not invalid-json", async () => {
    const missing = await run(["plan", "-config=nope.json"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`Error: The configuration file ${scratch.path("nope.json")} does not exist`);
    expect(missing.stderr).toContain("Code: takoform.config/file-not-found");
    expect(missing.stderr).not.toContain("invalid-json");
  }, 60_000);
});
