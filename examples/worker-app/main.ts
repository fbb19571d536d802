// A worker deployed the recommended way: WorkerApp derives revision names from content and
// moves traffic forward with create-before-destroy, so the worker stays served while its code
// changes. Deploy it with `npx takoform apply -C examples/worker-app --auto-approve`.
import { App, TerraformOutput, TerraformStack } from "cdktf";
import type { Construct } from "constructs";
import { EdgeKVNamespace, TakoformProvider, WorkerApp } from "takoform-cdk";

class CounterStack extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    // No endpoint configured: takoform deploys to the embedded local host under .takoform/.
    new TakoformProvider(this, "takoform", {});

    const state = new EdgeKVNamespace(this, "state", { name: "counter-state" });

    const app = new WorkerApp(this, "counter", {
      name: "counter",
      contentDir: "dist",
      kvBindings: { COUNTER: state },
      vars: { greeting: "hello", retries: 3 },
      endpoint: true,
    });

    new TerraformOutput(this, "url", { value: app.url });
    new TerraformOutput(this, "bundle_name", { value: app.bundleName });
    new TerraformOutput(this, "version_name", { value: app.versionName });
  }
}

const app = new App();
new CounterStack(app, "counter");
app.synth();
