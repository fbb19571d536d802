// Issue 11 item 8: the stack is read as strictly as Form definitions are. Every way a stack or
// its inputs are read — `--config FILE` (and so cdk.tf.json), cdktf.json, `--var-file`, JSON
// variable values, saved plans — refuses a repeated key, nesting past the reader's limit and
// invalid UTF-8 with a diagnostic naming the file, the line and column, the JSON pointer and the
// repair. Through the command against the local host served over HTTP; the host's own record of
// the resource mutations it answered proves nothing was written.

import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadStackConfig } from "../../../src/engine/config/index.ts";
import { resolveVariables } from "../../../src/engine/config/variables/resolve.ts";
import { decodePlanFile, PlanFileError } from "../../../src/engine/plan/file.ts";
import { openLocalStateReadOnly } from "../../../src/state/index.ts";
import { runCli, Scratch, startHost, timeline, type TestHost } from "../../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";
const TOKEN = "takoform-dev-token";

/** No raw JavaScript stack trace anywhere in what the command printed. */
function expectNoTrace(text: string): void {
  expect(text).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
  expect(text).not.toMatch(/RangeError|TypeError|SyntaxError: /);
}

describe("strict reading of the stack, through the command", () => {
  let host: TestHost;
  const scratches: Scratch[] = [];
  const env = () => ({ TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: TOKEN });
  const scratch = (): Scratch => {
    const s = new Scratch();
    scratches.push(s);
    return s;
  };
  beforeAll(async () => {
    host = await startHost();
  });
  afterAll(async () => {
    await host.close();
    for (const s of scratches) s.cleanup();
  });

  it("a repeated top-level resource block is refused, and existing resources are not destroyed", async () => {
    const p = scratch();
    const base = `{\n  "resource": {\n    "${KV}": { "a": { "name": "strict-a" }, "b": { "name": "strict-b" } }\n  }\n}\n`;
    p.write("stack.json", base);
    const applied = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: p.dir, env: env() });
    expect(applied.code, applied.stderr).toBe(0);
    const before = timeline(host.mutations);
    expect(before.slice(-2)).toEqual([`PUT EdgeKVNamespace strict-a 201`, `PUT EdgeKVNamespace strict-b 201`]);

    // The second "resource" is empty: last-wins would plan to destroy both.
    p.write("stack.json", base.replace(/\n}\n$/, ',\n  "resource": {}\n}\n'));
    for (const command of [
      ["plan", "--detailed-exitcode"],
      ["apply", "--auto-approve"],
    ]) {
      const refused = await runCli([command[0]!, "--config", "stack.json", ...command.slice(1)], { cwd: p.dir, env: env() });
      expect(refused.code, refused.stdout).toBe(1);
      expect(refused.stdout).not.toContain("destroy");
      expect(refused.stderr).toContain(`Error: ${p.path("stack.json")} repeats the key "resource"`);
      expect(refused.stderr).toContain('At line 5, column 3: duplicate member name "resource".');
      expect(refused.stderr).toContain("Pointer: /resource");
      expect(refused.stderr).toContain("Code: takoform.config/duplicate-key");
      expect(refused.stderr).toContain('Keep one member named "resource" in the top-level object');
      expectNoTrace(refused.stderr);
    }
    expect(timeline(host.mutations)).toEqual(before);
    const state = openLocalStateReadOnly(p.path(".takoform", "state.db"));
    expect((await state.list()).map((r) => r.address)).toEqual([`${KV}.a`, `${KV}.b`]);
    await state.close();
  }, 90_000);

  it("a key repeated inside a resource body is refused at its pointer, with --json as data", async () => {
    const p = scratch();
    const text = `{"resource":{"${KV}":{"a":{"name":"strict-c","name":"strict-d"}}}}`;
    p.write("stack.json", text);
    const refused = await runCli(["plan", "--config", "stack.json", "--json"], { cwd: p.dir, env: env() });
    expect(refused.code).toBe(1);
    const out = JSON.parse(refused.stdout) as { diagnostics: Record<string, unknown>[] };
    expect(out.diagnostics).toHaveLength(1);
    expect(out.diagnostics[0]).toMatchObject({
      severity: "error",
      code: "takoform.config/duplicate-key",
      summary: `${p.path("stack.json")} repeats the key "name"`,
      address: `${KV}.a`,
      pointer: `/resource/${KV}/a/name`,
      detail: `At line 1, column ${text.indexOf('"name":"strict-d"') + 1}: duplicate member name "name".`,
    });
  }, 60_000);

  it("2,000 levels of nesting are refused with a diagnostic, not a stack overflow", async () => {
    const p = scratch();
    p.write("stack.json", `{"resource":{"${KV}":{"a":{"name":"strict-e","x":${"[".repeat(2000)}${"]".repeat(2000)}}}}}`);
    const refused = await runCli(["plan", "--config", "stack.json"], { cwd: p.dir, env: env() });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Error: ${p.path("stack.json")} nests too deeply\n\n  with ${KV}.a,`);
    expect(refused.stderr).toContain("nesting deeper than 256 levels");
    expect(refused.stderr).toContain(`Pointer: /resource/${KV}/a/x/0/0/0/0/… (256 levels)`);
    expect(refused.stderr).toContain("Code: takoform.config/nesting-too-deep");
    expectNoTrace(refused.stderr);
  }, 60_000);

  it("a number out of the double range inside a resource names the resource, its line, column and pointer", async () => {
    const p = scratch();
    const text = `{"resource":{"${KV}":{"dk":{"name":"strict-g","ttl":1e400}}}}`;
    p.write("stack.json", text);
    const refused = await runCli(["plan", "--config", "stack.json"], { cwd: p.dir, env: env() });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Error: ${p.path("stack.json")} is not valid JSON\n\n  with ${KV}.dk,`);
    expect(refused.stderr).toContain(`At line 1, column ${text.indexOf("1e400") + 1}: number outside the IEEE 754 double range.`);
    expect(refused.stderr).toContain(`Pointer: /resource/${KV}/dk/ttl`);
    expectNoTrace(refused.stderr);
    // Outside a resource's body there is no resource to name.
    p.write("stack.json", `{"resource":{"${KV}":{"dk":{"name":"strict-g"}}},"output":{"x":{"value":1e400}}}`);
    const outside = await runCli(["plan", "--config", "stack.json", "--json"], { cwd: p.dir, env: env() });
    const out = JSON.parse(outside.stdout) as { diagnostics: Record<string, unknown>[] };
    expect(out.diagnostics[0]).toMatchObject({ code: "takoform.config/invalid-json", pointer: "/output/x/value" });
    expect(out.diagnostics[0]).not.toHaveProperty("address");
  }, 60_000);

  it("invalid UTF-8 is refused at its byte, never decoded into U+FFFD", async () => {
    const p = scratch();
    const bytes = Buffer.concat([Buffer.from(`{"resource":{"${KV}":{"a":{"name":"strict-`), Buffer.from([0xff]), Buffer.from('"}}}}')]);
    writeFileSync(p.path("stack.json"), bytes);
    const refused = await runCli(["plan", "--config", "stack.json"], { cwd: p.dir, env: env() });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Error: ${p.path("stack.json")} is not UTF-8`);
    expect(refused.stderr).toContain(`(byte ${bytes.indexOf(0xff)}): an invalid UTF-8 byte sequence`);
    expect(refused.stderr).toContain(`Pointer: /resource/${KV}/a/name`);
  }, 60_000);

  it("a var file and a JSON variable value are read strictly too", async () => {
    const p = scratch();
    p.write("stack.json", JSON.stringify({ variable: { tags: { type: "map(string)" } }, resource: { [KV]: { a: { name: "strict-f" } } } }));
    p.write("vars.json", '{"tags": {"a": "1", "a": "2"}}');
    const fromFile = await runCli(["plan", "--config", "stack.json", "--var-file", "vars.json"], { cwd: p.dir, env: env() });
    expect(fromFile.code).toBe(1);
    expect(fromFile.stderr).toContain('Error: The var file vars.json repeats the key "a"');
    expect(fromFile.stderr).toContain("Pointer: /tags/a");
    const fromEnv = await runCli(["plan", "--config", "stack.json"], { cwd: p.dir, env: { ...env(), TF_VAR_tags: '{"a":"1","a":"2"}' } });
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stderr).toContain('Error: The value of variable "tags" repeats the key "a"');
    expect(fromEnv.stderr).toContain("Code: takoform.config/variable-type");
    // A well-formed var file is used.
    p.write("vars.json", '{"tags": {"a": "1"}}');
    const ok = await runCli(["plan", "--config", "stack.json", "--var-file", "vars.json"], { cwd: p.dir, env: env() });
    expect(ok.code, ok.stderr).toBe(0);
  }, 90_000);

  it("cdktf.json is read strictly before the app runs", async () => {
    const p = scratch();
    p.write("cdktf.json", '{"app": "node -e \\"process.exit(3)\\"", "app": "true"}');
    const refused = await runCli(["plan"], { cwd: p.dir, env: env() });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Error: ${p.path("cdktf.json")} repeats the key "app"`);
    expect(refused.stderr).not.toContain("exited with code");
  }, 60_000);

  it("a saved plan with a repeated key is refused before anything is applied", async () => {
    const p = scratch();
    p.write("stack.json", JSON.stringify({ resource: { [KV]: { a: { name: "strict-g" } } } }));
    const planned = await runCli(["plan", "--config", "stack.json", "--out", "tf.plan"], { cwd: p.dir, env: env() });
    expect(planned.code, planned.stderr).toBe(0);
    const text = readFileSync(p.path("tf.plan"), "utf8");
    writeFileSync(p.path("tf.plan"), text.replace(/^\{/, '{"format":"x",'));
    const before = timeline(host.mutations);
    const refused = await runCli(["apply", "tf.plan"], { cwd: p.dir, env: env() });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("Error: tf.plan is not a takoform plan file");
    expect(refused.stderr).toContain('repeats the key "format"');
    expect(refused.stderr).toContain("Code: takoform.engine/plan-file-invalid");
    expect(timeline(host.mutations)).toEqual(before);
  }, 60_000);
});

