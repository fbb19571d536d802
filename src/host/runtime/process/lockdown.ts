// What the permission model leaves open and a worker has no use for: signalling other processes.
// Code that reaches this process's `process` through a constructor chain could otherwise kill
// the host (or any process of the same user) with process.kill, or lower its priority with
// os.setPriority — the permission model guards files, child processes, workers and addons, not
// signals. Run once, before any module of the bundle is evaluated; the ES module view of the
// built-ins (`import("node:os")`) is synced with the patched objects.

import os from "node:os";
import { syncBuiltinESMExports } from "node:module";

function denied(what: string): () => never {
  return () => {
    const error = new Error(`${what} is not available inside a worker's isolate`) as Error & { code: string };
    error.code = "ERR_ACCESS_DENIED";
    throw error;
  };
}

export function lockDown(): void {
  const proc = process as unknown as Record<string, unknown>;
  proc["kill"] = denied("process.kill");
  // process.kill's own binding, exposed on the process object.
  proc["_kill"] = denied("process._kill");
  (os as unknown as Record<string, unknown>)["setPriority"] = denied("os.setPriority");
  syncBuiltinESMExports();
}
