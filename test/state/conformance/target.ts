// The two stores the conformance suite runs against, behind one shape. Every handle is opened
// through the backend layer the command uses (openBackendStore / openBackendReader with a
// resolved BackendSpec), so the suite tests the real path; child processes get the same spec as
// JSON and open it the same way (fixtures/open.ts).

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openBackendReader, openBackendStore } from "../../../src/state/backend/open.ts";
import type { BackendSpec } from "../../../src/state/backend/resolve.ts";
import type { StateReader, StateStore } from "../../../src/state/types.ts";
import { freshSchema, pgUrl, schemaText, withClient } from "../../support/pg.ts";

/** One empty state for one test. */
export interface Place {
  spec: BackendSpec;
  open(options?: { now?: () => number }): Promise<StateStore>;
  openReader(): Promise<StateReader>;
  /** Everything the store keeps, as text: what a secret must never appear in. */
  rawText(): Promise<string>;
  /** Overwrites columns of the lock as stored (lease tests): hostname, pid namespace, expiry. */
  editLock(fields: { pid?: number; hostname?: string; pidNamespace?: string; expiresAt?: number }): Promise<void>;
  /** The store's own integrity check of everything it holds (after a process was killed mid-write). */
  checkIntegrity(): Promise<void>;
  /** The `terraform.backend` block of a stack that names this state (undefined: the default local file). */
  backendBlock(): Record<string, unknown> | undefined;
  cleanup(): void;
}

export interface StoreTarget {
  name: "sqlite" | "pg";
  /** The store's lease policy (src/state/lease.ts): does an expired lease get taken over without --force-unlock? */
  takesOverExpired: boolean;
  /** A fresh place; `dir` is where a local file goes (a project directory for CLI tests). */
  place(dir?: string): Place;
}

function opener(spec: BackendSpec): Pick<Place, "open" | "openReader"> {
  return {
    open: (options = {}) => openBackendStore(spec, options),
    openReader: () => openBackendReader(spec),
  };
}

export const sqliteTarget: StoreTarget = {
  name: "sqlite",
  takesOverExpired: false,
  place(dir?: string): Place {
    const own = dir === undefined ? mkdtempSync(join(tmpdir(), "takoform-conformance-")) : null;
    const path = join(dir ?? own!, ".takoform", "state.db");
    const spec: BackendSpec = { type: "local", path, workspace: "default", configuredPath: null, workspaceDir: null };
    return {
      spec,
      ...opener(spec),
      async rawText() {
        return [path, `${path}-wal`]
          .map((f) => {
            try {
              return readFileSync(f).toString("latin1");
            } catch {
              return "";
            }
          })
          .join("\n");
      },
      async editLock(fields) {
        const Database = (await import("better-sqlite3")).default;
        const db = new Database(path);
        if (fields.pid !== undefined) db.prepare("UPDATE lock SET pid = ? WHERE id = 1").run(fields.pid);
        if (fields.hostname !== undefined) db.prepare("UPDATE lock SET hostname = ? WHERE id = 1").run(fields.hostname);
        if (fields.pidNamespace !== undefined) db.prepare("UPDATE lock SET pid_namespace = ? WHERE id = 1").run(fields.pidNamespace);
        if (fields.expiresAt !== undefined) db.prepare("UPDATE lock SET expires_at = ? WHERE id = 1").run(fields.expiresAt);
        db.close();
      },
      async checkIntegrity() {
        const Database = (await import("better-sqlite3")).default;
        const db = new Database(path, { readonly: true });
        try {
          const result = db.pragma("integrity_check", { simple: true });
          if (result !== "ok") throw new Error(`PRAGMA integrity_check: ${String(result)}`);
        } finally {
          db.close();
        }
      },
      backendBlock: () => undefined,
      cleanup: () => {
        if (own !== null) rmSync(own, { recursive: true, force: true });
      },
    };
  },
};

export const pgTarget: StoreTarget = {
  name: "pg",
  takesOverExpired: true,
  place(): Place {
    const schema = freshSchema("conf");
    const spec: BackendSpec = {
      type: "pg",
      connStr: pgUrl(),
      connStrFrom: "conn_str",
      schemaName: schema,
      skipSchemaCreation: false,
      skipTableCreation: false,
      skipIndexCreation: false,
      workspace: "default",
    };
    return {
      spec,
      ...opener(spec),
      rawText: () => schemaText(schema),
      async editLock(fields) {
        await withClient(async (client) => {
          if (fields.pid !== undefined) await client.query(`UPDATE "${schema}".takoform_states SET lock_pid = $1 WHERE name = 'default'`, [fields.pid]);
          if (fields.hostname !== undefined)
            await client.query(`UPDATE "${schema}".takoform_states SET lock_hostname = $1 WHERE name = 'default'`, [fields.hostname]);
          if (fields.pidNamespace !== undefined)
            await client.query(`UPDATE "${schema}".takoform_states SET lock_pid_namespace = $1 WHERE name = 'default'`, [fields.pidNamespace]);
          if (fields.expiresAt !== undefined)
            await client.query(`UPDATE "${schema}".takoform_states SET lock_expires_at = $1 WHERE name = 'default'`, [fields.expiresAt]);
        });
      },
      async checkIntegrity() {
        // A client killed after sending its COMMIT leaves the server to finish that transaction a
        // moment later: wait until no other session that spoke to this schema is left, so what is
        // read next is final (a SQLite writer's last write is done or not when its process dies).
        // The store sends COMMIT as a statement of its own, so a session still committing shows
        // `COMMIT` as its query, not the schema: wait for those too (another file's commit on the
        // same server only makes this wait a moment longer).
        for (const deadline = Date.now() + 15_000; ;) {
          const others = await withClient((client) =>
            client.query(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid <> pg_backend_pid()
                 AND (position($1 in query) > 0 OR (application_name = 'takoform' AND state <> 'idle' AND query = 'COMMIT'))`,
              [`"${schema}"`],
            ),
          );
          if ((others.rows[0] as { n: number }).n === 0) break;
          if (Date.now() > deadline) throw new Error(`sessions on schema ${schema} outlived their killed client`);
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        // The server's own guarantees cover the pages; check the layout's rule across the rows.
        const bad = await withClient((client) =>
          client.query(`SELECT address FROM "${schema}".takoform_resources WHERE (intent IS NULL) <> (status IN ('ready','placeholder'))`),
        );
        if (bad.rowCount !== 0) throw new Error(`rows break the lifecycle rule: ${JSON.stringify(bad.rows)}`);
      },
      backendBlock: () => ({ pg: { conn_str: pgUrl(), schema_name: schema } }),
      cleanup: () => undefined,
    };
  },
};
