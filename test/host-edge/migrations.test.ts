// SQLite migrations over real HTTP (reference v1beta1 §8.5, §8.7, §13 item 11): the durable
// per-database ledger, the prefix proof before mutation (migration_required 409 and no effect for a
// set that drops, reorders or re-digests applied history), Ready derived from the ledger, and a
// delete that rolls nothing back. The ledger is read with the host's test control; that the SQL
// itself ran is proven through a worker in test/runtime/sql-lanes.test.ts.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { laneNamed } from "../../src/core/lanes.ts";
import { canonicalJson } from "../../src/forms/digest.ts";
import { CORPUS } from "../host/family.ts";
import { filesManifest, readyOf, sha256Of } from "../host/wire.ts";
import { Edge, modes } from "./edge.ts";

const FIRST = { path: "0001.sql", mediaType: "application/sql", content: "CREATE TABLE probe(id TEXT);\n" };
const SECOND = { path: "0002.sql", mediaType: "application/sql", content: "ALTER TABLE probe ADD COLUMN body TEXT;\n" };
const THIRD = { path: "0003.sql", mediaType: "application/sql", content: "CREATE INDEX probe_body ON probe(body);\n" };

describe.each(modes((f) => f.lane === "v1beta1"))("SQLite migrations — $label", (mode) => {
  let edge: Edge;
  beforeAll(async () => {
    edge = await Edge.open(mode);
  });
  afterAll(async () => edge.close());

  const application = (database: string, set: string) => ({ database: edge.to("SQLiteDatabase", database), migrationSet: edge.to("SQLiteMigrationSet", set) });
  const ledgerOf = (database: any) => edge.host.controls.migrationLedger(database.metadata.uid as string).map((e) => e.path);
  const set = async (name: string, files: (typeof FIRST)[]) =>
    edge.create("SQLiteMigrationSet", name, { manifestDigest: await edge.wire.files("MigrationBundle", files) });

  it("sqlite-migration-ledger-readiness", async () => {
    const firstDigest = await edge.wire.files("MigrationBundle", [FIRST]);
    expect(firstDigest).toBe(sha256Of(canonicalJson(filesManifest("MigrationBundle", [FIRST]) as never)));
    if (CORPUS !== undefined && mode.family.source === "upstream") {
      const lane = laneNamed("v1beta1");
      const contract = JSON.parse(readFileSync(join(CORPUS, lane.corpus.folder, lane.corpus.conformanceDir, "contract.json"), "utf8"));
      expect(firstDigest).toBe(contract.runnerInput.sqliteMigrationSet.desired.manifestDigest);
    }
    const database = await edge.create("SQLiteDatabase", "sqlite-database-probe", {});
    const first = await edge.create("SQLiteMigrationSet", "sqlite-migration-set-probe", { manifestDigest: firstDigest });
    const app1 = await edge.create(
      "SQLiteMigrationApplication",
      "sqlite-migration-application-probe",
      application("sqlite-database-probe", "sqlite-migration-set-probe"),
    );
    expect(readyOf(await edge.read("SQLiteMigrationApplication", app1.metadata.name))).toMatchObject({ status: "True", reason: "Available" });
    expect(ledgerOf(database)).toEqual(["0001.sql"]);

    const superset = await set("sqlite-migration-set-superset", [FIRST, SECOND]);
    const app2 = await edge.create(
      "SQLiteMigrationApplication",
      "sqlite-migration-application-superset",
      application("sqlite-database-probe", "sqlite-migration-set-superset"),
    );
    expect(readyOf(await edge.read("SQLiteMigrationApplication", app2.metadata.name))).toMatchObject({ status: "True", reason: "Available" });
    expect(ledgerOf(database)).toEqual(["0001.sql", "0002.sql"]);

    // The older, shorter application no longer describes the whole history: a derived rendering,
    // so its revision moved and its generation did not. Nothing claims a one-live-application rule.
    const older = await edge.read("SQLiteMigrationApplication", app1.metadata.name);
    const ready = readyOf(older);
    expect(ready).toMatchObject({ status: "False", reason: "Reconciling" });
    expect(ready.hostReason.length).toBeLessThanOrEqual(256);
    expect(ready.hostReason).toMatch(/holds 2 migrations; SQLiteMigrationSet "sqlite-migration-set-probe" lists 1/);
    expect(ready.hostReason).not.toMatch(/one live|only one|single/i);
    expect(older.metadata.generation).toBe(app1.metadata.generation);
    expect(Number(older.metadata.revision)).toBeGreaterThan(Number(app1.metadata.revision));

    // Tear down in dependency order; nothing is rolled back on the way.
    const app2Now = await edge.read("SQLiteMigrationApplication", app2.metadata.name);
    await edge.remove("SQLiteMigrationApplication", app2.metadata.name, app2Now.metadata.generation);
    expect(ledgerOf(database)).toEqual(["0001.sql", "0002.sql"]);
    await edge.remove("SQLiteMigrationApplication", app1.metadata.name, older.metadata.generation);
    await edge.remove("SQLiteMigrationSet", superset.metadata.name, superset.metadata.generation);
    await edge.remove("SQLiteMigrationSet", first.metadata.name, first.metadata.generation);
    await edge.remove("SQLiteDatabase", database.metadata.name, database.metadata.generation);
    await edge.readAbsent("SQLiteDatabase", database.metadata.name);
  });

  it("a set that drops, reorders or re-digests applied history is migration_required (409) with nothing changed", async () => {
    const database = await edge.create("SQLiteDatabase", "history-db", {});
    await set("history-12", [FIRST, SECOND]);
    await edge.create("SQLiteMigrationApplication", "history-app", application("history-db", "history-12"));
    expect(ledgerOf(database)).toEqual(["0001.sql", "0002.sql"]);
    const rewritten: [string, (typeof FIRST)[], RegExp][] = [
      ["history-drop", [FIRST], /drops applied history: the ledger holds 2 migrations, the set lists 1/],
      ["history-reorder", [SECOND, FIRST, THIRD], /rewrites applied history at migration 1/],
      ["history-redigest", [FIRST, { ...SECOND, content: "ALTER TABLE probe ADD COLUMN other TEXT;\n" }, THIRD], /rewrites applied history at migration 2/],
      ["history-rename", [FIRST, { ...SECOND, path: "0002-renamed.sql" }, THIRD], /rewrites applied history at migration 2/],
    ];
    for (const [name, files, message] of rewritten) {
      await set(name, files);
      await edge.refuses(() => edge.createRaw("SQLiteMigrationApplication", `${name}-app`, application("history-db", name)), "migration_required", [
        message,
        /nothing was changed/,
      ]);
      await edge.refuses(
        () => edge.importRaw("SQLiteMigrationApplication", `${name}-app`, application("history-db", name), `native-${name}`),
        "migration_required",
        [message],
      );
      expect(ledgerOf(database)).toEqual(["0001.sql", "0002.sql"]);
    }
    // Appending is what a set may do.
    await set("history-123", [FIRST, SECOND, THIRD]);
    await edge.create("SQLiteMigrationApplication", "history-app-3", application("history-db", "history-123"));
    expect(ledgerOf(database)).toEqual(["0001.sql", "0002.sql", "0003.sql"]);
    // The first application's own re-apply now drops history too: refused, and it stays as it was.
    const app = await edge.read("SQLiteMigrationApplication", "history-app");
    await edge.refuses(
      () => edge.updateRaw("SQLiteMigrationApplication", "history-app", application("history-db", "history-12"), app.metadata.generation),
      "migration_required",
    );
  });

  it("a file that does not apply refuses the apply with nothing changed; a file may not control the transaction", async () => {
    const database = await edge.create("SQLiteDatabase", "broken-db", {});
    await set("broken-1", [FIRST]);
    await edge.create("SQLiteMigrationApplication", "broken-app-1", application("broken-db", "broken-1"));
    await set("broken-12", [FIRST, SECOND, { path: "0003.sql", mediaType: "application/sql", content: "ALTER TABLE nowhere ADD COLUMN x TEXT;\n" }]);
    await edge.refuses(() => edge.createRaw("SQLiteMigrationApplication", "broken-app-2", application("broken-db", "broken-12")), "invalid_argument", [
      /migration 3 \(0003\.sql\) did not apply/,
      /no such table: nowhere/,
      /nothing was changed/,
    ]);
    // 0002 ran in the rehearsal only: the ledger and the schema are as they were.
    expect(ledgerOf(database)).toEqual(["0001.sql"]);
    await set("broken-commit", [FIRST, { path: "0002.sql", mediaType: "application/sql", content: "CREATE TABLE a(x);\nCOMMIT;\nCREATE TABLE b(x);\n" }]);
    await edge.refuses(() => edge.createRaw("SQLiteMigrationApplication", "commit-app", application("broken-db", "broken-commit")), "invalid_argument", [
      /COMMIT statement/,
    ]);
    await set("broken-attach", [FIRST, { path: "0002.sql", mediaType: "application/sql", content: "ATTACH DATABASE 'x.db' AS x;\n" }]);
    await edge.refuses(() => edge.createRaw("SQLiteMigrationApplication", "attach-app", application("broken-db", "broken-attach")), "invalid_argument", [
      /ATTACH statement/,
    ]);
    await set("broken-ledger", [FIRST, { path: "0002.sql", mediaType: "application/sql", content: "DELETE FROM takoform_migration_ledger;\n" }]);
    await edge.refuses(() => edge.createRaw("SQLiteMigrationApplication", "ledger-app", application("broken-db", "broken-ledger")), "invalid_argument", [
      /written only by a SQLiteMigrationApplication|only the host writes/,
    ]);
    await set("broken-trigger", [FIRST, { path: "0002.sql", mediaType: "application/sql", content: "DROP TRIGGER takoform_migration_ledger_guard_delete;\n" }]);
    await edge.refuses(() => edge.createRaw("SQLiteMigrationApplication", "trigger-app", application("broken-db", "broken-trigger")), "invalid_argument", [
      /only the host writes/,
    ]);
    // A trigger body's own BEGIN … END (with a CASE inside) is one statement, not transaction control.
    await set("trigger-ok", [
      FIRST,
      {
        path: "0002.sql",
        mediaType: "application/sql",
        content:
          "CREATE TABLE audit(n INTEGER);\nCREATE TRIGGER probe_audit AFTER INSERT ON probe BEGIN\n  INSERT INTO audit VALUES (CASE WHEN new.id IS NULL THEN 0 ELSE 1 END);\nEND;\n",
      },
    ]);
    await edge.create("SQLiteMigrationApplication", "trigger-app-ok", application("broken-db", "trigger-ok"));
    expect(ledgerOf(database)).toEqual(["0001.sql", "0002.sql"]);
  });

  it("deleting an application rolls nothing back; the database and the set are held while it lives", async () => {
    const database = await edge.create("SQLiteDatabase", "held-db", {});
    const migrationSet = await set("held-set", [FIRST, SECOND]);
    const app = await edge.create("SQLiteMigrationApplication", "held-app", application("held-db", "held-set"));
    await edge.refuses(() => edge.removeRaw("SQLiteDatabase", "held-db", database.metadata.generation), "dependency_in_use", [/held-app/]);
    await edge.refuses(() => edge.removeRaw("SQLiteMigrationSet", "held-set", migrationSet.metadata.generation), "dependency_in_use", [/held-app/]);
    await edge.remove("SQLiteMigrationApplication", "held-app", app.metadata.generation);
    expect(ledgerOf(database)).toEqual(["0001.sql", "0002.sql"]);
    // A new application of the same set finds nothing to run and is Ready at once.
    const again = await edge.create("SQLiteMigrationApplication", "held-app-again", application("held-db", "held-set"));
    expect(readyOf(again)).toMatchObject({ status: "True", reason: "Available" });
    expect(ledgerOf(database)).toEqual(["0001.sql", "0002.sql"]);
  });

  it("import proves the prefix but runs no SQL; Ready says how far the ledger is, and the next apply runs the rest", async () => {
    const database = await edge.create("SQLiteDatabase", "import-db", {});
    await set("import-set", [FIRST, SECOND]);
    const imported = await edge.importOk("SQLiteMigrationApplication", "import-app", application("import-db", "import-set"), "native-import-app");
    expect(ledgerOf(database)).toEqual([]);
    expect(readyOf(imported)).toMatchObject({ status: "False", reason: "Reconciling" });
    expect(readyOf(imported).hostReason).toMatch(/holds 0 migrations; SQLiteMigrationSet "import-set" lists 2/);
    const applied = await edge.update("SQLiteMigrationApplication", "import-app", application("import-db", "import-set"), imported.metadata.generation);
    expect(ledgerOf(database)).toEqual(["0001.sql", "0002.sql"]);
    expect(readyOf(applied)).toMatchObject({ status: "True", reason: "Available" });
    expect(applied.metadata.generation).toBe(imported.metadata.generation);
  });
});

