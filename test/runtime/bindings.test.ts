// Bindings are real: every behaviour fixture of the bundled edge.kv, edge.objects, edge.sql,
// edge.queue (its producer operations) and worker.service Interfaces runs through a worker's env
// binding against the runtime's storage — the fixtures are the Interfaces' own, read from
// registry/packages, per Host API lane: a worker deployed on each lane runs its lane's fixtures
// (the lanes' edge.sql value models and ceilings differ; test/runtime/data-plane-lanes.test.ts).
// Beyond them: a KV value survives a host restart, a re-created namespace starts empty, and a
// binding whose pinned target is gone fails backend_unavailable.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { AtLeastOnceQueue, EdgeKVNamespace, ObjectBucket, SQLiteDatabase, WorkerApp } from "../../src/index.ts";
import { endpointUrl, Project, startRuntimeHost, useRuntimeHost } from "./harness.ts";
import { laneNamed, type LaneName } from "../../src/core/lanes.ts";

const LANE_INTERFACES: Record<LaneName, string> = {
  v1alpha3: fileURLToPath(new URL("../../registry/packages/lanes/v1alpha3/interfaces/v1alpha1", import.meta.url)),
  v1beta1: fileURLToPath(new URL("../../registry/packages/lanes/v1beta1/interfaces/v1alpha1", import.meta.url)),
};

interface Step {
  operation: string;
  input: Record<string, unknown>;
  expected?: Record<string, unknown>;
  expectedError?: string;
}

function laneFixtures(lane: LaneName, name: string): { name: string; steps: Step[] }[] {
  return (JSON.parse(readFileSync(join(LANE_INTERFACES[lane], name, "definition.json"), "utf8")) as { fixtures: { name: string; steps: Step[] }[] }).fixtures;
}

/** A worker that runs one Interface operation through an env binding and reports the outcome. */
const DRIVER = `const b64 = (buffer) => { let s = ""; for (const x of new Uint8Array(buffer)) s += String.fromCharCode(x); return btoa(s); };
const drain = async (stream) => { let n = 0; const r = stream.getReader(); for (;;) { const { done, value } = await r.read(); if (done) return n; n += value.byteLength; } };
const unb64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const notFound = () => Object.assign(new Error("not_found"), { code: "not_found" });
const ops = {
  kv: {
    async put(b, i) { await b.put(i.key, unb64(i.value.data), { metadata: i.metadata, expirationTtlSeconds: i.expirationTtlSeconds }); return {}; },
    async get(b, i) { const v = await b.get(i.key); if (v === null) throw notFound(); return { value: { encoding: "base64", data: b64(v) } }; },
    async getWithMetadata(b, i) { const v = await b.getWithMetadata(i.key); if (v === null) throw notFound(); return { value: { encoding: "base64", data: b64(v.value) }, ...(v.metadata ? { metadata: v.metadata } : {}) }; },
    async delete(b, i) { await b.delete(i.key); return {}; },
    async list(b, i) { return b.list(i); },
  },
  objects: {
    async put(b, i) { return b.put(i.key, new Uint8Array(i.contentLength), { contentType: i.contentType, ifMatch: i.ifMatch, ifNoneMatch: i.ifNoneMatch }); },
    async head(b, i) { const h = await b.head(i.key); if (h === null) throw notFound(); return h; },
    async get(b, i) {
      const o = await b.get(i.key, { range: i.range, ifMatch: i.ifMatch, ifNoneMatch: i.ifNoneMatch });
      if (o === null) throw notFound();
      const { body, ...meta } = o;
      return { ...meta, bodyStream: body instanceof ReadableStream, read: await drain(body) };
    },
    async delete(b, i) { await b.delete(i.key); return {}; },
    async list(b, i) { return b.list(i); },
    async multipart(b, i) {
      const { uploadId } = await b.createMultipartUpload(i.key, { contentType: "text/plain" });
      const two = await b.uploadPart(i.key, uploadId, 2, "world");
      const one = await b.uploadPart(i.key, uploadId, 1, "hello ");
      const done = await b.completeMultipartUpload(i.key, uploadId, [two, one]);
      const o = await b.get(i.key);
      return { etag: done.etag, size: done.size, text: await new Response(o.body).text(), contentType: o.contentType };
    },
  },
  sql: {
    async execute(b, i) { return b.execute(i.sql, i.params); },
    async query(b, i) { return b.query(i.sql, i.params); },
    async transaction(b, i) { return b.transaction(i.statements); },
  },
  queue: {
    async send(b, i) { return { messageId: await b.send(unb64(i.body.data), { delaySeconds: i.delaySeconds }) }; },
    async sendBatch(b, i) { return { messageIds: await b.sendBatch(i.messages.map((m) => ({ body: unb64(m.body.data), delaySeconds: m.delaySeconds }))) }; },
  },
  service: {
    async fetch(b, i) {
      const init = { method: i.method };
      if (i.bodyStream) init.body = new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode("streamed")); c.close(); } });
      const r = await b.fetch("https://callee.invalid" + i.path, init);
      const text = await r.text();
      return { status: r.status, bodyStream: r.body !== null || text.length > 0, text };
    },
  },
};
export default {
  async fetch(request, env) {
    const { kind, binding, operation, input } = await request.json();
    try {
      return Response.json({ ok: true, result: await ops[kind][operation](env[binding], input) });
    } catch (e) {
      return Response.json({ ok: false, code: e.code ?? null, name: e.name, isError: e instanceof Error, message: String(e.message) });
    }
  },
};`;

