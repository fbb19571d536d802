// Static assets served beside a worker (docs/runtime.md, "Static assets"; reference v1beta1 §8.7):
// the exact manifest bytes at canonical paths, the SPA fallback to the bundle's own index.html,
// the stage order runWorkerFirst declares, and invalid paths that never match a file and never
// fall back. Requests are sent with their exact bytes (node:http), so no client normalises a path
// before the host sees it.

import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalAssetPath } from "../../src/host/runtime/assets.ts";
import { sha256Of } from "../host/wire.ts";
import { deployWorker, openLaneHost, type LaneHost } from "./lane-host.ts";

const FILES = [
  { path: "index.html", mediaType: "text/html", content: "<!doctype html><title>spa</title>\n" },
  { path: "assets/app.js", mediaType: "text/javascript", content: "console.log('app');\n" },
  { path: "img/logo.svg", mediaType: "image/svg+xml", content: "<svg xmlns='http://www.w3.org/2000/svg'/>\n" },
  { path: "missing.txt", mediaType: "text/plain", content: "found after the worker's 404\n" },
];

/** Answers every request itself: 404 under /missing, 200 elsewhere, naming the path it saw. */
const WORKER = `export default {
  async fetch(request) {
    const url = new URL(request.url);
    const status = url.pathname.startsWith("/missing") ? 404 : 200;
    return new Response("worker " + request.method + " " + url.pathname, { status, headers: { "x-from": "worker" } });
  },
};`;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function send(base: string, target: string, method = "GET", headers: Record<string, string> = {}): Promise<Answer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path: `${url.pathname.replace(/\/$/, "")}${target}`, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the canonical asset path", () => {
  it("decodes once, strictly, and refuses everything that could name a file two ways", () => {
    expect(canonicalAssetPath("/")).toBe("");
    expect(canonicalAssetPath("/a/b.js?x=1#f")).toBe("a/b.js");
    expect(canonicalAssetPath("/%61/b.js")).toBe("a/b.js");
    for (const bad of [
      "",
      "a.js",
      "//a.js",
      "/a//b.js",
      "/a/",
      "/./a.js",
      "/a/../b.js",
      "/a%2Fb.js",
      "/a%2fb.js",
      "/a%5Cb.js",
      "/a\\b.js",
      "/%ZZ",
      "/%4",
      "/%C3%28",
      "/a%00b",
      "/a%7Fb",
      "/%EF%BF%BE",
      "/a b.js",
      "/%2E%2E/a.js",
      "/" + "a".repeat(241),
    ]) {
      expect(canonicalAssetPath(bad), bad).toBeNull();
    }
    expect(canonicalAssetPath("/" + "a".repeat(240))).toBe("a".repeat(240));
  });
});

