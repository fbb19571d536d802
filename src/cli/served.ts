// What `takoform host serve` and `takoform dev` print about the workers they run, the runtime
// settings both take (secrets for requiredSensitiveVars), and how both stop.

import { errorText } from "./console.ts";
import { CliUsageError } from "./command.ts";
import type { Console } from "./console.ts";
import { watchStarter } from "./starter-watch.ts";

/**
 * A worker the host serves, as the host's runtime announces it (its ServedWorker): what these
 * lines print and compare, named here so the CLI imports no host type.
 */
export interface ServedWorker {
  tenant: string;
  space: string;
  name: string;
  addresses: readonly { hostUrl: string; pathUrl: string }[];
}

/** One block per served worker: its name, then both forms of each address. */
export function servedLines(served: readonly ServedWorker[]): string[] {
  const lines: string[] = [];
  for (const worker of served) {
    const who = `${worker.space}/${worker.name}`;
    if (worker.addresses.length === 0) {
      lines.push(`worker ${who}: deployed, no endpoint or custom domain (reached through service bindings, cron triggers and queues)`);
      continue;
    }
    lines.push(`worker ${who}:`);
    for (const a of worker.addresses) {
      lines.push(`  ${a.hostUrl}`);
      lines.push(`  ${a.pathUrl}`);
    }
  }
  return lines;
}

/** What changed between two announcements, worker by worker. */
export function changedLines(before: readonly ServedWorker[], after: readonly ServedWorker[]): string[] {
  const key = (w: ServedWorker): string => `${w.tenant}/${w.space}/${w.name}`;
  const old = new Map(before.map((w) => [key(w), JSON.stringify(w)]));
  const now = new Set(after.map(key));
  const lines: string[] = [];
  for (const w of before) if (!now.has(key(w))) lines.push(`worker ${w.space}/${w.name}: no longer served`);
  lines.push(...servedLines(after.filter((w) => old.get(key(w)) !== JSON.stringify(w))));
  return lines;
}

/** `--secret NAME=VALUE` values, over TAKOFORM_SECRET_NAME from the environment. */
export function secretValues(flags: readonly string[], env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (key.startsWith("TAKOFORM_SECRET_") && value !== undefined && key.length > 16) out[key.slice(16)] = value;
  for (const item of flags) {
    const eq = item.indexOf("=");
    if (eq <= 0) throw new CliUsageError("--secret must be NAME=VALUE");
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}

/**
 * Serves until SIGINT, SIGTERM or SIGHUP — or until the process that started it is gone
 * (starter-watch.ts: `npx takoform dev` killed by its PID) — then closes the host; resolves to
 * the exit status.
 */
export function serveUntilStopped(local: { close(): Promise<void> }, io: Console): Promise<number> {
  return new Promise<number>((resolve) => {
    let stopping = false;
    const unwatch = watchStarter((pid) => {
      io.err(`takoform: the process that started this one (pid ${pid}) is gone; stopping.`);
      stop();
    });
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      unwatch();
      for (const signal of SIGNALS) process.off(signal, stop);
      local.close().then(
        () => resolve(0),
        (error: unknown) => {
          io.diagnostics([
            {
              severity: "error",
              summary: "Shutting the host down failed",
              cause: errorText(error),
              repair: "Its data directory may still be locked; stop any process left holding it.",
            },
          ]);
          resolve(1);
        },
      );
    };
    for (const signal of SIGNALS) process.on(signal, stop);
  });
}

/** Ctrl-C, `kill`, and a terminal that closed. */
const SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