const CALLEE = `export default { async fetch(request) {
  const path = new URL(request.url).pathname;
  if (path === "/throw") throw new Error("callee failed");
  return new Response("callee " + request.method + " " + (request.body ? await request.text() : ""));
} };`;

describe.each(["v1alpha3", "v1beta1"] as const)("bindings run the Interfaces' own fixtures — lane %s", (lane) => {
  const ctx = useRuntimeHost({ lanes: [lane] });
  const fixtures = (name: string) => laneFixtures(lane, name);
  const kvKeyBytes = laneNamed(lane).dataPlane.kvMaxKeyBytes;
  const project = new Project();
  let url = "";
  afterAll(() => project.close());

  const run = async (
    kind: string,
    binding: string,
    operation: string,
    input: unknown,
  ): Promise<{ ok: boolean; result?: Record<string, unknown>; code?: string | null; message?: string }> => {
    const response = await fetch(url, { method: "POST", body: JSON.stringify({ kind, binding, operation, input }) });
    expect(response.status).toBe(200);
    return (await response.json()) as { ok: boolean; result?: Record<string, unknown>; code?: string | null };
  };

  it("deploys a driver worker bound to one of each", async () => {
    const dist = project.modules("dist", { "index.js": DRIVER });
    const callee = project.modules("callee", { "index.js": CALLEE });
    await project.deploy(ctx.rt, (stack) => {
      const target = new WorkerApp(stack, "callee", { name: "callee", contentDir: callee });
      // Each fixture runs against a target of its own, as it assumes: KV0, KV1, … BUCKET0, …
      const many = <T>(prefix: string, count: number, make: (i: number) => T): Record<string, T> =>
        Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, make(i)]));
      const driver = new WorkerApp(stack, "driver", {
        name: "driver",
        contentDir: dist,
        endpoint: true,
        kvBindings: many("KV", fixtures("edge.kv").length + 1, (i) => new EdgeKVNamespace(stack, `kv${i}`, { name: `fixtures-kv-${i}` })),
        bucketBindings: many("BUCKET", fixtures("edge.objects").length + 1, (i) => new ObjectBucket(stack, `bucket${i}`, { name: `fixtures-bucket-${i}` })),
        sqliteBindings: many("DB", fixtures("edge.sql").length + 1, (i) => new SQLiteDatabase(stack, `db${i}`, { name: `fixtures-db-${i}` })),
        queueProducerBindings: { QUEUE0: new AtLeastOnceQueue(stack, "queue", { name: "fixtures-queue", messageRetentionSeconds: 3600 }) },
        serviceBindings: { CALLEE0: target.worker },
      });
      driver.version.dependsOn = [target.deployment.fqn];
    });
    url = endpointUrl(ctx.rt, "driver");
  }, 90_000);

  const table: [string, string, string][] = [
    ["edge.kv", "kv", "KV"],
    ["edge.objects", "objects", "BUCKET"],
    ["edge.sql", "sql", "DB"],
    ["edge.queue", "queue", "QUEUE"],
    ["worker.service", "service", "CALLEE"],
  ];
  for (const [iface, kind, prefix] of table) {
    for (const [index, fixture] of fixtures(iface).entries()) {
      const binding = kind === "queue" || kind === "service" ? `${prefix}0` : `${prefix}${index}`;
      // edge.queue's settlement operations are the consumer's (message.ack/retry), not the producer binding's.
      const steps = fixture.steps.filter((s) => !(kind === "queue" && !["send", "sendBatch"].includes(s.operation)));
      if (steps.length === 0) continue;
      it(`${iface} fixture ${fixture.name}`, async () => {
        for (const step of steps) {
          const outcome = await run(kind, binding, step.operation, step.input);
          if (step.expectedError !== undefined) {
            expect(outcome, `${step.operation} ${JSON.stringify(step.input)}`).toMatchObject({ ok: false, code: step.expectedError });
          } else {
            expect(outcome.ok, `${step.operation} ${JSON.stringify(step.input)}: ${outcome.message}`).toBe(true);
            if (step.expected !== undefined) expect(outcome.result).toMatchObject(step.expected);
          }
        }
      });
    }
  }

  it("edge.objects: a ranged read returns exactly the bytes that exist, and a failed precondition is precondition_failed", async () => {
    const bucket = `BUCKET${fixtures("edge.objects").length}`;
    expect((await run("objects", bucket, "put", { key: "r/one", contentLength: 10 })).ok).toBe(true);
    const ranged = await run("objects", bucket, "get", { key: "r/one", range: { offset: 4, length: 100 } });
    expect(ranged.result).toMatchObject({ partial: true, range: { offset: 4, length: 6 }, size: 10, read: 6 });
    expect((await run("objects", bucket, "get", { key: "r/one", ifMatch: '"nope"' })).code).toBe("precondition_failed");
  });

  it("edge.objects: a multipart upload joins its parts in part-number order", async () => {
    const outcome = await run("objects", `BUCKET${fixtures("edge.objects").length}`, "multipart", { key: "m/joined" });
    expect(outcome.result).toMatchObject({ size: 11, text: "hello world", contentType: "text/plain" });
    expect(outcome.result!.etag).toMatch(/^"[0-9a-f]{32}-2"$/);
  });

  it("edge.sql refuses what would reach outside the database, and query refuses writes", async () => {
    const db = `DB${fixtures("edge.sql").length}`;
    expect((await run("sql", db, "execute", { sql: "ATTACH DATABASE '/tmp/x.db' AS x" })).code).toBe("sql_error");
    expect((await run("sql", db, "query", { sql: "CREATE TABLE t (x)" })).code).toBe("sql_error");
    const seven = lane === "v1alpha3" ? { type: "integer", value: "7" } : 7;
    expect((await run("sql", db, "execute", { sql: "SELECT ?1, ?", params: [seven] })).message).toContain("the statement takes 2 parameters, 1 were given");
  });

  it("edge.kv refuses a key over the lane's ceiling with invalid_key and pages a listing with a cursor", async () => {
    const kv = `KV${fixtures("edge.kv").length}`;
    // A failure rejects with an Error (of the module's own realm) named after the Interface's code.
    expect(await run("kv", kv, "put", { key: "k".repeat(kvKeyBytes + 1), value: { encoding: "base64", data: "" } })).toMatchObject({
      ok: false,
      code: "invalid_key",
      name: "invalid_key",
      isError: true,
    });
    expect(await run("kv", kv, "put", { key: "k".repeat(kvKeyBytes), value: { encoding: "base64", data: "" } })).toMatchObject({ ok: true });
    for (const k of ["p/1", "p/2", "p/3"]) expect((await run("kv", kv, "put", { key: k, value: { encoding: "base64", data: "eA==" } })).ok).toBe(true);
    const first = await run("kv", kv, "list", { prefix: "p/", limit: 2 });
    expect(first.result).toMatchObject({ keys: [{ name: "p/1" }, { name: "p/2" }], listComplete: false });
    const second = await run("kv", kv, "list", { prefix: "p/", limit: 2, cursor: first.result!.cursor });
    expect(second.result).toEqual({ keys: [{ name: "p/3" }], listComplete: true });
  });
});