describe("static assets beside a v1beta1 worker", () => {
  let lh: LaneHost;
  const urls: Record<string, string> = {};

  beforeAll(async () => {
    lh = await openLaneHost("v1beta1");
    const { edge } = lh;
    await edge.create("StaticAssetBundle", "site", { manifestDigest: await edge.wire.files("StaticAssetBundle", FILES) });
    const assets = (runWorkerFirst: boolean, notFoundHandling: string) => ({
      assets: { bundle: edge.to("StaticAssetBundle", "site"), runWorkerFirst, notFoundHandling },
    });
    urls.spa = await deployWorker(edge, "assets-spa", WORKER, assets(false, "single_page_application"));
    urls.none = await deployWorker(edge, "assets-none", WORKER, assets(false, "none"));
    urls.first = await deployWorker(edge, "assets-first", WORKER, assets(true, "none"));
    urls.firstSpa = await deployWorker(edge, "assets-first-spa", WORKER, assets(true, "single_page_application"));
    urls.plain = await deployWorker(edge, "no-assets", WORKER);
  }, 120_000);
  afterAll(async () => lh?.close());

  it("serves the manifest's exact bytes with its media type, length and a strong ETag; HEAD has no body; If-None-Match is 304", async () => {
    const app = FILES[1]!;
    const res = await send(urls.spa!, "/assets/app.js");
    expect(res.status).toBe(200);
    expect(res.text).toBe(app.content);
    expect(res.headers["content-type"]).toBe("text/javascript");
    expect(res.headers["content-length"]).toBe(String(Buffer.byteLength(app.content)));
    const etag = `"${sha256Of(app.content).slice("sha256:".length)}"`;
    expect(res.headers.etag).toBe(etag);
    expect(res.headers["x-from"]).toBeUndefined();
    const head = await send(urls.spa!, "/assets/app.js", "HEAD");
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
    expect(head.headers["content-length"]).toBe(String(Buffer.byteLength(app.content)));
    expect((await send(urls.spa!, "/assets/app.js", "GET", { "If-None-Match": etag })).status).toBe(304);
    expect((await send(urls.spa!, "/img/logo.svg?cache=bust")).headers["content-type"]).toBe("image/svg+xml");
    expect((await send(urls.spa!, "/%61ssets/app.js")).text).toBe(app.content);
  });

  it("runWorkerFirst false: a hit never reaches the worker; a miss does, or with SPA serves index.html (the root included)", async () => {
    const index = FILES[0]!.content;
    for (const path of ["/", "/deep/client/route", "/missing"]) {
      const res = await send(urls.spa!, path);
      expect([res.status, res.text], path).toEqual([200, index]);
      expect(res.headers["content-type"]).toBe("text/html");
    }
    // Without the fallback a miss is the worker's — the root too: "/" names no file.
    expect((await send(urls.none!, "/")).text).toBe("worker GET /");
    expect((await send(urls.none!, "/deep/route")).text).toBe("worker GET /deep/route");
    expect((await send(urls.none!, "/missing")).status).toBe(404);
    expect((await send(urls.none!, "/assets/app.js")).text).toBe(FILES[1]!.content);
    expect((await send(urls.none!, "/missing.txt")).text).toBe(FILES[3]!.content);
    // Only GET and HEAD meet the assets.
    expect((await send(urls.spa!, "/assets/app.js", "POST")).text).toBe("worker POST /assets/app.js");
  });

  it("runWorkerFirst true: the worker answers first; only its 404 meets the assets, and a double miss keeps the worker's 404", async () => {
    expect((await send(urls.first!, "/assets/app.js")).text).toBe("worker GET /assets/app.js");
    // The worker's 404 meets the assets, and an asset hit wins.
    const hit = await send(urls.first!, "/missing.txt");
    expect([hit.status, hit.text, hit.headers["x-from"]]).toEqual([200, FILES[3]!.content, undefined]);
    const miss = await send(urls.first!, "/missing-assets/app.js");
    expect([miss.status, miss.text, miss.headers["x-from"]]).toEqual([404, "worker GET /missing-assets/app.js", "worker"]);
    const spa = await send(urls.firstSpa!, "/missing/route");
    expect([spa.status, spa.text]).toEqual([200, FILES[0]!.content]);
    expect(spa.headers["x-from"]).toBeUndefined();
  });

  it("an invalid path never matches a file and never falls back to index.html: the worker answers it", async () => {
    for (const path of [
      "/assets//app.js",
      "/assets/app.js/",
      "/assets/./app.js",
      "/img/../assets/app.js",
      "/assets%2Fapp.js",
      "/%ZZ",
      "/%C3%28",
      "/index.html%00",
    ]) {
      const res = await send(urls.spa!, path);
      expect(res.headers["x-from"], path).toBe("worker");
      expect(res.text.startsWith("worker GET "), path).toBe(true);
    }
  });

  it("a version without assets is the worker alone", async () => {
    expect((await send(urls.plain!, "/assets/app.js")).text).toBe("worker GET /assets/app.js");
    expect((await send(urls.plain!, "/")).text).toBe("worker GET /");
  });
});
