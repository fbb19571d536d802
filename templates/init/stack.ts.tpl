import { TerraformOutput, TerraformStack } from "__CDK__";
import type { Construct } from "constructs";
import { EdgeKVNamespace, TakoformProvider, WorkerApp } from "takoform-cdk";

/**
 * A worker (the code in dist/) with a KV namespace it counts requests in, served at an endpoint.
 * WorkerApp names each revision after its content and moves traffic forward create-before-destroy,
 * so editing dist/index.js and applying again replaces the code without a gap in service.
 */
export class __CLASS__ extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    // No endpoint: takoform deploys to the embedded local host, its data under .takoform/.
    // Give `endpoint`, `space` and `token` (or TAKOFORM_ENDPOINT …) to deploy to a real host.
    new TakoformProvider(this, "takoform", {});

    const counter = new EdgeKVNamespace(this, "counter", { name: "__NAME__-counter" });
    const worker = new WorkerApp(this, "worker", {
      name: "__NAME__",
      contentDir: "dist",
      kvBindings: { COUNTER: counter },
      vars: { greeting: "hello" },
      endpoint: true,
    });

    new TerraformOutput(this, "url", { value: worker.url });
  }
}