describe("edge.kv data lives in the host's store", () => {
  const dir = mkdtempSync(join(tmpdir(), "takoform-runtime-kv-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a value survives a host restart; a re-created namespace starts empty", async () => {
    const data = join(dir, "host");
    const code = `export default { async fetch(request, env) {
  const url = new URL(request.url);
  if (request.method === "PUT") { await env.KV.put("k", url.searchParams.get("v")); return new Response("stored"); }
  const v = await env.KV.get("k");
  return new Response(v === null ? "nothing" : new TextDecoder().decode(v));
} };`;
    const project = new Project();
    const dist = project.modules("dist", { "index.js": code });
    const build = (kvName: string) => (stack: Parameters<Parameters<Project["deploy"]>[1]>[0]) => {
      const kv = new EdgeKVNamespace(stack, "kv", { name: kvName });
      new WorkerApp(stack, "w", { name: "keeper", contentDir: dist, endpoint: true, kvBindings: { KV: kv } });
    };
    let rt = await startRuntimeHost({ data });
    try {
      await project.deploy(rt, build("first"));
      expect(await (await fetch(`${endpointUrl(rt, "keeper")}?v=kept`, { method: "PUT" })).text()).toBe("stored");
    } finally {
      await rt.close();
    }
    rt = await startRuntimeHost({ data });
    try {
      expect(await (await fetch(endpointUrl(rt, "keeper"))).text()).toBe("kept");
      // A namespace of another name is another incarnation: the version moves to it, and it is empty.
      await project.deploy(rt, build("second"));
      expect(await (await fetch(endpointUrl(rt, "keeper"))).text()).toBe("nothing");
    } finally {
      await rt.close();
      await project.close();
    }
  }, 120_000);
});
