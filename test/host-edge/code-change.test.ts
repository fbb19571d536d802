// "The worker stays served while its code changes" (decision 0029 rules 6 and 7), observed over
// HTTP. A worker aggregate moves to new code exactly as the worker-app module does it — a new
// bundle and version created beside the old ones under content-derived names, the deployment
// re-weighted in place, the old version and bundle deleted — while a SECOND client, on its own
// connection, reads the ModuleWorker's Ready condition in a tight loop the whole time.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestCanonical, sha256Hex } from "../../src/forms/digest.ts";
import { HttpClient, type RawResponse } from "../host/harness.ts";
import { Edge, modes, readyOf } from "./edge.ts";

const MODULE_V1 = "export default {\n  async fetch() { return new Response('v1'); },\n  async scheduled() {},\n};\n";
const MODULE_V2 = "const app = {\n  async fetch() { return new Response('v2'); },\n  async scheduled() {},\n};\nexport default app;\n";

interface Sample {
  at: number;
  status: string;
}

/** Reads one resource's Ready status in a loop on its own connection until stopped. */
class ReadySampler {
  readonly samples: Sample[] = [];
  private stopped = false;
  private readonly client: HttpClient;
  private readonly done: Promise<void>;

  constructor(url: string, path: string) {
    const client = new HttpClient(url);
    this.client = client;
    this.done = (async () => {
      while (!this.stopped) {
        const at = performance.now();
        const res = await client.request("GET", path);
        if (res.status !== 200) throw new Error(`sampler read answered ${res.status}: ${res.text}`);
        this.samples.push({ at, status: readyOf(res.json).status as string });
      }
    })();
  }

  async warm(): Promise<void> {
    while (this.samples.length === 0) await new Promise((r) => setTimeout(r, 1));
  }

  async stop(): Promise<Sample[]> {
    this.stopped = true;
    await this.done;
    this.client.close();
    return this.samples;
  }
}

/** The derived revision names of decision 0029: `<prefix>-<content12>-<owner12>`. */
function revisionName(prefix: "bundle" | "version", contentDigest: string, owner: string): string {
  return `${prefix}-${contentDigest.replace(/^sha256:/, "").slice(0, 12)}-${sha256Hex(owner).slice(0, 12)}`;
}