describe("strict reading, in-process", () => {
  it("a document given already parsed is bounded by the expression parser", () => {
    let deep: unknown = [];
    for (let i = 0; i < 5000; i++) deep = [deep];
    const loaded = loadStackConfig({ resource: { [KV]: { a: { name: "a", x: deep } } } });
    expect(loaded.config).toBeNull();
    expect(loaded.diagnostics).toHaveLength(1);
    expect(loaded.diagnostics[0]).toMatchObject({
      severity: "error",
      code: "takoform.config/unsupported-expression",
      address: `${KV}.a`,
      summary: `Value nested too deeply in ${KV}.a`,
    });
  });

  it("nesting up to the limit is read, one level more is refused", () => {
    // The attribute value starts at depth 4 (resource → type → name → attribute).
    const at = (levels: number) => `{"resource":{"${KV}":{"a":{"name":"a","x":${"[".repeat(levels)}${"]".repeat(levels)}}}}}`;
    const fits = loadStackConfig(at(252));
    expect(fits.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const over = loadStackConfig(at(253));
    expect(over.diagnostics[0]).toMatchObject({ code: "takoform.config/nesting-too-deep" });
  });

  it("a repeated key is refused whether it is the first or the last copy that is empty", () => {
    for (const text of [
      '{"resource":{},"resource":{"x":{}}}',
      '{"output":{"a":{"value":1}},"output":{"a":{"value":2}}}',
      '{"variable":{"v":{"default":1,"default":2}}}',
    ]) {
      const loaded = loadStackConfig(text, { file: "cdk.tf.json" });
      expect(loaded.config).toBeNull();
      expect(loaded.diagnostics[0]).toMatchObject({ code: "takoform.config/duplicate-key" });
    }
  });

  it("a sensitive variable's bad JSON is reported without where the reader stopped", () => {
    const variables = new Map([
      [
        "secret",
        { name: "secret", type: { kind: "map" as const, element: { kind: "string" as const } }, typeText: "map(string)", sensitive: true, nullable: true },
      ],
    ]);
    const resolved = resolveVariables(variables, { env: { TF_VAR_secret: '{"hunter2": "x", "hunter2": "y"}' } });
    expect(resolved.diagnostics).toHaveLength(1);
    expect(JSON.stringify(resolved.diagnostics)).not.toMatch(/line 1|hunter2/);
    expect(resolved.diagnostics[0]!.summary).toBe('The value of the sensitive variable "secret" is not valid JSON');
    expect(resolved.diagnostics[0]!.detail).toBe("TF_VAR_secret must be JSON text for the type map(string).");
  });

  it("decodePlanFile refuses a repeated key with a PlanFileError", () => {
    let thrown: unknown;
    try {
      decodePlanFile('{"format":"takoform-plan@1","format":"takoform-plan@1"}', "p.plan");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PlanFileError);
    expect((thrown as PlanFileError).diagnostic).toMatchObject({ code: "takoform.engine/plan-file-invalid", summary: "p.plan is not a takoform plan file" });
    expect((thrown as PlanFileError).diagnostic.detail).toBe('p.plan repeats the key "format". At line 1, column 29: duplicate member name "format".');
  });
});
