// Fuzzing the JSON decoder and the path router. Every answer, whatever the input, is either a
// success or the closed error envelope with a 4xx taxonomy code — never a crash, never a 500.
// Inputs come from a seeded generator so a failure reproduces.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../src/core/protocol.ts";
import { LocalHost, type HostResponse } from "../../src/host/index.ts";
import { HostError } from "../../src/host/errors.ts";
import { route } from "../../src/host/router.ts";
import { API, GRANTS, serve, type Served } from "./harness.ts";
import { BUNDLED } from "./family.ts";
import { Wire } from "./wire.ts";

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function checkAnswer(res: HostResponse, label: string, head = false): void {
  const text = Buffer.from(res.body).toString("utf8");
  if (res.status >= 500) throw new Error(`${label}: ${res.status} ${text}`);
  if (head) {
    if (res.body.byteLength !== 0) throw new Error(`${label}: a HEAD answer carried a body`);
    return;
  }
  if (res.status >= 400) {
    const doc = JSON.parse(text);
    const spec = ERROR_CODES[doc.error.code as keyof typeof ERROR_CODES];
    if (spec === undefined || spec.status !== res.status || doc.error.retryable !== spec.retryable) throw new Error(`${label}: bad envelope ${text}`);
  }
}

describe("fuzz", () => {
  let host: LocalHost;
  let served: Served;
  let wire: Wire;
  beforeAll(async () => {
    host = await LocalHost.open({ ...BUNDLED.options, tokens: GRANTS });
    served = await serve({ ...BUNDLED.options });
    wire = await Wire.connect(served.client, BUNDLED);
  });
  afterAll(async () => {
    await host.close();
    await served.close();
  });

  it("the JSON decoder: mutated request bodies through the in-process transport", async () => {
    const transport = host.transport();
    const ref = wire.ref("AtLeastOnceQueue");
    const seed = Buffer.from(JSON.stringify({ ...wire.body(ref, "fuzz-q", { messageRetentionSeconds: 60, extra: ["a", { b: [1, 2.5e3, true, null] }] }) }));
    const alphabet = Buffer.from('{}[]",:\\-+.eE0123456789tfnul \t\r\nxyzé\u0000');
    const next = rng(20261129);
    let ok = 0;
    for (let i = 0; i < 3000; i++) {
      const bytes = Buffer.from(seed);
      const edits = 1 + Math.floor(next() * 4);
      let body: Buffer = bytes;
      for (let e = 0; e < edits; e++) {
        const at = Math.floor(next() * body.length);
        const op = next();
        if (op < 0.3) body[at] = alphabet[Math.floor(next() * alphabet.length)]!;
        else if (op < 0.5) body[at] = Math.floor(next() * 256);
        else if (op < 0.7) body = Buffer.concat([body.subarray(0, at), body.subarray(at + 1)]);
        else if (op < 0.85) body = Buffer.concat([body.subarray(0, at), Buffer.from([alphabet[Math.floor(next() * alphabet.length)]!]), body.subarray(at)]);
        else body = body.subarray(0, at);
      }
      const res = await transport({
        method: "POST",
        url: `${API}/resources/validate`,
        headers: { authorization: `Bearer ${GRANTS[0]!.token}`, "content-type": "application/json" },
        body,
      });
      checkAnswer(res, `body ${JSON.stringify(body.toString("latin1"))}`);
      if (res.status === 200) ok++;
    }
    expect(ok).toBeGreaterThan(0);
  });

  it("the path router: random targets never escape the error taxonomy", async () => {
    const next = rng(7);
    const pieces = [
      "apis",
      "forms.takoform.com",
      "v1alpha3",
      "v1beta1",
      "resources",
      "forms",
      "form-definitions",
      "support",
      "operations",
      "artifacts",
      "uploads",
      "blobs",
      "commit",
      "cancel",
      "import",
      "observe",
      "refresh",
      "validate",
      "prepare",
      ".well-known",
      "takoform",
      "edge.takoform-cdk.dev",
      "v1alpha1",
      "ModuleWorker",
      "a",
      "",
      "%2F",
      "%",
      "%E2%82%AC",
      "%C3%28",
      "..",
      ".",
      "op_x",
      "up_x",
      "sha256:00",
      "%00",
      "~",
      "@",
      "a%20b",
    ];
    const methods = ["GET", "PUT", "POST", "DELETE", "HEAD", "PATCH", "OPTIONS"];
    const transport = host.transport();
    for (let i = 0; i < 4000; i++) {
      const n = Math.floor(next() * 9);
      const segs = Array.from({ length: n }, () => pieces[Math.floor(next() * pieces.length)]!);
      let target = `/${segs.join("/")}`;
      if (next() < 0.3) target += `?${["space=x", "a=%", "group=a&group=b", "", "&&", "space=%ZZ"][Math.floor(next() * 6)]}`;
      const method = methods[Math.floor(next() * methods.length)]!;
      try {
        const m = route(method, target, new Set(["v1alpha3", "v1beta1"]));
        expect(typeof m.route).toBe("string");
      } catch (error) {
        if (!(error instanceof HostError) || error.code !== "invalid_argument") throw new Error(`${method} ${target}: ${String(error)}`);
      }
      const res = await transport({ method, url: target, headers: { authorization: `Bearer ${GRANTS[0]!.token}` }, body: new Uint8Array(0) });
      checkAnswer(res, `${method} ${target}`, method === "HEAD");
    }
  });

  it("a sample of the same over real HTTP", async () => {
    const next = rng(99);
    const bodies = ['{"a":1,"a":2}', "[", '{"apiVersion":"x"}', "\u00ff", "{}", "null", '"\\ud800"', "1e999"];
    for (let i = 0; i < 200; i++) {
      const body = bodies[Math.floor(next() * bodies.length)]!;
      const res = await served.client.request("POST", `${API}/resources/prepare`, { body });
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe("invalid_argument");
    }
  });
});
