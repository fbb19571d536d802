// `moveResource` for the PostgreSQL store: the statements of one move, run by the store inside its
// fenced write transaction (store.ts), after the workspace row's serial was bumped — so the row
// is held, every write committed before is visible, and a refused move rolls back to nothing.
// Which records move and how edges are renamed are the storage-neutral rules of ../move.ts.

import type { PoolClient } from "pg";
import { StateMoveError } from "../errors.ts";
import { movedAddress, renameInEdges } from "../move.ts";
import { deposedAddress } from "../records.ts";
import type { ContributionEdge, StateMove } from "../types.ts";
import type { PgTables } from "./schema.ts";

interface Candidate {
  address: string;
  busy: boolean;
  dependencies: string | null;
  contributions: string | null;
}

/**
 * Moves `from` (and its deposed objects) to `to` in the caller's transaction, writing `serial`
 * on every row it changes. One read finds every row that matters: those in flight, the two
 * families, and the rows whose edge JSON mentions `from` (`"from` matches the exact address and
 * its deposed forms; starts_with, not LIKE, since `_` in an address is a LIKE wildcard).
 */
export async function moveRecords(client: PoolClient, t: PgTables, id: number, from: string, to: string, serial: number): Promise<StateMove> {
  const needle = JSON.stringify(from).slice(0, -1);
  const { rows } = await client.query<Candidate>(
    `SELECT address, intent IS NOT NULL AS busy, dependencies, contributions FROM ${t.resources}
     WHERE state_id = $1 AND (intent IS NOT NULL OR address IN ($2, $4) OR starts_with(address, $3) OR starts_with(address, $5)
       OR strpos(dependencies, $6) > 0 OR strpos(contributions, $6) > 0)
     ORDER BY address`,
    [id, from, deposedAddress(from, ""), to, deposedAddress(to, ""), needle],
  );
  const busy = rows.filter((r) => r.busy).map((r) => r.address);
  if (busy.length > 0) throw new StateMoveError(from, to, "in-flight", busy);
  const sources = rows.filter((r) => movedAddress(r.address, from, to) !== null).map((r) => r.address);
  if (!sources.includes(from)) throw new StateMoveError(from, to, "source-missing", []);
  const taken = rows.filter((r) => r.address === to || r.address.startsWith(deposedAddress(to, ""))).map((r) => r.address);
  if (taken.length > 0) throw new StateMoveError(from, to, "target-exists", taken);

  const moved = sources.map((address) => ({ from: address, to: movedAddress(address, from, to)! }));
  const edgeRows: { address: string; dependencies: string | null; contributions: string | null }[] = [];
  const edges: string[] = [];
  for (const row of rows) {
    const dependencies = row.dependencies === null ? [] : (JSON.parse(row.dependencies) as string[]);
    const contributions = row.contributions === null ? [] : (JSON.parse(row.contributions) as ContributionEdge[]);
    const renamed = renameInEdges(dependencies, contributions, from, to);
    if (renamed === null) continue;
    const list = (value: readonly unknown[]) => (value.length === 0 ? null : JSON.stringify(value));
    // A moved row's edges are written under its new address (the rename runs first).
    const at = movedAddress(row.address, from, to) ?? row.address;
    edgeRows.push({ address: at, dependencies: list(renamed.dependencies), contributions: list(renamed.contributions) });
    if (at === row.address) edges.push(row.address);
  }
  await client.query(
    `UPDATE ${t.resources} r SET address = x.dest, serial = $3 FROM json_to_recordset($2::json) AS x(source text, dest text)
     WHERE r.state_id = $1 AND r.address = x.source`,
    [id, JSON.stringify(moved.map((m) => ({ source: m.from, dest: m.to }))), serial],
  );
  if (edgeRows.length > 0) {
    await client.query(
      `UPDATE ${t.resources} r SET dependencies = x.dependencies, contributions = x.contributions, serial = $3
       FROM json_to_recordset($2::json) AS x(address text, dependencies text, contributions text)
       WHERE r.state_id = $1 AND r.address = x.address`,
      [id, JSON.stringify(edgeRows), serial],
    );
  }
  return { moved, edges };
}
