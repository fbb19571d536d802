// An app of three stacks: `shared` holds a KV namespace and a queue; `api` and `jobs` are workers
// that bind them through cdktf's cross-stack references (a construct of `shared` passed into a
// construct of another stack). Each stack has its own state; one command deploys all three in
// dependency order, the workers after what they bind, and one destroys them the other way round:
//
//   npx takoform apply '*' --auto-approve -C examples/multi-stack
//   npx takoform destroy '*' --auto-approve -C examples/multi-stack
//
// `takoform plan '*'` shows all three before anything is deployed: `api` and `jobs` are planned
// against the plan of `shared` (docs/stacks.md).
import { App, TerraformOutput, TerraformStack } from "cdktf";
import type { Construct } from "constructs";
import { AtLeastOnceQueue, EdgeKVNamespace, TakoformProvider, WorkerApp } from "takoform-cdk";

class SharedStack extends TerraformStack {
  readonly orders: EdgeKVNamespace;
  readonly jobs: AtLeastOnceQueue;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    // No endpoint configured: takoform deploys to the embedded local host under .takoform/.
    new TakoformProvider(this, "takoform", {});
    this.orders = new EdgeKVNamespace(this, "orders", { name: "orders" });
    this.jobs = new AtLeastOnceQueue(this, "jobs", { name: "jobs", messageRetentionSeconds: 86_400 });
  }
}

class ApiStack extends TerraformStack {
  constructor(scope: Construct, id: string, shared: SharedStack) {
    super(scope, id);
    new TakoformProvider(this, "takoform", {});
    const api = new WorkerApp(this, "api", {
      name: "api",
      contentDir: "dist/api",
      kvBindings: { ORDERS: shared.orders },
      queueProducerBindings: { JOBS: shared.jobs },
      endpoint: true,
    });
    new TerraformOutput(this, "url", { value: api.url });
  }
}

class JobsStack extends TerraformStack {
  constructor(scope: Construct, id: string, shared: SharedStack) {
    super(scope, id);
    new TakoformProvider(this, "takoform", {});
    new WorkerApp(this, "jobs", {
      name: "jobs",
      contentDir: "dist/jobs",
      kvBindings: { ORDERS: shared.orders },
      queueProducerBindings: { JOBS: shared.jobs },
    });
  }
}

const app = new App();
const shared = new SharedStack(app, "shared");
new ApiStack(app, "api", shared);
new JobsStack(app, "jobs", shared);
app.synth();
