// `moveResource` for the SQLite store: the statements of one move, run by the store inside its
// fenced write transaction (store.ts), so a refused move changes nothing and a done one is one
// commit with one serial.

import type BetterSqlite3 from "better-sqlite3";
import { StateMoveError } from "../errors.ts";
import { movedAddress, renameInEdges } from "../move.ts";
import { deposedAddress } from "../records.ts";
import type { ContributionEdge, StateMove } from "../types.ts";

type Db = BetterSqlite3.Database;

export class MoveStatements {
  private readonly inFlight;
  private readonly family;
  private readonly rename;
  private readonly withEdges;
  private readonly setEdges;

  constructor(db: Db) {
    this.inFlight = db.prepare<[], { address: string }>("SELECT address FROM resources WHERE intent IS NOT NULL ORDER BY address");
    // A resource and its deposed objects; compared with substr, since `_` in an address is a LIKE wildcard.
    this.family = db.prepare<[string, number, string], { address: string }>(
      "SELECT address FROM resources WHERE address = ? OR substr(address, 1, ?) = ? ORDER BY address",
    );
    this.rename = db.prepare<[string, number, string]>("UPDATE resources SET address = ?, serial = ? WHERE address = ?");
    // Only rows whose edge JSON mentions the address at all are parsed.
    this.withEdges = db.prepare<[string, string], { address: string; dependencies: string | null; contributions: string | null }>(
      "SELECT address, dependencies, contributions FROM resources WHERE instr(dependencies, ?) > 0 OR instr(contributions, ?) > 0 ORDER BY address",
    );
    this.setEdges = db.prepare<[string | null, string | null, number, string]>(
      "UPDATE resources SET dependencies = ?, contributions = ?, serial = ? WHERE address = ?",
    );
  }

  /** Runs inside the caller's transaction; `nextSerial` bumps the state serial (called once). */
  move(from: string, to: string, nextSerial: () => number): StateMove {
    const busy = this.inFlight.all().map((r) => r.address);
    if (busy.length > 0) throw new StateMoveError(from, to, "in-flight", busy);
    const sources = this.familyOf(from);
    if (!sources.includes(from)) throw new StateMoveError(from, to, "source-missing", []);
    const taken = this.familyOf(to);
    if (taken.length > 0) throw new StateMoveError(from, to, "target-exists", taken);

    const serial = nextSerial();
    const moved = sources.map((address) => ({ from: address, to: movedAddress(address, from, to)! }));
    for (const m of moved) this.rename.run(m.to, serial, m.from);
    const edges: string[] = [];
    const needle = JSON.stringify(from).slice(0, -1); // `"from`: the exact address and its deposed forms
    for (const row of this.withEdges.all(needle, needle)) {
      const dependencies = row.dependencies === null ? [] : (JSON.parse(row.dependencies) as string[]);
      const contributions = row.contributions === null ? [] : (JSON.parse(row.contributions) as ContributionEdge[]);
      const renamed = renameInEdges(dependencies, contributions, from, to);
      if (renamed === null) continue;
      const list = (value: readonly unknown[]) => (value.length === 0 ? null : JSON.stringify(value));
      this.setEdges.run(list(renamed.dependencies), list(renamed.contributions), serial, row.address);
      if (!moved.some((m) => m.to === row.address)) edges.push(row.address);
    }
    return { moved, edges };
  }

  private familyOf(address: string): string[] {
    const prefix = deposedAddress(address, "");
    return this.family.all(address, prefix.length, prefix).map((r) => r.address);
  }
}
