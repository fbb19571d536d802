// A store that stops being usable under a call — its PostgreSQL server gone, cut off or silent,
// the disk under its file full — fails that call with StateUnavailableError naming the cause, the
// store and the call (issue 23 item 1), whichever method it was and wherever inside it the driver
// noticed: the engine then ends the run with a diagnostic, never an uncaught driver error.

import { statfsSync } from "node:fs";
import { StateUnavailableError, type UnavailableCall, type UnavailableReason } from "./errors.ts";

/** Node's socket errors: the server's connection failed, or (ETIMEDOUT) never answered. */
const SOCKET_CODES: Readonly<Record<string, UnavailableReason>> = {
  ECONNREFUSED: "connection-lost",
  ECONNRESET: "connection-lost",
  ECONNABORTED: "connection-lost",
  EPIPE: "connection-lost",
  EHOSTUNREACH: "connection-lost",
  ENETUNREACH: "connection-lost",
  ENOTFOUND: "connection-lost",
  EAI_AGAIN: "connection-lost",
  ETIMEDOUT: "timeout",
};

/**
 * node-postgres's own words for a connection that failed or a timeout it enforced
 * (connectionTimeoutMillis, query_timeout); it gives them no code.
 */
const DRIVER_MESSAGES: readonly [RegExp, UnavailableReason][] = [
  [/connection timeout|timeout exceeded when trying to connect|query read timeout/i, "timeout"],
  [/connection terminated|not queryable|connection ended|server closed the connection/i, "connection-lost"],
];

/** Why a PostgreSQL call failed, when it is the server being unavailable; undefined for any other failure. */
export function pgUnavailableReason(error: unknown): UnavailableReason | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string") {
    if (Object.hasOwn(SOCKET_CODES, code)) return SOCKET_CODES[code];
    // SQLSTATE class 08: connection exception; 57P01-03: the server shutting down or starting.
    if (code.startsWith("08") || code === "57P01" || code === "57P02" || code === "57P03") return "connection-lost";
    // 57014: cancelled, which is what statement_timeout does to a statement.
    if (code === "57014") return "timeout";
    // 53100: disk_full on the server.
    if (code === "53100") return "disk-full";
    return undefined;
  }
  if (!(error instanceof Error)) return undefined;
  return DRIVER_MESSAGES.find(([pattern]) => pattern.test(error.message))?.[1];
}

/**
 * Why a call on the local state file in `dir` failed, when it is the disk being full; undefined
 * otherwise. SQLite says SQLITE_FULL when a write finds no room, but a full disk met while
 * creating the WAL or its shared-memory file (the first open after the last handle closed) is
 * only an I/O error: that one counts as a full disk when the directory's filesystem has no room.
 */
export function fileUnavailableReason(error: unknown, dir: string): UnavailableReason | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  // SQLITE_FULL from the database, ENOSPC from the backup's copy (backup.ts).
  if (code === "SQLITE_FULL" || code === "ENOSPC") return "disk-full";
  // SQLITE_IOERR_SHORT_READ is damage (sqlite/damage.ts), never room.
  if (typeof code === "string" && code.startsWith("SQLITE_IOERR") && code !== "SQLITE_IOERR_SHORT_READ" && noRoom(dir)) return "disk-full";
  return undefined;
}

/** Less than one SQLite page (4 KiB) free for this process on the filesystem of `dir`. */
function noRoom(dir: string): boolean {
  try {
    const stats = statfsSync(dir);
    return stats.bavail * stats.bsize < 4096;
  } catch {
    return false;
  }
}

/** The methods whose first argument is the address they write. */
const ADDRESSED = new Set(["setIntent", "settle", "putResource", "removeResource", "moveResource", "get"]);

export interface StoreDescription {
  /** How messages name the store. */
  store: string;
  /** The directory a full disk holds (the state file's); absent for a server. */
  location?: string;
  reason(error: unknown): UnavailableReason | undefined;
  /** The driver's message as it may be shown (a PostgreSQL one scrubbed of the password). */
  text(error: unknown): string;
}

/** The StateUnavailableError `error` means for `call`, or undefined when it is some other failure. */
export function unavailableOf(error: unknown, described: StoreDescription, call: UnavailableCall): StateUnavailableError | undefined {
  if (error instanceof StateUnavailableError) return error;
  const reason = described.reason(error);
  return reason === undefined ? undefined : new StateUnavailableError(reason, described.store, described.location, call, described.text(error));
}

/**
 * `target` with every method call's unavailability error turned into StateUnavailableError
 * (thrown, or the rejection of a returned promise); everything else passes through unchanged.
 */
export function reportingUnavailable<T extends object>(target: T, described: StoreDescription): T {
  const convert = (method: string, args: unknown[], error: unknown): never => {
    const call: UnavailableCall = { method, ...(ADDRESSED.has(method) && typeof args[0] === "string" ? { address: args[0] } : {}) };
    throw unavailableOf(error, described, call) ?? error;
  };
  return new Proxy(target, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key, object);
      if (typeof value !== "function" || typeof key !== "string") return value;
      return (...args: unknown[]): unknown => {
        try {
          const result: unknown = (value as (...a: unknown[]) => unknown).apply(object, args);
          return result instanceof Promise ? result.catch((error: unknown) => convert(key, args, error)) : result;
        } catch (error) {
          return convert(key, args, error);
        }
      };
    },
  });
}
