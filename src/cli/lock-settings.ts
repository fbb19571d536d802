// What the state-lock options say (lock-flags.ts): --lock-timeout and the lease length
// TAKOFORM_LOCK_LEASE names, as the milliseconds the published Workspace's runs take. Both are Go
// durations, as Terraform spells them, parsed by Workspace.parseDuration; a bad one is a usage
// error before anything runs.

import { Workspace } from "../automation/api.ts";
import { lastValue, CliUsageError, type ParsedArgs } from "./command.ts";

/** How long a run waits for another run's state lock (`--lock-timeout`; default 0: fail at once). */
export function lockTimeoutMs(args: ParsedArgs): number {
  const text = lastValue(args, "--lock-timeout");
  if (text === undefined) return 0;
  const ms = Workspace.parseDuration(text);
  if (ms === undefined || ms < 0) throw new CliUsageError(`--lock-timeout must be a duration such as 30s, 2m or 0, got ${JSON.stringify(text)}`);
  return ms;
}

/**
 * The state lock's lease length TAKOFORM_LOCK_LEASE names (a duration); undefined when it is not
 * set, so the lock's own default applies (60 s, the automation API's).
 */
export function leaseMs(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const text = env["TAKOFORM_LOCK_LEASE"];
  if (text === undefined || text === "") return undefined;
  const ms = Workspace.parseDuration(text);
  if (ms === undefined || ms <= 0) throw new CliUsageError(`TAKOFORM_LOCK_LEASE must be a positive duration such as 60s, got ${JSON.stringify(text)}`);
  return ms;
}
