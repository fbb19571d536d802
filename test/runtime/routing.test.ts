// Routing worker traffic on the host's port, and traffic following the store: by an endpoint's
// hostname (Host header, as `*.localhost` on the served port) and by the `/_worker/<hostname>/`
// path form; by a custom domain's hostname; a new deployment is served at once; weights split
// traffic exactly (smooth weighted round-robin); a deleted worker stops answering with a
// host-generated 404, and the Host API keeps its own requests.

import { request } from "node:http";
import type { Construct } from "constructs";
import { afterAll, describe, expect, it } from "vitest";
import { PREFERRED_LANE } from "../../src/core/lanes.ts";
import { ModuleWorker, WorkerApp, WorkerBundle, WorkerCustomDomain, WorkerDeployment, WorkerEndpoint, WorkerVersion } from "../../src/index.ts";
import { DEV_TOKEN } from "../../src/host/index.ts";
import { endpointUrl, Project, useRuntimeHost } from "./harness.ts";
import { apply, synthStack } from "../scenario/harness.ts";

const ECHO = `export default {
  async fetch(request) {
    return Response.json({ version: VERSION, method: request.method, url: request.url, host: request.headers.get("host") });
  },
};
`;

function echo(version: string): string {
  return `const VERSION = ${JSON.stringify(version)};\n${ECHO}`;
}

