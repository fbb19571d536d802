// What an apply, destroy or refresh did, in numbers: the engine counts it, so an embedder gets the
// same figures the command prints (src/views/run.ts renders them).

import type { ApplyResult } from "./apply/types.ts";

/** The commands that write: `apply` (and `apply --destroy`/`--refresh-only`), `destroy`, `refresh`. */
export type RunKind = "apply" | "destroy" | "refresh";

export interface RunCounts {
  added: number;
  changed: number;
  destroyed: number;
  imported: number;
  /** Records removed blocks forgot (`destroy = false`): out of state, still on the host. */
  forgotten: number;
}

/** Resources added, changed, destroyed, imported and forgotten — only by steps that wrote. */
export function runCounts(result: ApplyResult | undefined): RunCounts {
  let added = 0,
    changed = 0,
    destroyed = 0,
    imported = 0,
    forgotten = 0;
  for (const o of result?.outcomes ?? []) {
    // A settle pass that found nothing to change, or a delete of an object already gone, changed nothing.
    if (o.status !== "ok" || o.noop === true) continue;
    if (o.action === "create" || o.action === "create-placeholder") added++;
    else if (o.action === "update" || o.action === "finalize" || o.action === "settle" || o.action === "revert") changed++;
    else if (o.action === "delete") destroyed++;
    else if (o.action === "import") imported++;
    else if (o.action === "forget") forgotten++;
  }
  return { added, changed, destroyed, imported, forgotten };
}