describe.each(modes())("code change without a Ready=False window — $label", (mode) => {
  let edge: Edge;
  beforeAll(async () => {
    edge = await Edge.open(mode);
  });
  afterAll(async () => edge.close());

  /** Worker, bundle, version (derived names), deployment and endpoint for one owner. */
  async function app(owner: string, source: string): Promise<{ bundle: string; version: string; deployment: string }> {
    await edge.create("ModuleWorker", owner, {});
    const manifestDigest = await edge.bundleDigest(source);
    const bundle = revisionName("bundle", manifestDigest, owner);
    await edge.create("WorkerBundle", bundle, { manifestDigest });
    const spec = edge.versionSpec({ bundle, worker: owner, handlers: ["fetch", "scheduled"] });
    const version = revisionName("version", digestCanonical(spec as never), owner);
    await edge.create("WorkerVersion", version, spec);
    const deployment = `${owner}-deployment`;
    await edge.create("WorkerDeployment", deployment, edge.deploymentSpec(owner, [[version, 10000]]));
    await edge.create("WorkerEndpoint", `${owner}-endpoint`, { worker: edge.to("ModuleWorker", owner) });
    return { bundle, version, deployment };
  }

  /** The code change, as the measured timeline: returns each step's answer status. */
  async function moveTo(owner: string, old: { bundle: string; version: string; deployment: string }, source: string): Promise<number[]> {
    const statuses: number[] = [];
    const step = async (res: RawResponse, what: string): Promise<void> => {
      statuses.push(res.status);
      if (res.status === 202) {
        const op = await edge.wire.poll(res.json.operation.id as string);
        if (op.error !== undefined) throw new Error(`${what} failed: ${JSON.stringify(op.error)}`);
      } else if (res.status >= 300) {
        throw new Error(`${what} answered ${res.status}: ${res.text}`);
      }
    };
    const manifestDigest = await edge.bundleDigest(source);
    const bundle = revisionName("bundle", manifestDigest, owner);
    await step(await edge.createRaw("WorkerBundle", bundle, { manifestDigest }), "PUT WorkerBundle");
    const spec = edge.versionSpec({ bundle, worker: owner, handlers: ["fetch", "scheduled"] });
    const version = revisionName("version", digestCanonical(spec as never), owner);
    await step(await edge.createRaw("WorkerVersion", version, spec), "PUT WorkerVersion");
    const current = await edge.read("WorkerDeployment", old.deployment);
    await step(
      await edge.updateRaw("WorkerDeployment", old.deployment, edge.deploymentSpec(owner, [[version, 10000]]), current.metadata.generation),
      "PUT WorkerDeployment",
    );
    await step(await edge.removeRaw("WorkerVersion", old.version, "1"), "DELETE WorkerVersion");
    await step(await edge.removeRaw("WorkerBundle", old.bundle, "1"), "DELETE WorkerBundle");
    return statuses;
  }

  it("a code change re-weights in place and the worker is never observed Ready=False (decision 0029 rule 6)", async () => {
    const old = await app("counter", MODULE_V1);
    const endpoint = await edge.read("WorkerEndpoint", "counter-endpoint");
    const sampler = new ReadySampler(edge.served.url, `${edge.wire.path(edge.ref("ModuleWorker"), "counter")}?${edge.wire.query(edge.ref("ModuleWorker"))}`);
    await sampler.warm();
    const started = performance.now();
    const statuses = await moveTo("counter", old, MODULE_V2);
    const finished = performance.now();
    // Let the sampler read the settled state too.
    const settledAt = sampler.samples.length;
    while (sampler.samples.length < settledAt + 3) await new Promise((r) => setTimeout(r, 1));
    const samples = await sampler.stop();

    expect(statuses).toEqual(mode.async ? [202, 202, 202, 202, 202] : [201, 201, 200, 204, 204]);
    const during = samples.filter((s) => s.at >= started && s.at <= finished);
    expect(during.length).toBeGreaterThan(0);
    if (process.env.EDGE_SAMPLES) console.log(`${mode.label}: ${samples.length} samples, ${during.length} during the change`);
    expect(samples.filter((s) => s.status === "True").length).toBeGreaterThan(0);
    expect(samples.filter((s) => s.status !== "True")).toEqual([]);
    // The old revisions are gone, the endpoint kept its address and stayed Ready with no apply.
    await edge.readAbsent("WorkerVersion", old.version);
    await edge.readAbsent("WorkerBundle", old.bundle);
    const after = await edge.read("WorkerEndpoint", "counter-endpoint");
    expect(after.status.outputs).toEqual(endpoint.status.outputs);
    expect(after.metadata.revision).toBe(endpoint.metadata.revision);
    expect(readyOf(after).status).toBe("True");
    expect(readyOf(await edge.read("ModuleWorker", "counter")).status).toBe("True");
  });

  it("two owners of byte-identical code: moving one never unserves the other (decision 0029 rule 7)", async () => {
    const alpha = await app("alpha", MODULE_V1);
    const beta = await app("beta", MODULE_V1);
    // Four distinct revision names from identical bytes.
    expect(new Set([alpha.bundle, alpha.version, beta.bundle, beta.version]).size).toBe(4);
    const betaBefore = await edge.read("WorkerDeployment", beta.deployment);
    const sampler = new ReadySampler(edge.served.url, `${edge.wire.path(edge.ref("ModuleWorker"), "beta")}?${edge.wire.query(edge.ref("ModuleWorker"))}`);
    await sampler.warm();
    await moveTo("alpha", alpha, MODULE_V2);
    const samples = await sampler.stop();
    expect(samples.length).toBeGreaterThan(0);
    expect(samples.filter((s) => s.status !== "True")).toEqual([]);
    // The untouched owner holds exactly the revisions it held before.
    const betaAfter = await edge.read("WorkerDeployment", beta.deployment);
    expect(betaAfter.spec).toEqual(betaBefore.spec);
    expect(betaAfter.metadata.revision).toBe(betaBefore.metadata.revision);
    await edge.read("WorkerVersion", beta.version);
    await edge.read("WorkerBundle", beta.bundle);
  });

  it("the sampler does see a gap when there is one (control: delete, then re-create the deployment)", async () => {
    const old = await app("gap", MODULE_V1);
    await edge.remove("WorkerEndpoint", "gap-endpoint", "1");
    const sampler = new ReadySampler(edge.served.url, `${edge.wire.path(edge.ref("ModuleWorker"), "gap")}?${edge.wire.query(edge.ref("ModuleWorker"))}`);
    await sampler.warm();
    await edge.remove("WorkerDeployment", old.deployment, "1");
    const seen = sampler.samples.length;
    while (sampler.samples.length < seen + 2) await new Promise((r) => setTimeout(r, 1));
    await edge.create("WorkerDeployment", old.deployment, edge.deploymentSpec("gap", [[old.version, 10000]]));
    const samples = await sampler.stop();
    expect(samples.some((s) => s.status === "False")).toBe(true);
  });
});