/** A raw request: Host header and path chosen freely, connected to the host's port. */
function raw(
  port: number,
  host: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { host, ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("worker routing", () => {
  const ctx = useRuntimeHost();
  const projects: Project[] = [];
  afterAll(async () => {
    for (const p of projects) await p.close();
  });
  const project = (): Project => {
    const p = new Project();
    projects.push(p);
    return p;
  };

  it("an endpoint answers by its hostname and by the path form, and the worker sees its address URL", async () => {
    const p = project();
    const dist = p.modules("dist", { "index.js": echo("one") });
    await p.deploy(ctx.rt, (stack) => void new WorkerApp(stack, "w", { name: "echo", contentDir: dist, endpoint: true }));
    const address = ctx.rt.host.served().find((w) => w.name === "echo")!.addresses[0]!;
    expect(address.via).toBe("WorkerEndpoint");
    expect(address.hostname).toMatch(/^echo-endpoint-[0-9a-f]{8}\.workers\.localhost$/);
    expect(address.pathUrl).toBe(`${ctx.rt.url}/_worker/${address.hostname}/`);
    expect(address.hostUrl).toBe(`http://${address.hostname}:${ctx.rt.port}/`);

    const byHost = await raw(ctx.rt.port, `${address.hostname}:${ctx.rt.port}`, "/a/b?c=1");
    expect(byHost.status).toBe(200);
    expect(JSON.parse(byHost.text)).toEqual({
      version: "one",
      method: "GET",
      url: `http://${address.hostname}:${ctx.rt.port}/a/b?c=1`,
      host: `${address.hostname}:${ctx.rt.port}`,
    });

    const byPath = await fetch(`${address.pathUrl}a/b?c=1`, { method: "POST", body: "x" });
    expect(byPath.status).toBe(200);
    expect(JSON.parse(await byPath.text())).toMatchObject({ version: "one", method: "POST", url: `http://${address.hostname}:${ctx.rt.port}/a/b?c=1` });
    // The bare address (no trailing slash) is the root path.
    expect(JSON.parse(await (await fetch(`${ctx.rt.url}/_worker/${address.hostname}?q=1`)).text()).url).toBe(`http://${address.hostname}:${ctx.rt.port}/?q=1`);
  }, 60_000);

  it("a custom domain answers by its hostname (Host header and path form)", async () => {
    const p = project();
    const dist = p.modules("dist", { "index.js": echo("domain") });
    await p.deploy(ctx.rt, (stack) => {
      const app = new WorkerApp(stack, "w", { name: "shop", contentDir: dist });
      new WorkerCustomDomain(stack, "domain", { name: "shop-domain", worker: app.worker, hostname: "shop.example.test", dependsOn: [app.deployment] });
    });
    const answer = await raw(ctx.rt.port, "shop.example.test", "/cart");
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ version: "domain", url: `http://shop.example.test:${ctx.rt.port}/cart` });
    const byPath = await fetch(`${ctx.rt.url}/_worker/SHOP.example.test/cart`);
    expect(JSON.parse(await byPath.text())).toMatchObject({ version: "domain", url: `http://shop.example.test:${ctx.rt.port}/cart` });
    expect(
      ctx.rt.host
        .served()
        .find((w) => w.name === "shop")!
        .addresses.map((a) => [a.via, a.name, a.hostname]),
    ).toEqual([["WorkerCustomDomain", "shop-domain", "shop.example.test"]]);
  }, 60_000);

  it("an address no worker serves is a host-generated 404, and the Host API keeps its own requests", async () => {
    const missing = await raw(ctx.rt.port, `nothing-00000000.workers.localhost:${ctx.rt.port}`, "/");
    expect(missing.status).toBe(404);
    expect(missing.headers["takoform-runtime-error"]).toBe("worker_not_found");
    expect(missing.text).toBe("takoform runtime: no worker is served at nothing-00000000.workers.localhost\n");
    const byPath = await fetch(`${ctx.rt.url}/_worker/nothing.example.test/`);
    expect(byPath.status).toBe(404);
    expect(byPath.headers.get("takoform-runtime-error")).toBe("worker_not_found");
    for (const host of [`127.0.0.1:${ctx.rt.port}`, `localhost:${ctx.rt.port}`]) {
      const discovery = await raw(ctx.rt.port, host, PREFERRED_LANE.discoveryPath, { authorization: `Bearer ${DEV_TOKEN.token}` });
      expect(discovery.status, host).toBe(200);
    }
  });

  it("a new deployment is served at once, with no restart", async () => {
    const p = project();
    const dist = p.modules("dist", { "index.js": echo("v1") });
    const build = (stack: Construct): void => void new WorkerApp(stack, "w", { name: "roll", contentDir: dist, endpoint: true });
    await p.deploy(ctx.rt, build);
    const url = endpointUrl(ctx.rt, "roll");
    expect(JSON.parse(await (await fetch(url)).text()).version).toBe("v1");
    p.modules("dist", { "index.js": echo("v2") });
    await p.deploy(ctx.rt, build);
    expect(JSON.parse(await (await fetch(url)).text()).version).toBe("v2");
    expect(endpointUrl(ctx.rt, "roll")).toBe(url);
  }, 90_000);

  it("traffic follows the deployment's weights exactly: 7500/2500 serves a, a, b, a and again", async () => {
    const p = project();
    const a = p.modules("a", { "index.js": echo("a") });
    const b = p.modules("b", { "index.js": echo("b") });
    await p.deploy(ctx.rt, (stack) => {
      const worker = new ModuleWorker(stack, "worker", { name: "split" });
      const version = (id: string, dir: string): WorkerVersion => {
        const bundle = new WorkerBundle(stack, `bundle-${id}`, {
          revisionOwner: "split",
          mainModule: "index.js",
          modules: [{ name: "index.js", contentType: "application/javascript+module", contentFile: `${dir}/index.js` }],
        });
        return new WorkerVersion(stack, `version-${id}`, { revisionOwner: "split", worker, bundle, handlers: ["fetch"] });
      };
      const deployment = new WorkerDeployment(stack, "deployment", {
        name: "split-deployment",
        worker,
        versions: [
          { workerVersion: version("a", a), weight: 7500 },
          { workerVersion: version("b", b), weight: 2500 },
        ],
      });
      new WorkerEndpoint(stack, "endpoint", { name: "split-endpoint", worker, dependsOn: [deployment] });
    });
    const url = endpointUrl(ctx.rt, "split");
    const seen: string[] = [];
    for (let i = 0; i < 8; i++) seen.push(JSON.parse(await (await fetch(url)).text()).version as string);
    expect(seen).toEqual(["a", "a", "b", "a", "a", "a", "b", "a"]);
  }, 90_000);

  it("a deleted worker stops answering: a host-generated 404 at its old address", async () => {
    const p = project();
    const dist = p.modules("dist", { "index.js": echo("doomed") });
    const { stack } = await synthStack(p.scratch, (s) => void new WorkerApp(s, "w", { name: "doomed", contentDir: dist, endpoint: true }));
    await p.deploy(ctx.rt, (s) => void new WorkerApp(s, "w", { name: "doomed", contentDir: dist, endpoint: true }));
    const url = endpointUrl(ctx.rt, "doomed");
    expect((await fetch(url)).status).toBe(200);
    const destroyed = await apply(ctx.rt.engine, stack, p.store, { plan: { mode: "destroy" } });
    expect(destroyed.result?.ok).toBe(true);
    const gone = await fetch(url);
    expect(gone.status).toBe(404);
    expect(gone.headers.get("takoform-runtime-error")).toBe("worker_not_found");
    expect(ctx.rt.host.served().some((w) => w.name === "doomed")).toBe(false);
  }, 90_000);
});
