// Reading the problems Takoform constructs collect, the way a user meets them: App.synth() runs
// every validation of the stack and throws one error listing them, one `  [path] message` line each.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, TerraformStack } from "cdktf";
import { TakoformProvider } from "../../src/index.ts";

/** The `[path] message` lines of cdktf's validation failure; throws anything else back. */
export function validationLines(error: unknown): string[] {
  const message = error instanceof Error ? error.message : "";
  if (!message.startsWith("Validation failed with the following errors:\n")) throw error;
  const lines = message.split("\n");
  const end = lines.indexOf("", 1);
  return lines.slice(1, end < 0 ? undefined : end).map((line) => line.replace(/^ {2}/, ""));
}

/**
 * Builds stack "demo" (with the Takoform provider) and runs app.synth(): the problems it lists,
 * or [] when the synth succeeded.
 */
export function synthProblems(build: (stack: TerraformStack) => void): string[] {
  const outdir = mkdtempSync(join(tmpdir(), "takoform-validation-"));
  try {
    const app = new App({ outdir });
    const stack = new TerraformStack(app, "demo");
    new TakoformProvider(stack, "takoform");
    build(stack);
    try {
      app.synth();
      return [];
    } catch (error) {
      return validationLines(error);
    }
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
