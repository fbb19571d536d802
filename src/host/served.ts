// The note a host leaves in the data directory it serves over HTTP, and how another process reads
// it: a command that finds the directory locked goes through that host instead of waiting.

import { readFileSync } from "node:fs";
import { join } from "node:path";

/** Written into a data directory while a host serves it over HTTP (see `servedEndpoint`). */
export const SERVED_FILE = "served.json";

export interface ServedEndpoint {
  url: string;
  pid: number;
  /** The serving host accepts the development token (it was started without --token). */
  devToken: boolean;
}

/**
 * Where the host holding a data directory serves it, when it does: read by a process that found
 * the directory locked, so it can go through that host instead of waiting for it. Undefined when
 * nothing is served, or when the file was left by a process that no longer holds the lock.
 */
export function servedEndpoint(dataDir: string): ServedEndpoint | undefined {
  try {
    const served = JSON.parse(readFileSync(join(dataDir, SERVED_FILE), "utf8")) as ServedEndpoint;
    const holder = Number.parseInt(readFileSync(join(dataDir, "host.lock"), "utf8").trim(), 10);
    if (typeof served.url !== "string" || served.pid !== holder) return undefined;
    return served;
  } catch {
    return undefined;
  }
}
