// The state-lock options of the commands that write state (apply, destroy, refresh, import,
// state rm, state rebind): --lock-timeout, --force-unlock, and the lease length.

import { parseGoDuration } from "../core/index.ts";
import { CliUsageError } from "./command.ts";

export const LOCK_FLAGS = { values: ["--lock-timeout"], switches: ["--force-unlock"] } as const;

export const LOCK_HELP = `  --lock-timeout DUR     Wait this long for another run's state lock (e.g. 30s; default 0: fail at once)
  --force-unlock         Take over a STALE state lock (one whose holder stopped renewing it)`;

/**
 * The state lock's lease length TAKOFORM_LOCK_LEASE names (a duration); undefined when it is not
 * set, so the lock's own default applies (60 s, the engine's; the automation API's too).
 */
export function leaseMs(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const text = env["TAKOFORM_LOCK_LEASE"];
  if (text === undefined || text === "") return undefined;
  const ms = parseGoDuration(text);
  if (ms === undefined || ms <= 0) throw new CliUsageError(`TAKOFORM_LOCK_LEASE must be a positive duration such as 60s, got ${JSON.stringify(text)}`);
  return ms;
}
