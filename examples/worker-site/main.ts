// A worker with its static site and its database schema, deployed in one construct (v1beta1
// lane): WorkerApp uploads `public/` as a StaticAssetBundle the worker's versions serve (SPA
// mode: paths it lacks answer index.html; the worker's own API answers first), and applies the
// ordered `.sql` files of `migrations/` to the SQLite database it binds, before the deployment
// moves traffic to the new code. Each change of code, assets or schema is a new revision created
// beside the old one. Deploy it with `npx takoform apply -C examples/worker-site --auto-approve`,
// then serve it with `npx takoform dev -C examples/worker-site`.
import { App, TerraformOutput, TerraformStack } from "cdktf";
import type { Construct } from "constructs";
import { SQLiteDatabase, TakoformProvider, WorkerApp } from "takoform-cdk";

class SiteStack extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    // No endpoint configured: takoform deploys to the embedded local host under .takoform/.
    new TakoformProvider(this, "takoform", {});

    const db = new SQLiteDatabase(this, "db", { name: "site-db" });

    const app = new WorkerApp(this, "site", {
      name: "site",
      contentDir: "dist",
      sqliteBindings: { DB: db },
      // The worker answers first; what it does not (a 404) the assets answer.
      assets: { directory: "public", spa: true, runWorkerFirst: true },
      migrations: { directory: "migrations" },
      endpoint: true,
    });

    new TerraformOutput(this, "url", { value: app.url });
    new TerraformOutput(this, "version_name", { value: app.versionName });
  }
}

const app = new App();
new SiteStack(app, "site");
app.synth();
