// Scratch cdktf apps of several stacks, run through the command against the embedded host (issue
// 22): a project from the app's main.ts, the command run in it, and what the embedded host holds.

import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, expect } from "vitest";
import { linkNodeModules } from "../support/node-modules.ts";
import { runCli, type CliResult } from "./harness.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A project running `mainSource` as its app, with a worker's content in dist/ (removed after the file's tests). */
export function stacksProject(mainSource: string): string {
  const dir = mkdtempSync(join(tmpdir(), "takoform-stacks-"));
  dirs.push(dir);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "stacks", private: true, type: "module" }));
  writeFileSync(join(dir, "cdktf.json"), JSON.stringify({ app: "npx tsx main.ts", output: "cdktf.out" }));
  mkdirSync(join(dir, "dist"));
  writeFileSync(join(dir, "dist", "index.js"), 'export default { async fetch() { return new Response("api"); } };\n');
  writeFileSync(join(dir, "main.ts"), mainSource);
  linkNodeModules(dir);
  return dir;
}

/** `takoform ARGS` in the project, against its embedded host. */
export async function stacksCli(dir: string, args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return runCli(args, { cwd: dir, env: { TAKOFORM_ENDPOINT: undefined, TAKOFORM_TOKEN: undefined, ...env }, timeoutMs: 120_000 });
}

/** `takoform ARGS`, which must exit 0. */
export async function stacksOk(dir: string, args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  const result = await stacksCli(dir, args, env);
  expect(result.code, `takoform ${args.join(" ")}\n${result.stdout}\n${result.stderr}`).toBe(0);
  return result;
}

/** What the embedded host holds: `Kind name`, sorted. */
export function hostHolds(dir: string): string[] {
  const file = join(dir, ".takoform", "host", "host.db");
  if (!existsSync(file)) return [];
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT kind, name FROM resources").all() as { kind: string; name: string }[]).map((r) => `${r.kind} ${r.name}`).sort();
  } finally {
    db.close();
  }
}
