// Malformed requests, per surface: each gets the spec's error code and a message that says what
// was wrong, and mutates nothing.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API, key, serve, type Served } from "./harness.ts";
import { BUNDLED } from "./family.ts";
import { SPACE, Wire, type FormRef } from "./wire.ts";
import { expectError, expectStatus } from "./expect.ts";

describe("bad input", () => {
  let served: Served;
  let wire: Wire;
  let kv: FormRef;
  let q: FormRef;
  beforeAll(async () => {
    served = await serve({ ...BUNDLED.options, conformanceProbes: true });
    wire = await Wire.connect(served.client, BUNDLED);
    kv = wire.ref("EdgeKVNamespace");
    q = wire.ref("AtLeastOnceQueue");
    await wire.created(q, "existing-q", wire.queueSpec(60));
  });
  afterAll(async () => served.close());

  /** Asserts the refusal and that the store did not change. */
  async function refused(
    res: Promise<import("./harness.ts").RawResponse>,
    code: "invalid_argument" | "form_unknown" | "unauthenticated",
    message?: RegExp,
  ): Promise<void> {
    const before = served.host.controls.resourceCount();
    expectError(await res, code, message);
    expect(served.host.controls.resourceCount()).toBe(before);
  }

  const put = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    served.client.request("PUT", path, { body, headers: { "Idempotency-Key": key(), "If-None-Match": "*", ...headers } });
  const validBody = async (name: string): Promise<Record<string, any>> => ({
    ...wire.body(kv, name, {}),
    review: { prepareDigest: await wire.digest(kv, name, {}) },
  });

  it("request bodies that are not strict I-JSON", async () => {
    const path = wire.path(kv, "json-kv");
    const good = JSON.stringify(await validBody("json-kv"));
    const cases: [string, string | Uint8Array, RegExp][] = [
      ["not JSON", "{nope", /not strict I-JSON/],
      ["duplicate member", good.replace('"spec":{}', '"spec":{},"spec":{}'), /duplicate/i],
      ["trailing data", `${good} {}`, /after the JSON document|trailing/i],
      ["invalid UTF-8", new Uint8Array([...Buffer.from(good.slice(0, -1)), 0xff, 0x7d]), /UTF-8/],
      ["lone surrogate", good.replace('"json-kv"', '"\\ud800"'), /surrogate/i],
      ["negative zero", good.replace('"spec":{}', '"spec":{"x":-0}'), /zero/i],
      ["byte order mark", `\ufeff${good}`, /not strict I-JSON/],
      ["too deep", `${"[".repeat(200)}${"]".repeat(200)}`, /deep|nest/i],
      ["not an object", "[]", /must be a JSON object/],
    ];
    for (const [label, body, message] of cases) {
      const res = await served.client.request("PUT", path, { body, headers: { "Idempotency-Key": key(), "If-None-Match": "*" } });
      if (res.json?.error?.code !== "invalid_argument" || !message.test(res.json.error.message)) throw new Error(`${label}: ${res.status} ${res.text}`);
    }
    await refused(served.client.request("PUT", path, { headers: { "Idempotency-Key": key(), "If-None-Match": "*" } }), "invalid_argument", /empty/);
    expectError(await wire.read(kv, "json-kv"), "resource_not_found");
  });

  it("closed envelopes and identity members", async () => {
    const path = wire.path(kv, "env-kv");
    const b = await validBody("env-kv");
    const cases: [string, unknown, RegExp][] = [
      ["unknown top member", { ...b, extra: 1 }, /unknown member \/extra/],
      ["unknown metadata member", { ...b, metadata: { ...(b.metadata as object), labels: {} } }, /unknown member \/metadata\/labels/],
      ["unknown form member", { ...b, form: { formRef: kv, packageDigest: `sha256:${"0".repeat(64)}`, x: 1 } }, /unknown member \/form\/x/],
      ["unknown formRef member", { ...b, form: { formRef: { ...kv, extra: "x" } } }, /\/form\/formRef\/extra/],
      ["missing spec", { ...b, spec: undefined }, /missing required member \/spec/],
      ["spec not an object", { ...b, spec: [] }, /\/spec must be a JSON object/],
      ["missing review", { ...b, review: undefined }, /\/review/],
      ["review member unknown", { ...b, review: { prepareDigest: (b.review as any).prepareDigest, specDigest: "x" } }, /\/review\/specDigest/],
      ["bad packageDigest", { ...b, form: { formRef: kv, packageDigest: "md5:abc" } }, /packageDigest/],
      ["apiVersion ≠ formRef", { ...b, apiVersion: "other.takoform-cdk.dev/v1alpha1" }, /must equal \/form\/formRef\/apiVersion|path group/],
      ["kind ≠ formRef", { ...b, kind: "ObjectBucket" }, /must equal \/form\/formRef\/kind|path kind/],
      ["bad name", { ...b, metadata: { name: "Env_KV", space: SPACE } }, /\/metadata\/name/],
      ["name ≠ path", { ...b, metadata: { name: "other-kv", space: SPACE } }, /path name/],
      [
        "retained group",
        { ...b, apiVersion: "forms.takoform.com/v1alpha2", form: { formRef: { ...kv, apiVersion: "forms.takoform.com/v1alpha2" } } },
        /apiVersion/,
      ],
      ["bad uid", { ...b, metadata: { name: "env-kv", space: SPACE, uid: "-bad" } }, /\/metadata\/uid/],
      ["non-canonical generation", { ...b, metadata: { name: "env-kv", space: SPACE, generation: "01" } }, /\/metadata\/generation/],
      ["bad expectedUid", { ...b, expectedUid: "" }, /\/expectedUid/],
      ["nativeId on apply", { ...b, nativeId: "n" }, /unknown member \/nativeId/],
    ];
    for (const [label, body, message] of cases) {
      const res = await put(path, body);
      if (res.json?.error?.code !== "invalid_argument" || !message.test(res.json.error.message)) throw new Error(`${label}: ${res.status} ${res.text}`);
    }
    expectError(await wire.read(kv, "env-kv"), "resource_not_found");
    // An unknown FormRef names nothing installed.
    await refused(put(path, { ...b, form: { formRef: { ...kv, definitionVersion: "7.0.0" } } }), "form_unknown");
  });

  it("precondition headers", async () => {
    const path = wire.path(kv, "hdr2-kv");
    const b = await validBody("hdr2-kv");
    const send = (headers: Record<string, string>) => served.client.request("PUT", path, { body: b, headers });
    await refused(send({ "Idempotency-Key": key(), "If-None-Match": "abc" }), "invalid_argument", /If-None-Match/);
    await refused(send({ "Idempotency-Key": key(), "If-None-Match": "*", "Takoform-Expected-Generation": "1" }), "invalid_argument", /cannot be combined/);
    await refused(send({ "Idempotency-Key": key(), "Takoform-Expected-Generation": "01" }), "invalid_argument", /canonical/);
    await refused(send({ "Idempotency-Key": key(), "Takoform-Expected-Generation": "0" }), "invalid_argument", /canonical/);
    await refused(send({ "Idempotency-Key": key(), "Takoform-Expected-Generation": "9223372036854775808" }), "invalid_argument", /canonical/);
    await refused(send({ "Idempotency-Key": key(), "If-None-Match": "*", "If-Match": '"1"' }), "invalid_argument", /If-Match/);
    await refused(send({ "Idempotency-Key": "key with spaces", "If-None-Match": "*" }), "invalid_argument", /Idempotency-Key/);
    await refused(send({ "Idempotency-Key": "", "If-None-Match": "*" }), "invalid_argument", /Idempotency-Key/);
    // Header and body generation fences must agree.
    const digest = await wire.digest(q, "existing-q", wire.queueSpec(60), { generation: "1" });
    const upd = { ...wire.body(q, "existing-q", wire.queueSpec(60)), review: { prepareDigest: digest }, expectedGeneration: "2" };
    await refused(
      served.client.request("PUT", wire.path(q, "existing-q"), { body: upd, headers: { "Idempotency-Key": key(), "Takoform-Expected-Generation": "1" } }),
      "invalid_argument",
      /disagree/,
    );
    // The body fence alone is a fence.
    expectStatus(
      await served.client.request("PUT", wire.path(q, "existing-q"), { body: { ...upd, expectedGeneration: "1" }, headers: { "Idempotency-Key": key() } }),
      200,
    );
    // Malformed If-Match on delete.
    await refused(wire.remove(q, "existing-q", "1", { headers: { "If-Match": 'W/"1"' } }), "invalid_argument", /If-Match/);
  });

  it("exact-form queries", async () => {
    const base = `${wire.path(q, "existing-q")}`;
    const full = wire.query(q);
    await refused(
      served.client.request("GET", `${base}?${full}&packageDigest=sha256:${"0".repeat(64)}`),
      "invalid_argument",
      /unknown query parameter "packageDigest"/,
    );
    await refused(served.client.request("GET", `${base}?${full}&space=${SPACE}`), "invalid_argument", /given 2 times/);
    await refused(served.client.request("GET", `${base}?${full.replace(`space=${SPACE}&`, "")}`), "invalid_argument", /space is required/);
    await refused(served.client.request("GET", `${base}?${full}&&x`), "invalid_argument", /empty parameter/);
    await refused(served.client.request("GET", `${base}?${full.replace("space=conformance", "space=%ZZ")}`), "invalid_argument", /percent-encoding/);
    const wrongKind = new URLSearchParams({
      space: SPACE,
      group: q.apiVersion,
      kind: "EdgeKVNamespace",
      definitionVersion: q.definitionVersion,
      schemaDigest: q.schemaDigest,
    });
    await refused(served.client.request("GET", `${base}?${wrongKind}`), "invalid_argument", /does not match the path kind/);
    // Routes without a query refuse one.
    await refused(
      served.client.request("POST", `${API}/resources/validate?space=x`, { body: wire.body(q, "x", wire.queueSpec()) }),
      "invalid_argument",
      /takes no query/,
    );
    await refused(put(`${wire.path(kv, "q-kv")}?${wire.query(kv)}`, await validBody("q-kv")), "invalid_argument", /takes no query/);
    // "+" decodes to a space, as form encoding writes it.
    await wire.created(kv, "plus-kv", {}, { space: "a b" });
    expectStatus(await served.client.request("GET", `${wire.path(kv, "plus-kv")}?${wire.query(kv, "a b").replace("a+b", "a+b")}`), 200);
  });

  it("bodies on body-less routes, and body rules of each surface", async () => {
    await refused(
      served.client.request("DELETE", `${wire.path(q, "existing-q")}?${wire.query(q)}`, {
        body: {},
        headers: { "Idempotency-Key": key(), "Takoform-Expected-Generation": "2" },
      }),
      "invalid_argument",
      /no request body/,
    );
    await refused(
      served.client.request("POST", `${wire.path(q, "existing-q")}/observe?${wire.query(q)}`, {
        body: "{}",
        headers: { "Idempotency-Key": key(), "Takoform-Expected-Generation": "2" },
      }),
      "invalid_argument",
      /no request body/,
    );
    await refused(wire.observe(q, "existing-q", "2", { key: "" }), "invalid_argument", /Idempotency-Key/);
    // prepare and validate take the closed resource request only.
    const prep = { ...wire.body(q, "p-q", wire.queueSpec()), review: { prepareDigest: `sha256:${"0".repeat(64)}` } };
    await refused(served.client.request("POST", `${API}/resources/prepare`, { body: prep }), "invalid_argument", /unknown member \/review/);
    await refused(
      served.client.request("POST", `${API}/resources/validate`, { body: { ...wire.body(q, "v-q", wire.queueSpec()), nativeId: "n" } }),
      "invalid_argument",
      /unknown member/,
    );
    // Spec faults on validate are an answer, not an error.
    const invalid = await served.client.request("POST", `${API}/resources/validate`, {
      body: wire.body(q, "v-q", { messageRetentionSeconds: 1, bogus: true }),
    });
    expectStatus(invalid, 200);
    expect(invalid.json.valid).toBe(false);
    expect(invalid.json.diagnostics.map((d: any) => d.field).sort()).toEqual(["/spec/bogus", "/spec/messageRetentionSeconds"]);
    // import: nativeId grammar and members.
    await refused(wire.import(kv, "imp-kv", {}, ""), "invalid_argument", /nativeId/);
    await refused(wire.import(kv, "imp-kv", {}, "x".repeat(4097)), "invalid_argument", /nativeId/);
    const importWithReview = served.client.request("POST", `${wire.path(kv, "imp-kv")}/import`, {
      body: { ...wire.body(kv, "imp-kv", {}), nativeId: "n", review: { prepareDigest: `sha256:${"0".repeat(64)}` } },
      headers: { "Idempotency-Key": key(), "If-None-Match": "*" },
    });
    await refused(importWithReview, "invalid_argument", /unknown member \/review/);
    await refused(
      served.client.request("POST", `${wire.path(kv, "imp-kv")}/import`, {
        body: { ...wire.body(kv, "imp-kv", {}), nativeId: "n" },
        headers: { "Idempotency-Key": key() },
      }),
      "invalid_argument",
      /precondition/,
    );
    // operations and artifacts.
    await refused(served.client.request("POST", `${API}/operations/op_abc/cancel`), "invalid_argument", /Idempotency-Key/);
    await refused(
      served.client.request("POST", `${API}/artifacts/uploads`, { body: { manifest: {}, extra: 1 }, headers: { "Idempotency-Key": key() } }),
      "invalid_argument",
      /unknown member \/extra/,
    );
    await refused(
      served.client.request("POST", `${API}/artifacts/uploads/up_x/commit`, { body: "{}", headers: { "Idempotency-Key": key() } }),
      "invalid_argument",
      /no request body/,
    );
    await refused(served.client.request("GET", `${API}/artifacts/not-a-digest`), "invalid_argument", /manifest digest/);
  });

  it("unknown routes and methods are invalid_argument, never resource_not_found", async () => {
    const cases: [string, string, RegExp][] = [
      ["GET", `${API}/nothing`, /unknown route/],
      ["GET", "/", /unknown route/],
      ["GET", `${API}/forms/`, /unknown route/],
      ["POST", `${wire.path(q, "existing-q")}/refresh?${wire.query(q)}`, /unknown route/],
      ["PATCH", wire.path(q, "existing-q"), /method PATCH is not allowed/],
      ["POST", `${API}/forms`, /method POST is not allowed/],
      ["GET", `${API}/resources/${q.apiVersion.replace("/", "%2F")}/${q.kind}/existing-q?${wire.query(q)}`, /encode a slash/],
      ["GET", `${API}/resources/%E0%A4%A/x/y/z`, /percent-encoding/],
      ["GET", "/.well-known/takoform/v1alpha2", /unknown route/],
    ];
    for (const [method, path, message] of cases) {
      const res = await served.client.request(method, path);
      if (res.json?.error?.code !== "invalid_argument" || !message.test(res.json.error.message))
        throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    }
    // Authentication comes first, on every route.
    expectError(await served.client.request("GET", `${API}/nothing`, { token: null }), "unauthenticated");
    expectError(await served.client.request("GET", "/.well-known/takoform/v1alpha3", { token: null }), "unauthenticated");
  });

  it("oversized bodies are refused without reading them", async () => {
    const big = Buffer.alloc(8 * 1024 * 1024 + 1, 0x20);
    const res = await served.client.request("POST", `${API}/resources/validate`, { body: big });
    expectError(res, "invalid_argument", /exceeds/);
  });
});
