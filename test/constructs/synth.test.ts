import { describe, it, expect, afterAll } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, TerraformStack, TerraformVariable, Testing, Token } from "cdktf";
import type { Construct } from "constructs";
import * as takoform from "../../src/index.ts";
import {
  ImportIdError,
  ModuleWorker,
  TakoformProvider,
  TakoformResource,
  WorkerBundle,
  WorkerDeployment,
  WorkerVersion,
  type SynthesizedContribution,
} from "../../src/index.ts";
import type { CodecField } from "../../src/registry/codec-types.ts";
import { synthProblems } from "./validation.ts";
import { bundledModel, ROOT, sampleScalar, type Doc } from "../codec/support.ts";

const cleanup: string[] = [];
afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanup.push(dir);
  return dir;
}

/** Testing.synth of a fresh stack (no metadata), with an outdir we remove. */
function synth(build: (stack: TerraformStack) => void): Doc {
  const stack = new TerraformStack(Testing.app({ outdir: tempDir("takoform-constructs-") }), "stack");
  new TakoformProvider(stack, "takoform");
  build(stack);
  return JSON.parse(Testing.synth(stack));
}

/** The full cdk.tf.json that app.synth() writes (metadata included). */
function fullSynth(build: (stack: TerraformStack) => void): Doc {
  const outdir = tempDir("takoform-app-");
  const app = new App({ outdir });
  const stack = new TerraformStack(app, "demo");
  new TakoformProvider(stack, "takoform");
  build(stack);
  app.synth();
  return JSON.parse(readFileSync(join(outdir, "stacks/demo/cdk.tf.json"), "utf8"));
}

/** A config value for a field, keyed in the construct's camelCase. */
function sample(field: CodecField): unknown {
  const t = field.type;
  switch (t.kind) {
    case "string-set":
      return [t.item.enum?.[0] ?? "A_NAME"];
    case "json-map":
      return { B: 2, A: 1 };
    case "binding-list":
      return [{ name: "BINDING", targetName: "target" }];
    case "object-list":
      return [Object.fromEntries(t.members.map((m) => [m.attribute.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()), sampleScalar(m.type)]))];
    case "object":
      return Object.fromEntries(t.members.map((m) => [m.attribute.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()), sampleScalar(m.type)]));
    default:
      return sampleScalar(t);
  }
}

const camel = (snake: string) => snake.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

