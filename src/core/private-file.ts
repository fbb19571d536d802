// Files only their owner may read (saved plans, which carry sealed secrets and the shape of a
// project's infrastructure). `writeFile`'s `mode` applies only to a file it creates, so writing
// over an older file readable by others would keep that file's mode; instead a new file is made
// 0600 beside it and renamed over it, so a reader sees the old file or the new, never half of one.

import { randomBytes } from "node:crypto";
import { rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Writes `text` to `path` readable by its owner alone, replacing whatever file is there. */
export async function writePrivately(path: string, text: string): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}`);
  try {
    await writeFile(temporary, text, { mode: 0o600, flag: "wx" });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
