// The app's last synthesis, read without running the app. The commands that only read state
// (`state list/show/pull`, `output`, `show`) find a stack's state through it, as Terraform's
// read-only commands use the backend `terraform init` recorded instead of evaluating the
// configuration: no typecheck, no app run, so they answer in the time of a state read and work
// while the app does not compile. The state they find is the one the last run used, which is
// where the resources are, even when the code has since been edited to name another backend.

import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { isPlainObject } from "./diagnostics.ts";
import { outdirOf, readManifest, type Manifest } from "./manifest.ts";
import { readStrictJson } from "./strict-read.ts";

/** A synthesis read back: where it is and what its manifest lists (a SynthResult without the run's own figures). */
export interface LastSynth extends Manifest {
  outdir: string;
}

/**
 * The stacks of the app's last synthesis (`<outdir>/manifest.json` and every stack file it lists),
 * or null when there is none to trust: no cdktf.json, no manifest (the app never ran, or its last
 * run wrote none), a manifest with errors, or a stack file missing. The caller then runs the app
 * instead. A run whose app failed publishes nothing (synth-staging.ts): the last good synthesis
 * stays.
 */
export async function readLastSynth(projectDir: string): Promise<LastSynth | null> {
  const dir = resolve(projectDir);
  let bytes: Uint8Array;
  try {
    bytes = await readFile(join(dir, "cdktf.json"));
  } catch {
    return null;
  }
  const read = readStrictJson(bytes, { what: join(dir, "cdktf.json"), repair: "Fix the JSON in cdktf.json." });
  if (!read.ok || !isPlainObject(read.value)) return null;
  const outdir = outdirOf(dir, read.value);
  if (!existsSync(join(outdir, "manifest.json"))) return null;
  const manifest = await readManifest(outdir);
  if (manifest.stacks.size === 0 || manifest.diagnostics.some((d) => d.severity === "error")) return null;
  if ([...manifest.stacks.values()].some((file) => !existsSync(file))) return null;
  return { outdir, stacks: manifest.stacks, dependencies: manifest.dependencies, diagnostics: manifest.diagnostics };
}
