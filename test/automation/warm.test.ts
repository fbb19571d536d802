// A `warm` Workspace over the program's own LocalHost (docs/automation.md, "Deploying on every
// edit"), as `takoform dev --watch` drives one: the app runs only when synth() asks for it (the
// app counts its runs in a file), a content edit is redeployed by apply() alone (the plan re-reads
// the content's digests), a failed synth keeps the last good stack, and the host stays the
// program's: open after the Workspace closes, holding what was applied.

import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openWorkspace } from "takoform-cdk/automation";
import { LocalHost } from "takoform-cdk/host";
import { hostHolds, stacksProject } from "../scenario/stacks-app.ts";

/** One stack: a worker whose content is dist/ and KV namespaces. */
function app(kvs: string[], extra = ""): string {
  return `
import { appendFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { App, TerraformStack } from "cdktf";
import { EdgeKVNamespace, TakoformProvider, WorkerApp } from "takoform-cdk";
appendFileSync(fileURLToPath(new URL("runs.txt", import.meta.url)), "run\\n");
${extra}
const app = new App();
const stack = new TerraformStack(app, "web");
new TakoformProvider(stack, "takoform", {});
new WorkerApp(stack, "api", { name: "api", contentDir: "dist" });
${kvs.map((name) => `new EdgeKVNamespace(stack, "${name}", { name: "${name}" });`).join("\n")}
app.synth();
`;
}

describe("a warm Workspace over the program's own host", () => {
  const hosts: LocalHost[] = [];
  // A test that failed half-way leaves its host open: close it (closing twice is harmless).
  afterAll(async () => {
    for (const host of hosts) await host.close();
  });

  it("runs the app only on synth(), redeploys a content edit with apply() alone, and keeps the last good stack through a failed synth", async () => {
    const dir = stacksProject(app(["one"]));
    writeFileSync(join(dir, "runs.txt"), "");
    const runs = (): number => readFileSync(join(dir, "runs.txt"), "utf8").split("\n").filter(Boolean).length;
    // The worker's files are read from the current directory (docs/automation.md, "Relative paths"), as dev reads them.
    const cwd = process.cwd();
    process.chdir(dir);
    const host = await LocalHost.open({ data: join(dir, ".takoform", "host") });
    hosts.push(host);
    const ws = openWorkspace({ projectDir: dir, host: { local: host }, warm: true, env: { ...process.env, TAKOFORM_ENDPOINT: undefined } });
    try {
      // The first apply loads the stack itself: the app runs once, its timings with the result.
      const first = await ws.apply();
      expect(first, JSON.stringify(first.diagnostics)).toMatchObject({ status: "applied", ok: true, counts: { added: 5 } });
      expect(first.timings).toMatchObject({ synthMs: expect.any(Number), planMs: expect.any(Number), applyMs: expect.any(Number) });
      expect(runs()).toBe(1);
      // A state read uses the stack kept too: the app does not run for it.
      expect((await ws.resources()).map((r) => r.address)).toContain("takoform_edge_kv_namespace.one");
      expect(runs()).toBe(1);

      // A content edit: apply() alone plans the stack kept, re-reading the worker's code; the app does not run.
      appendFileSync(join(dir, "dist", "index.js"), "// edited\n");
      const edited = await ws.apply();
      expect(edited).toMatchObject({ status: "applied", ok: true });
      expect(edited.changes.length).toBeGreaterThan(0);
      expect(edited.timings?.synthMs).toBeUndefined();
      expect(runs()).toBe(1);

      // An app edit is not seen until synth() runs the app again; then apply() deploys what it wrote.
      writeFileSync(join(dir, "main.ts"), app(["one", "two"]));
      expect(await ws.apply()).toMatchObject({ status: "no-changes", ok: true });
      expect(runs()).toBe(1);
      const synth = await ws.synth({ typecheck: false });
      expect(synth).toMatchObject({ ok: true, stacks: new Map([["web", expect.stringContaining("web")]]) });
      expect(runs()).toBe(2);
      expect(await ws.apply()).toMatchObject({ status: "applied", ok: true, counts: { added: 1, changed: 0, destroyed: 0 } });
      expect(runs()).toBe(2);

      // A failed synth keeps the stack last loaded: the next apply still deploys it, nothing destroyed.
      writeFileSync(join(dir, "main.ts"), app(["one"], 'throw new Error("broken app");'));
      const broken = await ws.synth({ typecheck: false });
      expect(broken.ok).toBe(false);
      expect(broken.diagnostics.map((d) => d.detail ?? "").join("\n")).toContain("broken app");
      expect(await ws.apply()).toMatchObject({ status: "no-changes", ok: true });
    } finally {
      await ws.close();
      process.chdir(cwd);
    }
    // The host is the program's: still open after the Workspace closed (it serves), and it holds what was applied.
    const served = await host.listen("127.0.0.1", 0);
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
    await host.close();
    expect(hostHolds(dir)).toEqual(expect.arrayContaining(["EdgeKVNamespace one", "EdgeKVNamespace two", "ModuleWorker api"]));
  });
});
