// A local state file that is damaged — bytes overwritten, cut short, emptied, or another
// program's SQLite file in its place — is reported as StateDamagedError naming the file and what
// is wrong with it, wherever SQLite notices: when the file is opened, or at the first read of a
// damaged page, deep inside a plan. The command turns it into a diagnostic with the repair
// (src/automation/state-damage.ts), never a stack trace (issue 26, item 4).
//
// Every open checks the whole file (`PRAGMA quick_check`, which reads every page): SQLite notices
// damage only on the pages a query reads, and a query whose b-tree page was overwritten can come
// back with fewer rows instead of an error — a `state list` that silently lacks records. The check
// is linear in the file (measured in docs/state.md §9). SQLite's errors found later (the file
// damaged while a command runs) are converted where they surface (reportingDamage).

import { statSync } from "node:fs";
import { StateFormatError } from "../errors.ts";

/** What is wrong with the file. */
export type DamageKind = "empty" | "not-sqlite" | "malformed" | "foreign";

/** The local state file is damaged or is not a takoform state (module comment). */
export class StateDamagedError extends StateFormatError {
  override name = "StateDamagedError";
  constructor(
    path: string,
    readonly kind: DamageKind,
    /** What is wrong, without the file's name. */
    readonly detail: string,
  ) {
    super(path, detail);
  }
}

/** SQLite's own words for a file whose bytes are not a (whole) database. */
const DAMAGE_CODES: Readonly<Record<string, Exclude<DamageKind, "empty" | "foreign">>> = {
  SQLITE_CORRUPT: "malformed",
  SQLITE_CORRUPT_INDEX: "malformed",
  SQLITE_CORRUPT_SEQUENCE: "malformed",
  SQLITE_CORRUPT_VTAB: "malformed",
  SQLITE_IOERR_SHORT_READ: "malformed",
  SQLITE_NOTADB: "not-sqlite",
};

/** The StateDamagedError an error from SQLite means, or undefined when it is not about damage. */
export function damageOf(path: string, error: unknown): StateDamagedError | undefined {
  if (error instanceof StateDamagedError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const kind = typeof code === "string" ? DAMAGE_CODES[code] : undefined;
  if (kind === undefined) return undefined;
  const detail =
    kind === "not-sqlite"
      ? "its bytes are not an SQLite database (overwritten, or not a state file at all)"
      : `its bytes are damaged: SQLite reports "${(error as Error).message}" (bytes overwritten, or the file cut short)`;
  return new StateDamagedError(path, kind, detail);
}

/**
 * A state file of zero bytes. A state file is only ever created whole (create.ts), so an empty
 * one is damage (emptied by another program, or a disk that lost it), never a state being made.
 */
export function checkNotEmpty(path: string): void {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return; // not there: the caller's open reports it
  }
  if (size === 0) throw new StateDamagedError(path, "empty", "the file is empty (0 bytes)");
}

/** Reads every page of the open database; any damage is a StateDamagedError naming `path`. */
export function checkWhole(db: { pragma(source: string, options: { simple: true }): unknown }, path: string): void {
  let found: unknown;
  try {
    found = db.pragma("quick_check(1)", { simple: true });
  } catch (error) {
    throw damageOf(path, error) ?? error;
  }
  if (found !== "ok") throw new StateDamagedError(path, "malformed", `its bytes are damaged: SQLite's check reports "${String(found)}"`);
}

/**
 * `target` with every method call's damage error turned into StateDamagedError (thrown, or the
 * rejection of a returned promise); everything else passes through unchanged.
 */
export function reportingDamage<T extends object>(target: T, path: string): T {
  const rethrow = (error: unknown): never => {
    throw damageOf(path, error) ?? error;
  };
  return new Proxy(target, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key, object);
      if (typeof value !== "function") return value;
      return (...args: unknown[]): unknown => {
        try {
          const result: unknown = (value as (...a: unknown[]) => unknown).apply(object, args);
          return result instanceof Promise ? result.catch(rethrow) : result;
        } catch (error) {
          return rethrow(error);
        }
      };
    },
  });
}
