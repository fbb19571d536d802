// What an app's synthesis leaves behind, as cdktf writes it: the output directory cdktf.json
// names and `<outdir>/manifest.json`, which lists every stack's file, its dependencies and the
// annotations its constructs reported. Both a fresh synthesis (project.ts) and the last one
// (last-synth.ts) are read through here.

import { readFile } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import type { Diagnostic } from "../../core/index.ts";
import { configCode, isPlainObject } from "./diagnostics.ts";
import { readStrictJson } from "./strict-read.ts";

/** The app's output directory: cdktf.json's `output` (relative to the project), default `cdktf.out`. */
export function outdirOf(dir: string, project: Record<string, unknown>): string {
  const output = typeof project.output === "string" && project.output !== "" ? project.output : "cdktf.out";
  return isAbsolute(output) ? output : join(dir, output);
}

export interface Manifest {
  /** Stack name → absolute path of its cdk.tf.json, in name order. Empty when the manifest cannot be read. */
  stacks: Map<string, string>;
  /**
   * Stack name → the stacks it depends on, as cdktf records them: those `stack.addDependency`
   * named and those its cross-stack references read from (docs/stacks.md).
   */
  dependencies: Map<string, string[]>;
  diagnostics: Diagnostic[];
}

/**
 * Reads `<outdir>/manifest.json` as cdktf writes it: every stack's synthesized file, its
 * dependencies and the annotations its constructs reported (warnings and errors become
 * diagnostics). `app` names the command that wrote it, for messages.
 */
export async function readManifest(outdir: string, app?: string): Promise<Manifest> {
  const manifestPath = join(outdir, "manifest.json");
  const stacks = new Map<string, string>();
  const dependencies = new Map<string, string[]>();
  const diagnostics: Diagnostic[] = [];
  const fail = (summary: string, detail: string | undefined, repair: string): Manifest => {
    diagnostics.push({ severity: "error", code: configCode("manifest-invalid"), summary, ...(detail ? { detail } : {}), repair });
    return { stacks, dependencies, diagnostics };
  };
  let manifestBytes: Uint8Array;
  try {
    manifestBytes = await readFile(manifestPath);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    return fail(
      missing ? `The app${app !== undefined ? ` "${app}"` : ""} finished without writing ${manifestPath}` : `Cannot read ${manifestPath}`,
      missing ? "The app must call app.synth()." : (error as Error).message,
      missing ? "Call app.synth() at the end of the program." : "Re-run the synthesis.",
    );
  }
  const manifestRead = readStrictJson(manifestBytes, { what: manifestPath, repair: "Re-run the synthesis." });
  if (!manifestRead.ok) {
    diagnostics.push(manifestRead.diagnostic);
    return { stacks, dependencies, diagnostics };
  }
  const manifest: unknown = manifestRead.value;
  const stacksBlock = isPlainObject(manifest) && isPlainObject(manifest.stacks) ? manifest.stacks : null;
  if (stacksBlock === null) return fail(`${manifestPath} lists no stacks`, undefined, "Re-run the synthesis.");
  for (const name of Object.keys(stacksBlock).sort()) {
    const entry = stacksBlock[name];
    if (!isPlainObject(entry) || typeof entry.synthesizedStackPath !== "string") continue;
    stacks.set(name, join(outdir, entry.synthesizedStackPath));
    const needs = Array.isArray(entry.dependencies) ? entry.dependencies.filter((d): d is string => typeof d === "string") : [];
    dependencies.set(name, [...new Set(needs)].sort());
    for (const annotation of Array.isArray(entry.annotations) ? entry.annotations : []) {
      if (!isPlainObject(annotation) || typeof annotation.message !== "string") continue;
      const level = String(annotation.level ?? "");
      if (!level.endsWith("warn") && !level.endsWith("error")) continue;
      diagnostics.push({
        severity: level.endsWith("error") ? "error" : "warning",
        code: configCode("app-annotation"),
        summary: annotation.message,
        detail: `Reported by the construct ${String(annotation.constructPath ?? "?")} in stack ${name}.`,
      });
    }
  }
  return { stacks, dependencies, diagnostics };
}
