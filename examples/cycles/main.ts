// Resources that depend on each other (RFC 0011). Each resource is constructed with its own
// configuration only; the references that close a loop are added afterwards with contribute().
// The engine creates one member of each loop as a placeholder (its configuration without
// contributions), creates its peers, completes the placeholder by an update, and lets the loop
// settle. Deploy it with `npx takoform apply -C examples/cycles --auto-approve`, and tear it down
// with `npx takoform destroy -C examples/cycles --auto-approve` (each member is first reverted to
// its placeholder, so no delete is refused).
import { App, TerraformOutput, TerraformStack } from "cdktf";
import type { Construct } from "constructs";
import { MeshContainer, MeshService, MeshWorker, TakoformProvider } from "takoform-cdk";

class MeshStack extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    // No endpoint configured: takoform deploys to the embedded local host under .takoform/.
    new TakoformProvider(this, "takoform", {});

    // Two services that call each other. `api` has a generated name (name_prefix), so replacing it
    // (for example by changing its tier) runs side by side and the loop stays up; `auth` keeps a
    // fixed name.
    const api = new MeshService(this, "api", { namePrefix: "api-", entrypoint: "api.js" });
    const auth = new MeshService(this, "auth", { name: "auth", entrypoint: "auth.js" });
    api.contribute({ serviceBindings: [{ name: "AUTH", service: auth }] });
    auth.contribute({ serviceBindings: [{ name: "API", service: api }] });

    // A worker whose object class runs in a container, and the container in the worker's
    // object namespace, which only exists once the worker does.
    const worker = new MeshWorker(this, "worker", { name: "jobs", entrypoint: "jobs.js" });
    const sandbox = new MeshContainer(this, "sandbox", { name: "jobs-sandbox", image: "registry.example/sandbox:1" });
    worker.contribute({ containers: [{ className: "Sandbox", container: sandbox }] });
    sandbox.contribute({ namespaceId: worker.namespaceId });

    new TerraformOutput(this, "api_url", { value: api.url });
    new TerraformOutput(this, "namespace", { value: worker.namespaceId });
  }
}

const app = new App();
new MeshStack(app, "mesh");
app.synth();
