// The runtime ABI with this project's own bundles (the corpus-driven checks are in
// conformance.test.ts and need TAKOFORM_CORPUS; these do not): the handler's arguments and a
// throw, env projection with vars and a secret, the global object, multi-module bundles,
// ctx.waitUntil, and modules that cannot load.

import { describe, expect, it, afterAll } from "vitest";
import { EdgeKVNamespace, WorkerApp } from "../../src/index.ts";
import { endpointUrl, Project, useRuntimeHost } from "./harness.ts";

describe("the runtime ABI, own bundles", () => {
  const ctx = useRuntimeHost({ secrets: { SIGNING_KEY: "s3cret" } });
  const projects: Project[] = [];
  afterAll(async () => {
    for (const p of projects) await p.close();
  });
  const deploy = async (name: string, files: Record<string, string>, extra: Partial<ConstructorParameters<typeof WorkerApp>[2]> = {}): Promise<string> => {
    const p = new Project();
    projects.push(p);
    const dist = p.modules("dist", files);
    await p.deploy(ctx.rt, (stack) => {
      const kv = new EdgeKVNamespace(stack, "kv", { name: `${name}-kv` });
      new WorkerApp(stack, "w", { name, contentDir: dist, endpoint: true, kvBindings: { STORE: kv }, ...extra });
    });
    return endpointUrl(ctx.rt, name);
  };

  it("fetch gets (request, env, ctx); a throw is a complete host-generated 500", async () => {
    const url = await deploy("args", {
      "index.js": `export default {
  async fetch(request, env, ctx) {
    if (new URL(request.url).pathname === "/throw") throw new Error("boom");
    return Response.json({ count: arguments.length, isRequest: request instanceof Request, waitUntil: typeof ctx.waitUntil, keys: Object.keys(ctx) });
  },
};`,
    });
    expect(await (await fetch(url)).json()).toEqual({ count: 3, isRequest: true, waitUntil: "function", keys: ["waitUntil"] });
    const thrown = await fetch(`${url}throw`);
    expect(thrown.status).toBe(500);
    expect(thrown.headers.get("takoform-runtime-error")).toBe("uncaught");
    expect(await thrown.text()).toBe("takoform runtime: boom\n");
    expect(ctx.rt.logs.some((l) => l.includes("fetch threw (the host answers 500): Error: boom"))).toBe(true);
  }, 60_000);

  it("env holds exactly the vars (JSON types kept), the secret and the bindings", async () => {
    const url = await deploy(
      "envy",
      {
        "index.js": `export default { async fetch(request, env) { return Response.json({ keys: Object.keys(env).sort(), mode: env.MODE, limits: env.LIMITS, secret: env.SIGNING_KEY, kv: typeof env.STORE.get }); } };`,
      },
      { vars: { MODE: "dev", LIMITS: { max: 3, tags: ["a"] } }, requiredSensitiveVars: ["SIGNING_KEY"] },
    );
    expect(await (await fetch(url)).json()).toEqual({
      keys: ["LIMITS", "MODE", "SIGNING_KEY", "STORE"],
      mode: "dev",
      limits: { max: 3, tags: ["a"] },
      secret: "s3cret",
      kv: "function",
    });
  }, 60_000);

  it("a required sensitive variable without a value keeps the version from starting, and says how to give it one", async () => {
    const url = await deploy(
      "nosecret",
      { "index.js": `export default { async fetch() { return new Response("unreachable"); } };` },
      { requiredSensitiveVars: ["MISSING_TOKEN"] },
    );
    const answer = await fetch(url);
    expect(answer.status).toBe(503);
    expect(answer.headers.get("takoform-runtime-error")).toBe("backend_unavailable");
    expect(await answer.text()).toContain(
      "the sensitive variable MISSING_TOKEN has no value in this runtime; give it one (takoform dev --secret MISSING_TOKEN=VALUE, or the environment variable TAKOFORM_SECRET_MISSING_TOKEN)",
    );
  }, 60_000);

  it("the global object is the portable platform: the floor is there, Node is not", async () => {
    const url = await deploy("globals", {
      "index.js": `const floor = ["AbortController","AbortSignal","Headers","ReadableStream","Request","Response","TextDecoder","TextEncoder","URL","URLSearchParams","WritableStream","clearInterval","clearTimeout","crypto.getRandomValues","crypto.subtle.digest","fetch","setInterval","setTimeout","structuredClone"];
const at = (path) => path.split(".").reduce((v, k) => (v == null ? undefined : v[k]), globalThis);
export default {
  async fetch() {
    let dynamicImport;
    try { await import("node:fs"); dynamicImport = "loaded"; } catch (e) { dynamicImport = "refused"; }
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode("x")));
    return Response.json({
      missing: floor.filter((p) => at(p) === undefined),
      node: ["process", "require", "Buffer", "global", "module", "__dirname"].filter((n) => typeof globalThis[n] !== "undefined"),
      dynamicImport,
      digest: digest.length,
      timer: typeof setTimeout(() => {}, 0),
    });
  },
};`,
    });
    expect(await (await fetch(url)).json()).toEqual({ missing: [], node: [], dynamicImport: "refused", digest: 32, timer: "number" });
  }, 60_000);

  it("a bundle is a module graph: relative imports, text and binary modules", async () => {
    const url = await deploy("graph", {
      "index.js": `import { greet } from "./lib/greet.js";
import banner from "./banner.txt";
import raw from "./data.bin";
export default { async fetch() { return Response.json({ text: greet(banner), bytes: [...new Uint8Array(raw)], isBuffer: raw instanceof ArrayBuffer }); } };`,
      "lib/greet.js": `export function greet(s) { return "hi " + s.trim(); }`,
      "banner.txt": "there\n",
      "data.bin": "\u0001\u0002\u0003",
    });
    expect(await (await fetch(url)).json()).toEqual({ text: "hi there", bytes: [1, 2, 3], isBuffer: true });
  }, 60_000);

  it("ctx.waitUntil: the response goes out first, a rejected task changes nothing, a late call is context_expired", async () => {
    const url = await deploy("later", {
      "index.js": `let leftover;
export default {
  async fetch(request, env, ctx) {
    const path = new URL(request.url).pathname;
    if (path === "/late") {
      try { leftover.waitUntil(Promise.resolve()); return new Response("accepted"); } catch (e) { return new Response(e.code); }
    }
    if (path === "/done") { const v = await env.STORE.get("marker"); return new Response(v === null ? "pending" : new TextDecoder().decode(v)); }
    leftover = ctx;
    ctx.waitUntil(Promise.reject(new Error("ignored")));
    ctx.waitUntil(new Promise((r) => setTimeout(r, 300)).then(() => env.STORE.put("marker", "settled")));
    return new Response("sent");
  },
};`,
    });
    expect(await (await fetch(url)).text()).toBe("sent");
    expect(await (await fetch(`${url}done`)).text()).toBe("pending");
    for (let i = 0; i < 100 && (await (await fetch(`${url}done`)).text()) !== "settled"; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await (await fetch(`${url}done`)).text()).toBe("settled");
    expect(await (await fetch(`${url}late`)).text()).toBe("context_expired");
    expect(ctx.rt.logs.some((l) => l.includes("a ctx.waitUntil task rejected (the response is unchanged): Error: ignored"))).toBe(true);
  }, 60_000);

  it("a module whose top-level code throws does not load: a host-generated 503 naming why", async () => {
    const url = await deploy("broken", {
      "index.js": `const config = JSON.parse("{oops");\nexport default { async fetch() { return new Response(String(config)); } };`,
    });
    const answer = await fetch(url);
    expect(answer.status).toBe(503);
    expect(await answer.text()).toMatch(
      /^takoform runtime: version version-[0-9a-f]+-[0-9a-f]+ does not load \(module_syntax_error\): evaluating "index\.js" threw: .*JSON/,
    );
  }, 60_000);
});