describe("generated construct classes", () => {
  it("every resource type has a class that synthesizes its type with attribute names the provider schema declares", () => {
    const exported = takoform as unknown as Record<string, new (scope: Construct, id: string, config: Doc) => TakoformResource>;
    const json = synth((stack) => {
      for (const line of bundledModel().lines) {
        const Class = exported[line.className];
        expect(Class, line.className).toBeTypeOf("function");
        expect((Class as unknown as { tfResourceType: string }).tfResourceType).toBe(line.type);
        const codec = line.defaultCodec;
        const config: Doc = codec.role === "revision" ? { revisionOwner: "owner" } : { name: "r" };
        for (const field of codec.fields) {
          if (codec.artifactBacked && field.wire === "manifestDigest") config.manifestDigest = `sha256:${"0".repeat(64)}`;
          else config[camel(field.attribute)] = sample(field);
        }
        new Class(stack, line.className, config);
      }
    });
    expect(Object.keys(json.resource).sort()).toEqual(
      bundledModel()
        .lines.map((l) => l.type)
        .sort(),
    );
    for (const line of bundledModel().lines) {
      const synthesized = json.resource[line.type][line.className] as Doc;
      for (const [name, value] of Object.entries(synthesized)) {
        const attribute = line.schema.attributes[name];
        expect(attribute, `${line.type}.${name}`).toBeDefined();
        expect(attribute!.mode, `${line.type}.${name}`).not.toBe("computed");
        if (Array.isArray(value) && value.length > 0 && typeof value[0] === "object") {
          const element = attribute!.type.kind === "list" ? attribute!.type.element : null;
          for (const member of Object.keys(value[0] as Doc))
            expect(element?.kind === "object" && Object.hasOwn(element.attributes, member), `${line.type}.${name}[].${member}`).toBe(true);
        }
      }
      for (const field of line.defaultCodec.fields) {
        if (!(line.defaultCodec.artifactBacked && field.wire === "manifestDigest"))
          expect(synthesized, `${line.type}.${field.attribute}`).toHaveProperty(field.attribute);
      }
    }
  });

  it("uses the upstream attribute names, renders refs as the target's name, and JSON maps as sorted JSON text", () => {
    const json = synth((stack) => {
      const worker = new ModuleWorker(stack, "api", { name: "api" });
      const kv = new takoform.EdgeKVNamespace(stack, "cache", { name: "cache" });
      const queue = new takoform.AtLeastOnceQueue(stack, "jobs", { name: "jobs", messageRetentionSeconds: 3600 });
      const bundle = new WorkerBundle(stack, "bundle", {
        revisionOwner: worker,
        mainModule: "index.js",
        modules: [{ name: "index.js", contentType: "application/javascript+module", contentFile: "dist/index.js" }],
      });
      const version = new WorkerVersion(stack, "v1", {
        revisionOwner: "api",
        worker,
        bundle,
        handlers: ["scheduled", "fetch"],
        varsJson: { Z: "last", A: worker.name },
        requiredSensitiveVars: ["API_KEY"],
        kvBindings: [{ name: "CACHE", targetName: kv }],
        queueProducerBindings: [{ name: "JOBS", targetName: "jobs" }],
      });
      new WorkerDeployment(stack, "live", { name: "live", worker, versions: [{ workerVersion: version, weight: 10000 }], updateTimeout: "5m" });
      new takoform.QueueConsumer(stack, "consumer", {
        name: "consumer",
        queue,
        worker,
        maxBatchSize: 10,
        maxBatchTimeoutSeconds: 5,
        maxRetries: 3,
        retryDelaySeconds: 0,
        maxConcurrency: 1,
        deadLetterQueue: "dlq",
      });
      new takoform.WorkerCronTrigger(stack, "cron", { name: "nightly", worker, cron: "0 3 * * *" });
      new takoform.WorkerCustomDomain(stack, "domain", { name: "domain", worker, hostname: "api.example.com", space: "prod", createTimeout: "1m" });
    });
    const r = json.resource;
    expect(r.takoform_worker_bundle.bundle).toEqual({
      revision_owner: "${takoform_module_worker.api.name}",
      main_module: "index.js",
      modules: [{ name: "index.js", content_type: "application/javascript+module", content_file: "dist/index.js" }],
    });
    expect(r.takoform_worker_version.v1).toEqual({
      revision_owner: "api",
      worker: "${takoform_module_worker.api.name}",
      bundle: "${takoform_worker_bundle.bundle.name}",
      handlers: ["scheduled", "fetch"],
      vars_json: '{"A":"${takoform_module_worker.api.name}","Z":"last"}',
      required_sensitive_vars: ["API_KEY"],
      kv_bindings: [{ name: "CACHE", target_name: "${takoform_edge_kv_namespace.cache.name}" }],
      queue_producer_bindings: [{ name: "JOBS", target_name: "jobs" }],
    });
    expect(r.takoform_worker_deployment.live).toEqual({
      name: "live",
      update_timeout: "5m",
      worker: "${takoform_module_worker.api.name}",
      versions: [{ worker_version: "${takoform_worker_version.v1.name}", weight: 10000 }],
    });
    expect(r.takoform_at_least_once_queue.jobs).toEqual({ name: "jobs", message_retention_seconds: 3600 });
    expect(r.takoform_queue_consumer.consumer).toEqual(
      expect.objectContaining({
        queue: "${takoform_at_least_once_queue.jobs.name}",
        max_batch_size: 10,
        max_batch_timeout_seconds: 5,
        dead_letter_queue: "dlq",
        max_concurrency: 1,
      }),
    );
    expect(r.takoform_worker_cron_trigger.cron).toEqual({ name: "nightly", worker: "${takoform_module_worker.api.name}", cron: "0 3 * * *" });
    expect(r.takoform_worker_custom_domain.domain).toEqual({
      name: "domain",
      space: "prod",
      create_timeout: "1m",
      worker: "${takoform_module_worker.api.name}",
      hostname: "api.example.com",
    });
    expect(json.provider).toEqual({ takoform: [{}] });
    expect(json.terraform.required_providers.takoform.source).toBe("tako0614/takoform");
  });

  it("typed getters return tokens for computed attributes and declared outputs", () => {
    const json = synth((stack) => {
      const worker = new ModuleWorker(stack, "api", { name: "api" });
      const endpoint = new takoform.WorkerEndpoint(stack, "ep", { name: "ep", worker });
      const service = new takoform.MeshService(stack, "svc", { name: "svc", entrypoint: "main.js" });
      new takoform.MeshContainer(stack, "ctr", { name: "ctr", image: endpoint.hostname, namespaceId: service.url });
      new takoform.MeshContainer(stack, "ctr2", { name: `${worker.uid}-${worker.generation}-${worker.revision}`, image: worker.outputsJson });
      new takoform.MeshService(stack, "svc2", {
        name: "svc2",
        entrypoint: service.versionId,
        serviceBindings: [{ name: "PEER", service, version: service.versionId }],
      });
    });
    const c = json.resource.takoform_mesh_container;
    expect(c.ctr).toEqual({ name: "ctr", image: "${takoform_worker_endpoint.ep.hostname}", namespace_id: "${takoform_mesh_service.svc.url}" });
    expect(c.ctr2.name).toBe("${takoform_module_worker.api.uid}-${takoform_module_worker.api.generation}-${takoform_module_worker.api.revision}");
    expect(c.ctr2.image).toBe("${takoform_module_worker.api.outputs_json}");
    expect(json.resource.takoform_mesh_service.svc2.service_bindings).toEqual([
      { name: "PEER", service: "${takoform_mesh_service.svc.name}", version: "${takoform_mesh_service.svc.version_id}" },
    ]);
  });

  it("meta-arguments pass through; count, forEach and provisioners are refused (listed at synth)", () => {
    const json = synth((stack) => {
      const a = new ModuleWorker(stack, "a", { name: "a", lifecycle: { createBeforeDestroy: true, ignoreChanges: ["space"] } });
      new ModuleWorker(stack, "b", { name: "b", dependsOn: [a] });
    });
    expect(json.resource.takoform_module_worker.a.lifecycle).toEqual({ create_before_destroy: true, ignore_changes: ["space"] });
    expect(json.resource.takoform_module_worker.b.depends_on).toEqual(["takoform_module_worker.a"]);
    expect(
      synthProblems((stack) => {
        new ModuleWorker(stack, "c", { name: "c", count: 2 } as Doc as { name: string });
        new ModuleWorker(stack, "d", { name: "d", forEach: {} } as Doc as { name: string });
        new ModuleWorker(stack, "e", { name: "e", provisioners: [], connection: {} } as Doc as { name: string });
      }),
    ).toEqual([
      "[demo/c] `count` is not supported by the takoform engine; create one construct per instance.",
      "[demo/d] `forEach` is not supported by the takoform engine; create one construct per instance.",
      "[demo/e] provisioners are not supported by the takoform engine.",
      "[demo/e] connection blocks are not supported by the takoform engine.",
    ]);
  });

  it("a non-revision resource takes exactly one of name and namePrefix; a revision may take neither", () => {
    expect(
      synthProblems((stack) => {
        new ModuleWorker(stack, "a", {});
        new ModuleWorker(stack, "b", { name: "b", namePrefix: "b-" });
        new WorkerBundle(stack, "c", { manifestDigest: `sha256:${"0".repeat(64)}` });
        new WorkerBundle(stack, "d", {});
        new WorkerBundle(stack, "e", { mainModule: "index.js" });
        const worker = new ModuleWorker(stack, "w", { namePrefix: "w-" });
        new WorkerVersion(stack, "v", { worker: "x", bundle: worker as unknown as WorkerBundle, handlers: ["fetch"], revisionOwner: 7 as unknown as string });
        new WorkerDeployment(stack, "dep", { name: "dep", worker: "x", versions: [null, { workerVersion: 3, weight: 1 }] as unknown as [] });
        new WorkerVersion(stack, "j", {
          worker: "x",
          bundle: "b",
          handlers: ["fetch"],
          varsJson: { N: Token.asNumber("${var.n}") } as Record<string, unknown>,
        });
      }),
    ).toEqual([
      "[demo/a] set exactly one of name and namePrefix.",
      "[demo/b] set exactly one of name and namePrefix.",
      "[demo/d] author the bundle with mainModule + modules, or name a committed manifest with manifestDigest.",
      "[demo/e] set mainModule and modules together (local bundle authoring), or neither.",
      "[demo/v] revisionOwner must be a resource name or a Takoform resource construct.",
      "[demo/v] bundle refers to a takoform_module_worker; it must be a takoform_worker_bundle (or a name).",
      "[demo/dep] versions[0] must be an object with the members workerVersion, weight.",
      "[demo/dep] versions[1].workerVersion must be a resource name or a Takoform resource construct.",
      "[demo/j] varsJson.N is a number token, which cannot be embedded in JSON text; pass the whole value as a string instead.",
    ]);
  });

  it("importFromHost writes import blocks with the NAME, SPACE/NAME or compact canonical JSON ID", () => {
    const json = synth((stack) => {
      new ModuleWorker(stack, "short", { name: "short" }).importFromHost("short");
      new ModuleWorker(stack, "spaced", { name: "spaced" }).importFromHost("acme corp/spaced");
      new ModuleWorker(stack, "exact", { name: "exact" }).importFromHost({
        name: "exact",
        space: "acme corp: team a",
        apiVersion: "edge.takoform-cdk.dev/v1alpha1",
        kind: "ModuleWorker",
        definitionVersion: "0.2.0",
        schemaDigest: `sha256:${"c".repeat(64)}`,
      });
      new ModuleWorker(stack, "nospace", { name: "nospace" }).importFromHost({ name: "nospace", space: "" });
      const variable = new TerraformVariable(stack, "name", { type: "string" });
      new ModuleWorker(stack, "fromvar", { name: variable.stringValue }).importFromHost(variable.stringValue);
    });
    expect(json.import).toEqual([
      { to: "takoform_module_worker.short", id: "short" },
      { to: "takoform_module_worker.spaced", id: "acme corp/spaced" },
      {
        to: "takoform_module_worker.exact",
        id: `{"space":"acme corp: team a","apiVersion":"edge.takoform-cdk.dev/v1alpha1","kind":"ModuleWorker","definitionVersion":"0.2.0","schemaDigest":"sha256:${"c".repeat(64)}","name":"exact"}`,
      },
      { to: "takoform_module_worker.nospace", id: '{"name":"nospace"}' },
      { to: "takoform_module_worker.fromvar", id: "${var.name}" },
    ]);
    expect(
      synthProblems((stack) => {
        const w = new ModuleWorker(stack, "w", { name: "w" });
        w.importFromHost({ name: "w", apiVersion: "edge.takoform-cdk.dev/v1alpha1" });
        w.importFromHost({ name: "w", apiVersion: "a.b/v1", kind: "WorkerVersion", definitionVersion: "0.1.0", schemaDigest: `sha256:${"c".repeat(64)}` });
        w.importFromHost({ name: "w", unknown: "member" } as Doc as { name: string });
        w.importFromHost("");
        w.importFromHost("w");
        w.importFromHost("w");
      }),
    ).toEqual([
      "[demo/w] importFromHost: import identity must carry apiVersion, kind, definitionVersion, and schemaDigest together, or none of them.",
      "[demo/w] importFromHost: Import ID names another Form kind: WorkerVersion, but this resource is a ModuleWorker.",
      '[demo/w] importFromHost: import identity carries the unknown member "unknown" (members: space, apiVersion, kind, definitionVersion, schemaDigest, name).',
      "[demo/w] importFromHost: an import ID must not be empty.",
      "[demo/w] importFromHost was called more than once; a resource is imported from one ID.",
    ]);
    // The ID's own type is checked at once: TypeScript rejects anything else.
    const stack = new TerraformStack(Testing.app({ outdir: tempDir("takoform-import-") }), "s");
    expect(() => new ModuleWorker(stack, "w", { name: "w" }).importFromHost(null as unknown as string)).toThrow(ImportIdError);
  });

  it("reserves the contribution shape: `//`.takoform.contributions on the receiving resource", () => {
    class Receiving extends takoform.MeshContainer {
      add(contribution: SynthesizedContribution): void {
        this.recordContribution(contribution);
      }
    }
    const json = fullSynth((stack) => {
      const worker = new takoform.MeshWorker(stack, "worker", { name: "worker", entrypoint: "main.js" });
      const container = new Receiving(stack, "container", { name: "container", image: "img" });
      container.add({ from: "takoform_mesh_worker.worker", values: { namespace_id: worker.namespaceId } });
      new ModuleWorker(stack, "plain", { name: "plain" });
    });
    const container = json.resource.takoform_mesh_container.container;
    expect(container["//"].takoform).toEqual({
      contributions: [{ from: "takoform_mesh_worker.worker", values: { namespace_id: "${takoform_mesh_worker.worker.namespace_id}" } }],
    });
    expect(container["//"].metadata.path).toBe("demo/container");
    expect(container).not.toHaveProperty("namespace_id");
    expect(json.resource.takoform_module_worker.plain["//"]).not.toHaveProperty("takoform");
  });
});

