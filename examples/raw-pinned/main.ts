// The raw constructs with every name pinned by hand. This deploys once, but a later code change
// is refused at plan (takoform.provider/immutable-revision-same-name): a revision is immutable, and
// replacing it under the same name completes in neither order. Use WorkerApp, or leave the revision
// names out and set revisionOwner, to move code forward safely.
import { App, TerraformStack } from "cdktf";
import type { Construct } from "constructs";
import { ModuleWorker, TakoformProvider, WorkerBundle, WorkerDeployment, WorkerVersion } from "takoform-cdk";

class PinnedStack extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    new TakoformProvider(this, "takoform", {});

    const worker = new ModuleWorker(this, "worker", { name: "pinned" });
    const bundle = new WorkerBundle(this, "bundle", {
      name: "pinned-bundle",
      mainModule: "index.js",
      modules: [{ name: "index.js", contentType: "application/javascript+module", contentFile: "dist/index.js" }],
    });
    const version = new WorkerVersion(this, "version", {
      name: "pinned-version",
      worker,
      bundle,
      handlers: ["fetch"],
    });
    new WorkerDeployment(this, "deployment", {
      name: "pinned-deployment",
      worker,
      versions: [{ workerVersion: version, weight: 10000 }],
    });
  }
}

const app = new App();
new PinnedStack(app, "pinned");
app.synth();
