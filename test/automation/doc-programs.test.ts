// The program each of docs/automation.md and docs/testing.md opens with, run exactly as printed
// (the first `ts` block, byte for byte), as a user runs it: the automation program with tsx from a
// copy of examples/worker-app, deploying it to the embedded host and printing its `url` output;
// the testing program as a vitest file of a project with a worker in dist/.

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { exampleProject, linkNodeModules } from "../support/node-modules.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The first ```ts block of a doc. */
function firstProgram(doc: string): string {
  const text = readFileSync(join(ROOT, "docs", doc), "utf8");
  const match = /```ts\n([\s\S]*?)```/.exec(text);
  if (match === null) throw new Error(`docs/${doc} has no ts block`);
  return match[1]!;
}

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "takoform-doc-program-"));
  dirs.push(dir);
  return dir;
}

/** The environment of a user with nothing configured: no endpoint, so the embedded host. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  for (const name of Object.keys(env)) if (name.startsWith("TAKOFORM_")) delete env[name];
  return env;
}

describe("the docs' opening programs, run as printed", () => {
  it("docs/automation.md: run from examples/worker-app, applies it to the embedded host and prints its url", () => {
    const dir = scratch();
    exampleProject("worker-app", dir, "worker-app");
    writeFileSync(join(dir, "deploy.ts"), firstProgram("automation.md"));
    const run = spawnSync(process.execPath, ["--import", "tsx", "deploy.ts"], { cwd: dir, encoding: "utf8", env: userEnv(), timeout: 180_000 });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^https:\/\/counter-endpoint-[0-9a-f]+\.workers\.localhost\/\n$/);
    // Its events went to stderr: one line per step done.
    expect(run.stderr).toMatch(/takoform_worker_endpoint\.[^:]+: done in \d+ ms/);
  }, 200_000);

  it("docs/testing.md: a vitest file that deploys a stack to a TestHost and requests its worker", () => {
    const dir = scratch();
    linkNodeModules(dir);
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "testing-doc", private: true, type: "module" }));
    mkdirSync(join(dir, "dist"));
    writeFileSync(join(dir, "dist", "index.js"), `export default { async fetch() { return new Response("hello"); } };\n`);
    writeFileSync(join(dir, "stack.test.ts"), firstProgram("testing.md"));
    const run = spawnSync(process.execPath, [join(dir, "node_modules", "vitest", "vitest.mjs"), "run"], {
      cwd: dir,
      encoding: "utf8",
      env: userEnv(),
      timeout: 180_000,
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Tests\s+1 passed/);
  }, 200_000);
});