describe("TakoformProvider", () => {
  it("writes the provider block (lane included); a literal token gets a synth warning, a variable does not", () => {
    const outdir = tempDir("takoform-provider-");
    const app = new App({ outdir });
    const stack = new TerraformStack(app, "demo");
    const token = new TerraformVariable(stack, "token", { type: "string", sensitive: true });
    new TakoformProvider(stack, "takoform", { endpoint: "http://127.0.0.1:8080", space: "prod", token: token.stringValue, lane: "v1alpha3" });
    new TakoformProvider(stack, "literal", { token: "takoform-dev-token", alias: "dev" });
    new ModuleWorker(stack, "w", { name: "w" });
    app.synth();
    const json = JSON.parse(readFileSync(join(outdir, "stacks/demo/cdk.tf.json"), "utf8"));
    expect(json.provider.takoform).toEqual([
      { endpoint: "http://127.0.0.1:8080", space: "prod", token: "${var.token}", lane: "v1alpha3" },
      { alias: "dev", token: "takoform-dev-token" },
    ]);
    const warnings = stack.node.findAll().flatMap((c) => c.node.metadata.filter((m) => m.type === "@cdktf/warn").map((m) => `${c.node.id}: ${String(m.data)}`));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^literal: The takoform provider token is a literal/);
  });
});

describe("synthesis without terraform", () => {
  it("an app synthesizes with a PATH that holds only node", () => {
    const bin = tempDir("takoform-path-");
    symlinkSync(process.execPath, join(bin, "node"));
    const outdir = tempDir("takoform-nobinary-");
    const run = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "test/constructs/fixtures/app.ts"), outdir], {
      cwd: ROOT,
      encoding: "utf8",
      env: { PATH: bin, HOME: process.env.HOME ?? "/tmp", NO_COLOR: "1" },
    });
    expect(spawnSync("sh", ["-c", "command -v terraform"], { env: { PATH: bin } }).status).not.toBe(0);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const json = JSON.parse(readFileSync(join(outdir, "stacks/demo/cdk.tf.json"), "utf8"));
    expect(json.terraform.backend.local.path).toBe("state/terraform.tfstate");
    expect(json.import).toEqual([{ to: "takoform_worker_deployment.live", id: "prod/live" }]);
    expect(json.resource.takoform_worker_bundle.bundle.manifest_digest).toBe(`sha256:${"ab".repeat(32)}`);
    expect(json.resource.takoform_edge_kv_namespace.cache.name_prefix).toBe("cache-");
    expect(existsSync(join(outdir, "manifest.json"))).toBe(true);
  });
});
