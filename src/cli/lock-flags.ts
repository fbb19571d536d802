// The state-lock options of the commands that write state (apply, destroy, refresh, import,
// state rm, state rebind): --lock-timeout and --force-unlock, as flags and help. What they say is
// read by lock-settings.ts, on the published Workspace: this file stays free of it, so a command's
// help (`state --help`) loads none of it.

export const LOCK_FLAGS = { values: ["--lock-timeout"], switches: ["--force-unlock"] } as const;

export const LOCK_HELP = `  --lock-timeout DUR     Wait this long for another run's state lock (e.g. 30s; default 0: fail at once)
  --force-unlock         Take over a STALE state lock (one whose holder stopped renewing it)`;
