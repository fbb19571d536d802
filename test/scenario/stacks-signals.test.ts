// Ctrl-C (SIGINT) during `takoform apply '*'` of several stacks, through the command against a
// test host whose writes wait at a gate. The app has two stacks: `first` (namespaces a then b,
// b depending on a) and `second` (one namespace; the stack depends on first). The timeline it
// expects, exactly:
//   1. the run plans both stacks and starts first's create of a, which waits at the host;
//   2. SIGINT arrives: the run says no new step starts, and the create in flight is answered;
//   3. a is recorded in first's state; first's b and the whole of second never start;
//   4. the command exits 130, and the host holds exactly what the two states record (a only);
//   5. the next `apply '*'` writes just b and second's namespace, nothing again.

import { afterEach, describe, expect, it } from "vitest";
import { runCli, Scratch, spawnCli, startHost, type TestHost } from "./harness.ts";

const KV = "takoform_edge_kv_namespace";
const STACK_TRACE = /\n\s+at .+:\d+:\d+\)?\n/;

/** An app of two stacks written the way cdktf writes them (`<outdir>/manifest.json`), second depending on first. */
const APP = `import { mkdirSync, writeFileSync } from "node:fs";
const out = process.env.CDKTF_OUTDIR ?? "cdktf.out";
const stacks = {
  first: { resource: { ${KV}: { a: { name: "int-a" }, b: { name: "int-b", depends_on: ["${KV}.a"] } } } },
  second: { resource: { ${KV}: { kv: { name: "int-second" } } } },
};
const manifest = { version: "0.20.0", stacks: {} };
for (const [name, document] of Object.entries(stacks)) {
  mkdirSync(\`\${out}/stacks/\${name}\`, { recursive: true });
  // The stack's name, as cdktf writes it, gives the stack its own state (docs/stacks.md).
  writeFileSync(\`\${out}/stacks/\${name}/cdk.tf.json\`, JSON.stringify({ "//": { metadata: { stackName: name } }, ...document }));
  manifest.stacks[name] = { name, synthesizedStackPath: \`stacks/\${name}/cdk.tf.json\`, dependencies: name === "second" ? ["first"] : [], annotations: [] };
}
writeFileSync(\`\${out}/manifest.json\`, JSON.stringify(manifest));
`;
const APPLY = ["apply", "*", "--auto-approve"];

let host: TestHost | undefined;
let scratch: Scratch | undefined;
afterEach(async () => {
  if (host !== undefined) {
    host.gate = null;
    await host.close();
  }
  scratch?.cleanup();
  host = scratch = undefined;
});

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The addresses `takoform state list --stack NAME` prints. */
async function stateList(dir: string, env: Record<string, string>, stack: string): Promise<string[]> {
  const listed = await runCli(["state", "list", "--stack", stack], { cwd: dir, env });
  // A stack never applied has no state yet (exit 1, "no state").
  if (listed.code !== 0) return [];
  return listed.stdout.split("\n").filter((line) => line.startsWith(KV));
}

describe("SIGINT during apply of several stacks", () => {
  it("finishes and records the step in flight, starts nothing after it, and exits 130", async () => {
    host = await startHost();
    scratch = new Scratch();
    scratch.write("cdktf.json", JSON.stringify({ app: "node app.mjs" }));
    scratch.write("app.mjs", APP);
    const env = { TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: "takoform-dev-token" };
    let release!: () => void;
    host.gate = new Promise<void>((resolve) => (release = resolve));
    const run = spawnCli(APPLY, { cwd: scratch.dir, env, timeoutMs: 120_000 });
    await until(() => host!.waiting === 1, "first's create of a to wait at the host");
    process.kill(run.pid!, "SIGINT");
    // The create in flight is answered only after the signal; the run records it and starts nothing else.
    await new Promise((r) => setTimeout(r, 300));
    host.gate = null;
    release();
    const result = await run.done;
    expect([result.code, result.signal], result.stdout + result.stderr).toEqual([130, null]);
    expect(result.stderr).toContain("No new step starts; the steps running now finish and are recorded.");
    expect(result.stderr).not.toMatch(STACK_TRACE);
    expect(host.mutations.map((m) => `${m.method} ${m.name} ${m.status}`)).toEqual(["PUT int-a 201"]);
    // What ran, exactly: first's a and nothing after it; second is not run, as a dependent of first.
    const applying = result.stdout.slice(result.stdout.indexOf("─── Stack first: applying ───"));
    expect(applying.split("\n").filter((line) => line.startsWith("first: ") || line.startsWith("second: "))).toEqual([
      `first: ${KV}.a: Creating...`,
      expect.stringMatching(new RegExp(`^first: ${KV}\\.a: Creation complete after [\\d.]+s \\[uid=\\w+\\]$`)),
    ]);
    expect(result.stdout).not.toContain("─── Stack second: applying ───");
    expect(result.stdout).toContain(
      ["Stacks:", "  first   failed after 1 added, 0 changed, 0 destroyed", "  second  not run: first did not succeed"].join("\n"),
    );
    expect(result.stdout).toContain("Apply failed! 2 stacks: 1 added, 0 changed, 0 destroyed; 1 failed (first), 1 not run (second).");
    expect(result.stderr).toContain("The apply was stopped before every step ran");
    expect(result.stderr).toContain('Stack "second" was not applied');
    // The host holds exactly what the states record: first's a, nothing of second.
    expect(await stateList(scratch.dir, env, "first")).toEqual([`${KV}.a`]);
    expect(await stateList(scratch.dir, env, "second")).toEqual([]);
    expect(host.host.controls.resourceCount()).toBe(1);
    // Nothing was left in flight or duplicated: the next run writes only what did not run.
    const next = await runCli(APPLY, { cwd: scratch.dir, env });
    expect(next.code, next.stdout + next.stderr).toBe(0);
    expect(host.mutations.map((m) => `${m.method} ${m.name} ${m.status}`)).toEqual(["PUT int-a 201", "PUT int-b 201", "PUT int-second 201"]);
    expect(await stateList(scratch.dir, env, "first")).toEqual([`${KV}.a`, `${KV}.b`]);
    expect(await stateList(scratch.dir, env, "second")).toEqual([`${KV}.kv`]);
    expect(host.host.controls.resourceCount()).toBe(3);
  }, 180_000);
});
