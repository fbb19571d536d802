// Where an app run writes its synthesis. Runs of one project may overlap (two terminals, a CI
// matrix, `dev --watch` beside an apply), and cdktf writes each file by truncating it first: a run
// reading `cdktf.out` while another app writes it read an empty or half-written cdk.tf.json. So
// each app run writes into a directory of its own inside the output directory, and the files are
// then moved into place one by one: a rename replaces a file whole, so any reader (this run, another,
// or a read-only command reading the last synthesis) sees one run's complete file or another's,
// never a part. The manifest moves last, so it never names a stack file not yet in place.

import { mkdir, mkdtemp, readdir, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";

const MANIFEST = "manifest.json";

/** A fresh directory for one app run's synthesis, inside `outdir` (made, with its parents). */
export async function synthStaging(outdir: string): Promise<string> {
  await mkdir(outdir, { recursive: true });
  return mkdtemp(join(outdir, ".synth-"));
}

/** Every file under `dir`, as paths relative to it. */
async function filesUnder(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const path = prefix === "" ? entry.name : join(prefix, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(dir, path)));
    else out.push(path);
  }
  return out;
}

/**
 * Moves a finished synthesis from `staging` into `outdir`, the manifest last, and removes
 * `staging`. Returns false (and publishes nothing) when the app wrote no manifest.
 */
export async function publishSynth(staging: string, outdir: string): Promise<boolean> {
  try {
    const files = await filesUnder(staging);
    if (!files.includes(MANIFEST)) return false;
    for (const file of [...files.filter((f) => f !== MANIFEST), MANIFEST]) {
      await mkdir(dirname(join(outdir, file)), { recursive: true });
      await rename(join(staging, file), join(outdir, file));
    }
    return true;
  } finally {
    await dropStaging(staging);
  }
}

/** Removes a run's staging directory (an app that failed leaves nothing behind). */
export async function dropStaging(staging: string): Promise<void> {
  await rm(staging, { recursive: true, force: true });
}