describe("the migration ledger is durable", () => {
  it("survives a restart of the host, and Ready is derived from it again", async () => {
    const data = mkdtempSync(join(tmpdir(), "takoform-ledger-"));
    const [mode] = modes((f) => f.lane === "v1beta1" && f.source === "bundled");
    try {
      let edge = await Edge.open(mode!, { data });
      const database = await edge.create("SQLiteDatabase", "durable-db", {});
      await edge.create("SQLiteMigrationSet", "durable-1", { manifestDigest: await edge.wire.files("MigrationBundle", [FIRST]) });
      await edge.create("SQLiteMigrationSet", "durable-12", { manifestDigest: await edge.wire.files("MigrationBundle", [FIRST, SECOND]) });
      await edge.create("SQLiteMigrationApplication", "durable-app-1", {
        database: edge.to("SQLiteDatabase", "durable-db"),
        migrationSet: edge.to("SQLiteMigrationSet", "durable-1"),
      });
      await edge.close();
      edge = await Edge.open(mode!, { data });
      expect(edge.host.controls.migrationLedger(database.metadata.uid)).toEqual([{ path: "0001.sql", digest: sha256Of(FIRST.content) }]);
      await edge.create("SQLiteMigrationApplication", "durable-app-12", {
        database: edge.to("SQLiteDatabase", "durable-db"),
        migrationSet: edge.to("SQLiteMigrationSet", "durable-12"),
      });
      expect(readyOf(await edge.read("SQLiteMigrationApplication", "durable-app-1"))).toMatchObject({ status: "False", reason: "Reconciling" });
      await edge.close();
      edge = await Edge.open(mode!, { data });
      expect(edge.host.controls.migrationLedger(database.metadata.uid).map((e) => e.path)).toEqual(["0001.sql", "0002.sql"]);
      expect(readyOf(await edge.read("SQLiteMigrationApplication", "durable-app-12"))).toMatchObject({ status: "True", reason: "Available" });
      await edge.close();
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });
});
