// Issue 25 item 6: sensitive outputs printed as Terraform prints them, through the command
// against the local host over HTTP. An apply with TF_VAR_secret stores `secret` (from the
// variable) and `joined` (a name and the variable) encrypted beside their seals, and `marked`
// (a resource's name the app only marks sensitive) as a bare seal. Then: `output -raw secret`
// prints the value exactly, no newline; `output -json` has both values with `"sensitive": true`;
// the human listing shows <sensitive>; without the variable, or with another value, the command
// exits 1 naming the variable and prints no value (with -json the refusal is a JSON diagnostic); `marked` is refused saying why it cannot come
// back; the state file (its bytes, the WAL included) and `state pull` never hold the secret.

import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, Scratch, startHost, type TestHost } from "../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";
const SECRET = "hunter2-Zq8v-secret";

const stack = {
  variable: { secret: { type: "string", sensitive: true } },
  resource: { [KV]: { kv: { name: "so-kv" } } },
  output: {
    plain: { value: `\${${KV}.kv.name}` },
    secret: { value: "${var.secret}", sensitive: true },
    joined: { value: `\${${KV}.kv.name}:\${var.secret}` },
    marked: { value: `\${${KV}.kv.name}`, sensitive: true },
  },
};

describe("sensitive outputs through `takoform output`", () => {
  let host: TestHost;
  const p = new Scratch();
  const run = (args: string[], env: Record<string, string | undefined> = {}) =>
    runCli([...args, "--config", "stack.json"], {
      cwd: p.dir,
      env: { TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: "takoform-dev-token", TF_VAR_secret: undefined, TAKOFORM_VAR_secret: undefined, ...env },
    });
  beforeAll(async () => {
    host = await startHost();
    p.write("stack.json", JSON.stringify(stack));
    const applied = await run(["apply", "--auto-approve"], { TF_VAR_secret: SECRET });
    if (applied.code !== 0) throw new Error(applied.stderr);
  }, 60_000);
  afterAll(async () => {
    await host.close();
    p.cleanup();
  });

  it("-raw NAME prints the value exactly, -json has it, the listing hides it", async () => {
    const raw = await run(["output", "-raw", "secret"], { TF_VAR_secret: SECRET });
    expect(raw.code, raw.stderr).toBe(0);
    expect(raw.stdout).toBe(SECRET);
    const viaVar = await run(["output", "-raw", "joined", "--var", `secret=${SECRET}`]);
    expect(viaVar.stdout).toBe(`so-kv:${SECRET}`);
    const one = await run(["output", "-json", "secret"], { TAKOFORM_VAR_secret: SECRET });
    expect(JSON.parse(one.stdout)).toBe(SECRET);

    const all = await run(["output", "-json"], { TF_VAR_secret: SECRET });
    expect(all.code, all.stderr).toBe(0);
    expect(JSON.parse(all.stdout)).toEqual({
      joined: { sensitive: true, type: "string", value: `so-kv:${SECRET}` },
      marked: { sensitive: true, type: "dynamic" },
      plain: { sensitive: false, type: "string", value: "so-kv" },
      secret: { sensitive: true, type: "string", value: SECRET },
    });
    // `marked` comes back from nothing outside state: listed without its value, and said so.
    expect(all.stderr).toContain('Warning: Output "marked" is sensitive and state holds only its seal');

    const human = await run(["output"], { TF_VAR_secret: SECRET });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toBe('joined = <sensitive>\nmarked = <sensitive>\nplain = "so-kv"\nsecret = <sensitive>\n');
    expect(human.stdout + human.stderr).not.toContain(SECRET);
  }, 60_000);

  it("without the variable, or with another value, exits 1 naming the variable and prints nothing", async () => {
    for (const args of [
      ["output", "-raw", "secret"],
      ["output", "-json", "secret"],
      ["output", "-json"],
    ]) {
      const missing = await run(args);
      expect(missing.code).toBe(1);
      const summary = `Printing output "${args.length === 3 ? "secret" : "joined"}" needs the sensitive variable "secret"`;
      if (args[1] === "-json") {
        // With -json the refusal is a JSON diagnostic on stdout, and no value is printed.
        const document = JSON.parse(missing.stdout) as { ok: boolean; diagnostics: { summary: string; repair?: string; detail?: string }[] };
        expect(document.ok).toBe(false);
        expect(document.diagnostics[0]!.summary).toContain(summary);
        expect(JSON.stringify(document.diagnostics[0])).toContain("TAKOFORM_VAR_secret");
        expect(missing.stdout).not.toContain(SECRET);
      } else {
        expect(missing.stdout).toBe("");
        expect(missing.stderr).toContain(`Error: ${summary}`);
        expect(missing.stderr).toContain("TAKOFORM_VAR_secret");
      }
    }
    const other = await run(["output", "-raw", "secret"], { TF_VAR_secret: "not-it" });
    expect(other.code).toBe(1);
    expect(other.stdout).toBe("");
    expect(other.stderr).toContain('Error: The values of "secret" differ from those output "secret" was stored with');
  }, 60_000);

  it("an output the app only marks sensitive is refused, saying why it cannot come back", async () => {
    const marked = await run(["output", "-raw", "marked"], { TF_VAR_secret: SECRET });
    expect(marked.code).toBe(1);
    expect(marked.stdout).toBe("");
    expect(marked.stderr).toContain('Error: Output "marked" is sensitive and state holds only its seal');
  }, 30_000);

  it("the plan compares the stored outputs through their seals: nothing to change", async () => {
    const planned = await run(["plan", "-detailed-exitcode"], { TF_VAR_secret: SECRET });
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    expect(planned.stdout).toContain("No changes.");
  }, 30_000);

  it("the state file, its WAL and `state pull` never hold the secret", async () => {
    const pull = await run(["state", "pull"]);
    expect(pull.code, pull.stderr).toBe(0);
    expect(pull.stdout).not.toContain(SECRET);
    const doc = JSON.parse(pull.stdout) as { outputs: Record<string, { value: Record<string, unknown> }> };
    expect(Object.keys(doc.outputs["secret"]!.value).sort()).toEqual(["$encrypted", "$sensitive"]);
    expect(Object.keys(doc.outputs["marked"]!.value)).toEqual(["$sensitive"]);
    const secretBytes = Buffer.from(SECRET, "utf8");
    for (const file of ["state.db", "state.db-wal", "state.db.backup"]) {
      const path = p.path(".takoform", file);
      if (existsSync(path)) expect(readFileSync(path).includes(secretBytes), file).toBe(false);
    }
  }, 30_000);
});
