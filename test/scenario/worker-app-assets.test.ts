// A WorkerApp with static assets and SQLite migrations, through the engine against the local host
// on the v1beta1 lane (decision 0029 applied to the two new revisions; reference v1beta1 §7,
// §8.7, §10.3). Each change is a new revision created beside the old one, with the worker never
// observed not Ready:
//
//   assets change:     PUT StaticAssetBundle <new> 201 → PUT WorkerVersion <new> 201 →
//                      PUT WorkerDeployment <name>-deployment 200 →
//                      DELETE WorkerVersion <old> 204 → DELETE StaticAssetBundle <old> 204
//   migrations change: PUT SQLiteMigrationSet <new> 201 → PUT SQLiteMigrationApplication <new> 201 →
//                      DELETE SQLiteMigrationApplication <old> 204 → DELETE SQLiteMigrationSet <old> 204

import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SQLiteDatabase } from "../../src/constructs/generated/sqlite-database.gen.ts";
import { WorkerApp } from "../../src/constructs/worker-app.ts";
import type { StateStore } from "../../src/state/types.ts";
import { apply, formRefOf, moduleSource, plan, ReadySampler, synthStack, timeline, useEngine, withScratch, type Scratch } from "./harness.ts";

const ownerHex = createHash("sha256").update("shop").digest("hex").slice(0, 12);

async function one(store: StateStore, type: string) {
  const records = (await store.list()).filter((r) => r.type === type && !r.address.includes("#deposed"));
  expect(records, type).toHaveLength(1);
  return records[0]!;
}

function build(scratch: Scratch) {
  return synthStack(scratch, (stack) => {
    const db = new SQLiteDatabase(stack, "db", { name: "shop-db" });
    new WorkerApp(stack, "app", {
      name: "shop",
      contentDir: scratch.path("dist"),
      sqliteBindings: { DB: db },
      assets: { directory: scratch.path("public"), spa: true },
      migrations: { directory: scratch.path("migrations") },
    });
  });
}

describe("WorkerApp with assets and migrations on v1beta1", () => {
  const ctx = useEngine();

  it("deploys the worker, its assets and its schema in one apply; each change is a new revision beside the old one, and the worker stays Ready", () =>
    withScratch(async (scratch, store) => {
      scratch.write("dist/index.js", moduleSource(1));
      scratch.write("public/index.html", "<!doctype html><p>v1</p>\n");
      scratch.write("public/app.css", "p { color: teal }\n");
      scratch.write("migrations/0001_init.sql", "CREATE TABLE hits (n INTEGER NOT NULL);\n");
      const first = await apply(ctx.engine, (await build(scratch)).stack, store, { parallelism: 10 });
      expect(first.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      expect(first.status).toBe("applied");
      const order = timeline(ctx.host.mutations).map((line) => line.split(" ").slice(0, 2).join(" "));
      // The schema is migrated before the deployment moves traffic; the version serves the assets.
      expect(order.indexOf("PUT SQLiteMigrationApplication")).toBeLessThan(order.indexOf("PUT WorkerDeployment"));
      expect(order.indexOf("PUT StaticAssetBundle")).toBeLessThan(order.indexOf("PUT WorkerVersion"));
      const assets = await one(store, "takoform_static_asset_bundle");
      const version = await one(store, "takoform_worker_version");
      const set = await one(store, "takoform_sqlite_migration_set");
      const application = await one(store, "takoform_sqlite_migration_application");
      const worker = await one(store, "takoform_module_worker");
      expect(assets.name).toMatch(new RegExp(`^static-asset-bundle-[0-9a-f]{12}-${ownerHex}$`));
      expect(set.name).toMatch(new RegExp(`^sqlite-migration-set-[0-9a-f]{12}-${ownerHex}$`));
      expect(application.name).toMatch(/^shop-migrations-[0-9a-f]{8}$/);
      expect(version.attributes["assets"]).toEqual({ bundle: assets.name, run_worker_first: false, not_found_handling: "single_page_application" });
      expect(application.attributes).toMatchObject({ database: "shop-db", migration_set: set.name });
      expect(assets.ref!.apiVersion).toBe("edge.takoform-cdk.dev/v1beta1");

      // An asset change: a new bundle and a new version (its spec names the bundle), the deployment moves, the old ones go.
      ctx.host.mutations.length = 0;
      scratch.write("public/index.html", "<!doctype html><p>v2</p>\n");
      const assetsChanged = (await build(scratch)).stack;
      let sampler = new ReadySampler(ctx.engine.client, "default", formRefOf(worker.attributes), "shop");
      const second = await apply(ctx.engine, assetsChanged, store, { parallelism: 10 });
      await sampler.stop();
      expect(second.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      const newAssets = await one(store, "takoform_static_asset_bundle");
      const newVersion = await one(store, "takoform_worker_version");
      expect(newAssets.name).not.toBe(assets.name);
      expect(newVersion.name).not.toBe(version.name);
      expect(timeline(ctx.host.mutations)).toEqual([
        `PUT StaticAssetBundle ${newAssets.name} 201`,
        `PUT WorkerVersion ${newVersion.name} 201`,
        "PUT WorkerDeployment shop-deployment 200",
        `DELETE WorkerVersion ${version.name} 204`,
        `DELETE StaticAssetBundle ${assets.name} 204`,
      ]);
      expect({ notReady: sampler.notReady, observations: sampler.observations.slice(0, 5) }).toEqual({ notReady: 0, observations: [] });

      // A migration added: a new set, its application beside the old one, then the old ones go; the code is untouched.
      ctx.host.mutations.length = 0;
      scratch.write("migrations/0002_seed.sql", "INSERT INTO hits (n) VALUES (0);\n");
      const migrated = (await build(scratch)).stack;
      sampler = new ReadySampler(ctx.engine.client, "default", formRefOf(worker.attributes), "shop");
      const third = await apply(ctx.engine, migrated, store, { parallelism: 10 });
      await sampler.stop();
      expect(third.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      const newSet = await one(store, "takoform_sqlite_migration_set");
      const newApplication = await one(store, "takoform_sqlite_migration_application");
      expect(newSet.name).not.toBe(set.name);
      expect(newApplication.name).not.toBe(application.name);
      expect(newApplication.attributes["migration_set"]).toBe(newSet.name);
      expect(timeline(ctx.host.mutations)).toEqual([
        `PUT SQLiteMigrationSet ${newSet.name} 201`,
        `PUT SQLiteMigrationApplication ${newApplication.name} 201`,
        `DELETE SQLiteMigrationApplication ${application.name} 204`,
        `DELETE SQLiteMigrationSet ${set.name} 204`,
      ]);
      expect({ notReady: sampler.notReady, observations: sampler.observations.slice(0, 5) }).toEqual({ notReady: 0, observations: [] });

      const after = await plan(ctx.engine, migrated, store);
      expect(after.plan.resourceChanges.filter((c) => c.actions[0] !== "no-op").map((c) => c.address)).toEqual([]);
      expect((await store.list()).filter((r) => r.address.includes("#deposed"))).toEqual([]);
    }));
});
