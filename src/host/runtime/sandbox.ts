// What keeps an isolate process out of its host: the Node flags and the environment it starts
// with. The vm context (process/globals.ts) only keeps ordinary code on the portable platform;
// code that walks a Web class's constructor chain (`Response.constructor("return process")()`)
// reaches the process's own realm and so its `process`. What that `process` can still do is
// decided here, by Node's permission model and an empty environment:
//
//   - file system: read exactly the isolate's own code file (isolate-code.ts); no other read and
//     no write anywhere — not /etc, not /proc (so not /proc/<host>/environ), not the project;
//   - no child processes, no worker threads, no native addons, no WASI, no process.binding, no
//     inspector session (the permission model's defaults: no --allow-* flag for them is given);
//   - the environment holds nothing of the host's (SystemRoot alone, on Windows, where the
//     platform needs it): no TAKOFORM_TOKEN, no PATH, no HOME;
//   - trace events, the one file Node writes without asking the permission model, go to the null
//     device.
//
// Node 20 spells the model --experimental-permission, Node 22.13 and later --permission; the
// running Node's own list of flags says which one it knows. A Node whose model also guards the
// network (--allow-net) is given network access: a worker's fetch() is part of its platform.

import { devNull } from "node:os";
import { realpathSync } from "node:fs";

const known = process.allowedNodeEnvironmentFlags;

/** The flag that turns the permission model on in this Node, or null where it has none. */
export function permissionFlag(): string | null {
  if (known.has("--permission")) return "--permission";
  if (known.has("--experimental-permission")) return "--experimental-permission";
  return null;
}

/** The Node flags of an isolate process starting from `code`, the one file it may read. */
export function sandboxFlags(code: string): string[] {
  const flag = permissionFlag();
  if (flag === null) return [];
  const readable = new Set([code]);
  try {
    readable.add(realpathSync(code));
  } catch {
    // The fork reports a missing file itself.
  }
  return [
    flag,
    ...[...readable].map((path) => `--allow-fs-read=${path}`),
    ...(known.has("--allow-net") ? ["--allow-net"] : []),
    `--trace-event-file-pattern=${devNull}`,
  ];
}

/** The isolate's environment: nothing of the host's; on Windows, SystemRoot, without which sockets and crypto fail. */
export function sandboxEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  if (process.platform === "win32" && process.env["SystemRoot"] !== undefined) env["SystemRoot"] = process.env["SystemRoot"];
  return env;
}
