// WorkerApp's static assets and SQLite migrations, at synth: what the construct writes for each
// option, and the mistakes it lists as problems (the apply is test/scenario/worker-app-assets.test.ts).

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { TerraformStack } from "cdktf";
import { SQLiteDatabase } from "../../src/constructs/generated/sqlite-database.gen.ts";
import { migrationFiles, staticAssetFiles } from "../../src/constructs/artifact-files.ts";
import { WorkerApp } from "../../src/constructs/worker-app.ts";
import { removeWorkDirs, synth, workDir } from "./fixtures.ts";
import { synthProblems } from "../constructs/validation.ts";

afterAll(removeWorkDirs);

function tree(files: Record<string, string>): string {
  const dir = workDir();
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const only = (json: any, type: string): any => {
  const entries = Object.values(json.resource[type] ?? {});
  expect(entries, type).toHaveLength(1);
  return entries[0];
};

describe("WorkerApp assets and migrations", () => {
  it("assets: a StaticAssetBundle of every file (sorted, dotfiles left out), owned by the app, create_before_destroy, attached to the version", () => {
    const code = tree({ "index.js": "export default {};\n" });
    const site = tree({
      "index.html": "<p>hi</p>",
      "app/main.js": "1",
      "app/style.css": "p{}",
      "img/logo.SVG": "<svg/>",
      "data.bin": "x",
      ".DS_Store": "junk",
      ".well-known/a": "b",
    });
    const json = synth(
      (stack) =>
        void new WorkerApp(stack, "app", {
          name: "shop",
          contentDir: code,
          assets: { directory: site, spa: true, runWorkerFirst: true, mediaTypes: { bin: "application/x-shop" } },
        }),
    );
    const bundle = only(json, "takoform_static_asset_bundle");
    expect(bundle.revision_owner).toBe("shop");
    expect(bundle.lifecycle).toEqual({ create_before_destroy: true });
    expect(bundle.name).toBeUndefined();
    expect(bundle.files.map((f: any) => [f.path, f.media_type])).toEqual([
      ["app/main.js", "text/javascript"],
      ["app/style.css", "text/css"],
      ["data.bin", "application/x-shop"],
      ["img/logo.SVG", "image/svg+xml"],
      ["index.html", "text/html"],
    ]);
    expect(bundle.files.every((f: any) => f.content_file.endsWith(f.path))).toBe(true);
    const version = only(json, "takoform_worker_version");
    expect(version.assets).toEqual({
      bundle: expect.stringMatching(/^\$\{takoform_static_asset_bundle\.[A-Za-z0-9_]+\.name\}$/),
      run_worker_first: true,
      not_found_handling: "single_page_application",
    });
  });

  it("assets default to a miss staying a miss and the assets looked in first", () => {
    const code = tree({ "index.js": "export default {};\n" });
    const site = tree({ "robots.txt": "" });
    const json = synth((stack) => void new WorkerApp(stack, "app", { name: "shop", contentDir: code, assets: { directory: site } }));
    expect(only(json, "takoform_worker_version").assets).toMatchObject({ run_worker_first: false, not_found_handling: "none" });
    expect(json.resource.takoform_sqlite_migration_set).toBeUndefined();
  });

  it("migrations: the .sql files in name order as a migration set, applied to the bound database beside the old application before the deployment moves", () => {
    const code = tree({ "index.js": "export default {};\n" });
    const sql = tree({ "0002_more.sql": "b", "0001_init.sql": "a", "0010_late.sql": "c", "README.md": "not a migration", "nested/0003.sql": "not top-level" });
    const json = synth((stack: TerraformStack) => {
      const db = new SQLiteDatabase(stack, "db", { name: "shop-db" });
      new WorkerApp(stack, "app", { name: "shop", contentDir: code, sqliteBindings: { DB: db }, migrations: { directory: sql } });
    });
    const set = only(json, "takoform_sqlite_migration_set");
    expect(set.files.map((f: any) => [f.path, f.media_type])).toEqual([
      ["0001_init.sql", "application/sql"],
      ["0002_more.sql", "application/sql"],
      ["0010_late.sql", "application/sql"],
    ]);
    expect(set.revision_owner).toBe("shop");
    expect(set.lifecycle).toEqual({ create_before_destroy: true });
    const application = only(json, "takoform_sqlite_migration_application");
    expect(application).toMatchObject({
      name_prefix: "shop-migrations-",
      database: expect.stringMatching(/^\$\{takoform_sqlite_database\.[A-Za-z0-9_]+\.name\}$/),
      migration_set: expect.stringMatching(/^\$\{takoform_sqlite_migration_set\.[A-Za-z0-9_]+\.name\}$/),
      lifecycle: { create_before_destroy: true },
    });
    const deployment = only(json, "takoform_worker_deployment");
    expect(deployment.depends_on).toEqual([expect.stringMatching(/^takoform_sqlite_migration_application\./)]);
  });

  it("the directory helpers are what the WorkerApp uses, for the raw constructs too", () => {
    const site = tree({ "b.txt": "", "a.json": "" });
    expect(staticAssetFiles(site).map((f) => [f.path, f.mediaType])).toEqual([
      ["a.json", "application/json"],
      ["b.txt", "text/plain"],
    ]);
    const sql = tree({ "2.sql": "", "1.SQL": "" });
    expect(migrationFiles(sql).map((f) => f.path)).toEqual(["1.SQL", "2.sql"]);
  });

  it("lists each mistake: an SPA without index.html, a path no manifest can carry, no .sql file, no binding to migrate, a name too long", () => {
    const code = tree({ "index.js": "export default {};\n" });
    const noIndex = tree({ "about.html": "", "bad name.png": "" });
    const empty = tree({ "notes.md": "" });
    const problems = synthProblems((stack) => {
      const db = new SQLiteDatabase(stack, "db", { name: "db" });
      const other = new SQLiteDatabase(stack, "other", { name: "other" });
      new WorkerApp(stack, "spa", { name: "spa", contentDir: code, assets: { directory: noIndex, spa: true } });
      new WorkerApp(stack, "nosql", { name: "nosql", contentDir: code, sqliteBindings: { DB: db }, migrations: { directory: empty } });
      new WorkerApp(stack, "nobinding", { name: "nobinding", contentDir: code, migrations: { directory: empty } });
      new WorkerApp(stack, "two", { name: "two", contentDir: code, sqliteBindings: { A: db, B: other }, migrations: { directory: empty, binding: "C" } });
      new WorkerApp(stack, "long", {
        name: `l${"o".repeat(43)}`,
        contentDir: code,
        sqliteBindings: { DB: db },
        migrations: { directory: tree({ "1.sql": "" }) },
      });
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`[demo/spa] assets.directory ${JSON.stringify(noIndex)} holds "bad name.png", which an artifact manifest cannot name`),
        expect.stringContaining("[demo/spa] assets.spa needs an index.html"),
        expect.stringContaining(`[demo/nosql] migrations.directory ${JSON.stringify(empty)} holds no .sql file.`),
        expect.stringContaining("[demo/nobinding] migrations needs a binding: the database is one of sqliteBindings, and there are none"),
        expect.stringContaining('[demo/two] migrations.binding "C" names no SQLite binding (sqliteBindings: A, B).'),
        expect.stringContaining(`[demo/long] name "l${"o".repeat(43)}" is too long for migrations`),
      ]),
    );
    expect(problems.filter((p) => p.startsWith("[demo/long]"))).toHaveLength(1);
  });
});
