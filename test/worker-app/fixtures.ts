// Shared by the WorkerApp tests: throwaway directories, and a synth of one stack to its raw
// Terraform JSON (validation skipped: the tests read what the constructs wrote, not what loads).

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, TerraformStack } from "cdktf";
import { TakoformProvider } from "../../src/constructs/provider.ts";

const dirs: string[] = [];

/** A fresh directory, removed by `removeWorkDirs()`. */
export function workDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "takoform-worker-app-"));
  dirs.push(dir);
  return dir;
}

/** Removes every directory `workDir()` made (a test file calls it from `afterAll`). */
export function removeWorkDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Synthesizes one stack with the Takoform provider configured and returns its cdk.tf.json. */
export function synth(build: (stack: TerraformStack) => void): any {
  const outdir = workDir();
  const app = new App({ outdir, skipValidation: true });
  const stack = new TerraformStack(app, "demo");
  new TakoformProvider(stack, "takoform", {});
  build(stack);
  app.synth();
  return JSON.parse(readFileSync(join(outdir, "stacks", "demo", "cdk.tf.json"), "utf8"));
}
