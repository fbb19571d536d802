// Pure parts: manifest digest, endpoint and discovery validation, operation and error-envelope
// validation, Retry-After parsing and the backoff windows.

import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { parseEndpoint, validateDiscovery, isLoopbackHost } from "../../src/client/discovery.ts";
import { ClientInputError, DiscoveryError, HostApiError, ProtocolInvalidError, isResourceNotFound } from "../../src/client/errors.ts";
import { buildWorkerBundleManifest } from "../../src/client/manifest.ts";
import { decodeErrorResponse, operationError, verifyOperation } from "../../src/client/operation-shape.ts";
import { exactQuery, pathEscape, queryEscape, resourcePath } from "../../src/client/paths.ts";
import { backoff, DEFAULT_RETRY_POLICY, retryPolicy } from "../../src/client/retry.ts";
import { jitter, parseRetryAfter, pollBackoffWindow, pollDelay } from "../../src/client/timing.ts";
import { WireReader } from "../../src/client/wire-reader.ts";
import { API_ROOT, HOST_API_VERSION, LANE } from "./fixtures/lane.ts";
import { LANES } from "../../src/core/lanes.ts";
import type { JsonValue } from "../../src/forms/digest.ts";
import { discoveryDocument, envelope } from "./fixtures/hostile-host.ts";
import { operationDoc, REF } from "./fixtures/documents.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);
const same = (text: string) => text;
const sha = (b: Uint8Array | string) => `sha256:${createHash("sha256").update(b).digest("hex")}`;

describe("buildWorkerBundleManifest", () => {
  it("builds the manifest in authored order and its RFC 8785 digest", () => {
    const main = utf8("export default { fetch() { return new Response('hi') } }");
    const map = utf8('{"version":3}');
    const built = buildWorkerBundleManifest({
      mainModule: "index.js",
      modules: [
        { name: "index.js", mediaType: "application/javascript+module", bytes: main },
        { name: "index.js.map", mediaType: "application/source-map+json", bytes: map },
      ],
    });
    expect(built.manifest).toEqual({
      apiVersion: "artifacts.takoform.com/v1alpha1",
      kind: "WorkerBundle",
      mainModule: "index.js",
      modules: [
        { name: "index.js", mediaType: "application/javascript+module", size: main.byteLength, digest: sha(main) },
        { name: "index.js.map", mediaType: "application/source-map+json", size: map.byteLength, digest: sha(map) },
      ],
    });
    // JCS orders keys (apiVersion, kind, mainModule, modules; digest, mediaType, name, size).
    const jcs =
      `{"apiVersion":"artifacts.takoform.com/v1alpha1","kind":"WorkerBundle","mainModule":"index.js","modules":[` +
      `{"digest":"${sha(main)}","mediaType":"application/javascript+module","name":"index.js","size":${main.byteLength}},` +
      `{"digest":"${sha(map)}","mediaType":"application/source-map+json","name":"index.js.map","size":${map.byteLength}}]}`;
    expect(built.manifestDigest).toBe(sha(jcs));
    expect(built.blobs.get(sha(main))).toBe(main);
  });

  it("refuses empty, duplicate, unknown-main, unloadable-main and bad media types", () => {
    const bytes = utf8("x");
    const js = "application/javascript+module";
    expect(() => buildWorkerBundleManifest({ mainModule: "a.js", modules: [] })).toThrow(/at least one module/);
    expect(() =>
      buildWorkerBundleManifest({
        mainModule: "a.js",
        modules: [
          { name: "a.js", mediaType: js, bytes },
          { name: "a.js", mediaType: js, bytes },
        ],
      }),
    ).toThrow(/declared twice/);
    expect(() => buildWorkerBundleManifest({ mainModule: "b.js", modules: [{ name: "a.js", mediaType: js, bytes }] })).toThrow(/names no declared module/);
    expect(() => buildWorkerBundleManifest({ mainModule: "a.map", modules: [{ name: "a.map", mediaType: "application/source-map+json", bytes }] })).toThrow(
      /not loadable/,
    );
    expect(() => buildWorkerBundleManifest({ mainModule: "a.js", modules: [{ name: "a.js", mediaType: "application/json", bytes }] })).toThrow(
      ClientInputError,
    );
    expect(() => buildWorkerBundleManifest({ mainModule: "../a.js", modules: [{ name: "../a.js", mediaType: js, bytes }] })).toThrow(/relative module path/);
  });
});

describe("endpoint validation (§7.1)", () => {
  it("accepts https origins and loopback http", () => {
    expect(parseEndpoint("https://host.example").origin).toBe("https://host.example");
    expect(parseEndpoint("https://HOST.example:443/").port).toBe(443);
    expect(parseEndpoint("http://127.0.0.1:8080").port).toBe(8080);
    expect(parseEndpoint("http://localhost:1").hostname).toBe("localhost");
    expect(parseEndpoint("http://[::1]:9000").hostname).toBe("[::1]");
    expect(parseEndpoint("http://127.45.6.7").port).toBe(80);
  });

  it.each([
    ["ftp://host.example", /must use http or https/],
    ["host.example", /not an absolute URL/],
    ["https://user:pw@host.example", /userinfo/],
    ["https://host.example/?a=1", /query/],
    ["https://host.example/?", /query/],
    ["https://host.example/#x", /fragment/],
    ["https://host.example/api", /path must be empty or "\/"/],
    ["http://host.example", /plain http for a non-loopback host/],
    ["http://10.0.0.1", /plain http for a non-loopback host/],
    ["http://[::ffff:127.0.0.1]", /plain http for a non-loopback host/],
    ["https://", /no valid host/],
  ])("refuses %s and says why", (endpoint, why) => {
    expect(() => parseEndpoint(endpoint)).toThrow(DiscoveryError);
    expect(() => parseEndpoint(endpoint)).toThrow(why);
  });

  it("recognises loopback hosts exactly", () => {
    expect(isLoopbackHost("localhost")).toBe(true);
    expect(isLoopbackHost("127.255.255.255")).toBe(true);
    expect(isLoopbackHost("128.0.0.1")).toBe(false);
    expect(isLoopbackHost("localhost.example")).toBe(false);
  });
});

describe("discovery validation (§7.1)", () => {
  const origin = parseEndpoint("https://host.example");
  const doc = (overrides: Record<string, unknown> = {}) => discoveryDocument("https://host.example", overrides) as JsonValue;
  const endpoints = (extra: Record<string, string>) => ({ endpoints: { api: `https://host.example${API_ROOT}`, ...extra } });

  it("TestDiscoverNegotiatesV1beta1: accepts the lane and records the endpoints", () => {
    const lane = validateDiscovery(doc(), origin, LANE);
    expect(lane.name).toBe(LANE.name);
    expect(lane.hostApiVersion).toBe(HOST_API_VERSION);
    expect(lane.apiPath).toBe(API_ROOT);
    expect(lane.artifacts).toBe(`https://host.example${API_ROOT}/artifacts`);
    expect(validateDiscovery(doc(endpoints({ oidc_issuer: "https://issuer.example/realm" })), origin, LANE).oidcIssuer).toBe("https://issuer.example/realm");
    // The default port written out is the same origin.
    expect(validateDiscovery(doc(endpoints({ support: `https://HOST.example:443${API_ROOT}/support` })), origin, LANE).support).toBeDefined();
  });

  it("TestDiscoverRejectsWrongAPIVersions", () => {
    for (const lane of LANES) {
      const other = LANES.find((l) => l !== lane)!;
      for (const versions of [["forms.takoform.com/v1alpha2"], [other.hostApiVersion], [lane.hostApiVersion, other.hostApiVersion], []]) {
        expect(() => validateDiscovery(doc({ api_versions: versions }), origin, lane)).toThrow(
          `takoform: versioned discovery must advertise only API version ${lane.hostApiVersion}`,
        );
      }
      // Each lane's document is judged against its own paths: the other lane's API root is refused.
      expect(() =>
        validateDiscovery(doc({ api_versions: [lane.hostApiVersion], endpoints: { api: `https://host.example${other.apiRoot}` } }), origin, lane),
      ).toThrow(/must have the path/);
    }
  });

  it("TestDiscoverRejectsMissingRequiredFeature: each of the seven, and a false value", () => {
    for (const feature of [
      "service_forms",
      "exact_form_ref",
      "optimistic_concurrency",
      "idempotent_lifecycle",
      "operations",
      "artifact_upload",
      "support_profiles",
    ]) {
      const features = Object.fromEntries(
        ["service_forms", "exact_form_ref", "optimistic_concurrency", "idempotent_lifecycle", "operations", "artifact_upload", "support_profiles"].map((f) => [
          f,
          true,
        ]),
      );
      delete features[feature];
      expect(() => validateDiscovery(doc({ features }), origin, LANE)).toThrow(`does not advertise features.${feature}`);
      expect(() => validateDiscovery(doc({ features: { ...features, [feature]: false } }), origin, LANE)).toThrow(`features.${feature}`);
    }
    // Extra boolean features are fine; a non-boolean is not.
    const all = validateDiscovery(doc(), origin, LANE).features;
    expect(() => validateDiscovery(doc({ features: { ...all, future_thing: false } }), origin, LANE)).not.toThrow();
    expect(() => validateDiscovery(doc({ features: { ...all, future_thing: "yes" } }), origin, LANE)).toThrow(/must be a boolean/);
  });

  it("TestDiscoverRejectsPercentEncodedEndpointPaths", () => {
    expect(() => validateDiscovery(doc({ endpoints: { api: `https://host.example${API_ROOT.replace(/\/(?=[^/]*$)/, "%2F")}` } }), origin, LANE)).toThrow(
      "endpoint path must not percent-encode any character; Host API paths are ordinary segments",
    );
    expect(() => validateDiscovery(doc(endpoints({ artifacts: `https://host.example${API_ROOT}/artifact%73` })), origin, LANE)).toThrow(
      /must not percent-encode/,
    );
  });

  it("TestDiscoverRejectsCrossOriginAPIEndpoint: scheme, host and effective port all count", () => {
    for (const api of [`https://evil.example${API_ROOT}`, `http://host.example${API_ROOT}`, `https://host.example:8443${API_ROOT}`]) {
      expect(() => validateDiscovery(doc({ endpoints: { api } }), origin, LANE)).toThrow(
        "cross-origin discovery endpoints are rejected to protect bearer credentials",
      );
    }
  });

  it("TestDiscoverRejectsCrossOriginOptionalEndpoint", () => {
    for (const key of ["artifacts", "operations", "support"]) {
      expect(() => validateDiscovery(doc(endpoints({ [key]: `https://other.example${API_ROOT}/${key}` })), origin, LANE)).toThrow(
        /cross-origin discovery endpoints are rejected/,
      );
    }
  });

  it("refuses wrong paths, userinfo, queries, a missing api, unknown members and a non-https issuer", () => {
    expect(() => validateDiscovery(doc({ endpoints: { api: `https://host.example${API_ROOT}/` } }), origin, LANE)).toThrow(/must have the path/);
    expect(() => validateDiscovery(doc(endpoints({ support: `https://host.example${API_ROOT}/supports` })), origin, LANE)).toThrow(/must have the path/);
    expect(() => validateDiscovery(doc({ endpoints: { api: `https://u@host.example${API_ROOT}` } }), origin, LANE)).toThrow(/userinfo/);
    expect(() => validateDiscovery(doc({ endpoints: { api: `https://host.example${API_ROOT}?x` } }), origin, LANE)).toThrow(/query/);
    expect(() => validateDiscovery(doc({ endpoints: {} }), origin, LANE)).toThrow(/omits endpoints.api/);
    expect(() => validateDiscovery(doc(endpoints({ graphql: "https://host.example/graphql" })), origin, LANE)).toThrow(/unknown member "graphql"/);
    expect(() => validateDiscovery(doc(endpoints({ oidc_issuer: "http://issuer.example" })), origin, LANE)).toThrow(/must use https/);
    expect(() => validateDiscovery(doc(endpoints({ oidc_issuer: "https://issuer.example/#f" })), origin, LANE)).toThrow(/fragment/);
    expect(() => validateDiscovery(doc({ extra: 1 }), origin, LANE)).toThrow(/unknown member "extra"/);
    expect(() => validateDiscovery([] as JsonValue, origin, LANE)).toThrow(/not a JSON object/);
  });
});

describe("paths and exact queries (§7.4)", () => {
  it("splits the group into two ordinary segments and never encodes the slash", () => {
    expect(resourcePath(API_ROOT, REF, "queue")).toBe(`${API_ROOT}/resources/edge.takoform-cdk.dev/v1alpha1/AtLeastOnceQueue/queue`);
    // The v1beta1 lane and the v1beta1 family: the word twice, each where it belongs (reference v1beta1 §3.1).
    const beta = { ...REF, apiVersion: "edge.forms.takoform.com/v1beta1", kind: "WorkerVersion" };
    expect(resourcePath("/apis/forms.takoform.com/v1beta1", beta, "app")).toBe(
      "/apis/forms.takoform.com/v1beta1/resources/edge.forms.takoform.com/v1beta1/WorkerVersion/app",
    );
  });

  it("uses the key group (never apiVersion), sorted keys, no packageDigest, Go query escaping", () => {
    expect(exactQuery("my space/é", REF)).toBe(
      `?definitionVersion=0.1.0&group=edge.takoform-cdk.dev%2Fv1alpha1&kind=AtLeastOnceQueue&schemaDigest=sha256%3A${"a".repeat(64)}&space=my+space%2F%C3%A9`,
    );
  });

  it("escapes path segments like Go's url.PathEscape", () => {
    expect(pathEscape("sha256:ab")).toBe("sha256:ab");
    expect(pathEscape("a/b;c,d?e f")).toBe("a%2Fb%3Bc%2Cd%3Fe%20f");
    expect(queryEscape("a+b!*'()")).toBe("a%2Bb%21%2A%27%28%29");
  });
});

describe("operation validation (§7.5)", () => {
  const r = new WireReader("test", 200);
  const op = (fields: Record<string, JsonValue>) => operationDoc("op_1", fields) as JsonValue;

  it("accepts pending and terminal operations", () => {
    expect(verifyOperation(r, op({ metadata: { phase: "Applying", progress: 50 }, target: { uid: "uid-1" } }), "").done).toBe(false);
    expect(verifyOperation(r, op({ done: true, result: { resource: {} } }), "").done).toBe(true);
    expect(verifyOperation(r, op({ done: true, error: { code: "policy_denied", message: "no", retryable: false } }), "").error?.code).toBe("policy_denied");
  });

  it("TestAwaitOperationRejectsResultAndError, and the other state rules", () => {
    const bad: [Record<string, JsonValue>, RegExp][] = [
      [{ done: true, result: {}, error: { code: "internal_error", message: "x", retryable: false } }, /exactly one of result or error/],
      [{ done: true }, /exactly one of result or error/],
      [{ done: false, result: {} }, /not done but carries/],
      [{ done: false, error: { code: "internal_error", message: "x", retryable: false } }, /not done but carries/],
      [{ id: "op-1" }, /not an operation id/],
      [{ apiVersion: "operations.takoform.com/v1alpha2" }, /is not an operations.takoform.com\/v1alpha1 Operation/],
      [{ kind: "Job" }, /Operation/],
      [{ target: { uid: "uid 1" } }, /not a uid/],
      [{ target: { other: 1 } }, /unknown member "other"/],
      [{ metadata: { progress: 101 } }, /progress/],
      [{ extra: true }, /unknown member "extra"/],
      [{ done: true, error: { code: "x", message: "m", retryable: false } }, /not an error code/],
      [{ done: true, error: { code: "internal_error", message: "", retryable: false } }, /blank/],
    ];
    for (const [fields, why] of bad) {
      expect(() => verifyOperation(r, op(fields), ""), JSON.stringify(fields)).toThrow(ProtocolInvalidError);
      expect(() => verifyOperation(r, op(fields), "")).toThrow(why);
    }
  });

  it("TestAwaitOperationTerminalError: maps the code to the taxonomy status; retryable only for auto-retryable codes", () => {
    const denied = operationError(
      verifyOperation(r, op({ done: true, error: { code: "policy_denied", message: "no", retryable: true } }), ""),
      "apply",
      "operation",
      same,
    );
    expect(denied).toBeInstanceOf(HostApiError);
    expect([denied.status, denied.code, denied.retryable, denied.operationId]).toEqual([403, "policy_denied", false, "op_1"]);
    const busy = operationError(
      verifyOperation(r, op({ done: true, error: { code: "backend_unavailable", message: "x", retryable: true } }), ""),
      "apply",
      "operation",
      same,
    );
    expect([busy.status, busy.retryable]).toEqual([503, true]);
    const unknown = operationError(
      verifyOperation(r, op({ done: true, error: { code: "weird_code", message: "x", retryable: false } }), ""),
      "apply",
      "operation",
      same,
    );
    expect(unknown.status).toBe(0);
    // Only a delete's terminal resource_not_found means absence.
    const gone = verifyOperation(r, op({ done: true, error: { code: "resource_not_found", message: "gone", retryable: false } }), "");
    expect(isResourceNotFound(operationError(gone, "delete", "delete-operation", same))).toBe(true);
    expect(isResourceNotFound(operationError(gone, "apply", "operation", same))).toBe(false);
  });
});

describe("error envelope stability (§7.6)", () => {
  const decode = (status: number, body: unknown, retryAfter?: number) =>
    decodeErrorResponse("call", status, utf8(typeof body === "string" ? body : JSON.stringify(body)), retryAfter, (s) => s);

  it("a complete envelope with the mapped status is a HostApiError", () => {
    const err = decode(404, envelope("resource_not_found", "gone", { hostCode: "NOPE", details: { a: 1 } }), 2000);
    expect(err).toBeInstanceOf(HostApiError);
    const e = err as HostApiError;
    expect([e.code, e.status, e.requestId, e.hostCode, e.retryAfterMs, e.retryable]).toEqual(["resource_not_found", 404, "req-1", "NOPE", 2000, false]);
    expect(e.details).toEqual({ a: 1 });
    expect(isResourceNotFound(e)).toBe(true);
  });

  it.each([
    ["an unknown code", 400, envelope("invalid_spec")],
    ["a code with the wrong status", 400, envelope("resource_not_found")],
    ["retryable:true on a non-retryable code", 409, envelope("dependency_in_use", "x", { retryable: true })],
    ["a blank message", 400, envelope("invalid_argument", " ")],
    ["a missing requestId", 400, { error: { code: "invalid_argument", message: "x", retryable: false } }],
    ["a missing retryable", 400, { error: { code: "invalid_argument", message: "x", requestId: "r" } }],
    ["an unknown member", 400, envelope("invalid_argument", "x", { extra: 1 })],
    ["an unknown top-level member", 400, { ...envelope("invalid_argument"), more: 1 }],
    ["a duplicate member", 400, '{"error":{"code":"invalid_argument","code":"invalid_argument","message":"x","requestId":"r","retryable":false}}'],
    ["a plain-text body", 404, "404 page not found"],
    ["an empty hostCode", 400, envelope("invalid_argument", "x", { hostCode: "" })],
  ])("%s is protocol-invalid", (_what, status, body) => {
    const err = decode(status, body);
    expect(err).toBeInstanceOf(ProtocolInvalidError);
    expect(isResourceNotFound(err)).toBe(false);
  });

  it("a protocol-invalid message is the trimmed body, else the status text; Retry-After is kept", () => {
    const a = decode(502, "  upstream exploded \n", 1000);
    expect(a.message).toBe("takoform: call: protocol-invalid host response (HTTP 502): upstream exploded");
    expect(a.retryAfterMs).toBe(1000);
    expect(decode(503, "").message).toMatch(/\(HTTP 503\): Service Unavailable$/);
  });
});

describe("Retry-After and backoff (§7.3, §7.5)", () => {
  const h = (v: string | string[]) => ({ "retry-after": v });

  it("TestRetryAfterDelayHonorsTheHostHint: delta-seconds and HTTP-date", () => {
    expect(parseRetryAfter(h("0"))).toBe(0);
    expect(parseRetryAfter(h("7"))).toBe(7000);
    const now = Date.parse("Sun, 09 Aug 2026 10:00:00 GMT");
    expect(parseRetryAfter(h("Sun, 09 Aug 2026 10:00:30 GMT"), now)).toBe(30_000);
    expect(parseRetryAfter(h("Sunday, 09-Aug-26 10:00:30 GMT"), now)).toBe(30_000);
    expect(parseRetryAfter(h("Sun Aug  9 10:00:30 2026"), now)).toBe(30_000);
    expect(parseRetryAfter(h("Sun, 09 Aug 2026 09:00:00 GMT"), now)).toBe(0);
    for (const bad of ["-1", "1.5", "soon", "", "2026-08-09T10:00:00Z"]) expect(parseRetryAfter(h(bad), now), bad).toBeUndefined();
    expect(parseRetryAfter(h(["1", "2"]))).toBeUndefined();
    expect(parseRetryAfter({})).toBeUndefined();
  });

  it("request retries: Retry-After exactly, else full jitter in [0, min(100 ms·2^n, 5 s))", () => {
    const policy = DEFAULT_RETRY_POLICY;
    expect(backoff(policy, 90_000, 0)).toBe(90_000);
    expect(backoff(policy, 0, 3)).toBe(0);
    for (let n = 0; n < 10; n++) {
      const window = Math.min(100 * 2 ** n, 5_000);
      expect(backoff(policy, undefined, n, () => 0)).toBe(0);
      const top = backoff(policy, undefined, n, () => 0.999999);
      expect(top).toBeLessThan(window);
      expect(top).toBeGreaterThanOrEqual(window - 1);
    }
    expect(backoff(retryPolicy({ baseMs: 10, maxDelayMs: 15 }), undefined, 3, () => 0.999999)).toBe(14);
    expect(() => retryPolicy({ budget: -1 })).toThrow(RangeError);
    expect(retryPolicy({ attempts: 0 }).attempts).toBe(1);
  });

  it("TestWaitForPollHonorsRetryAfterOverBackoff", () => {
    expect(pollDelay(40_000, 0, true, () => 0.5)).toBe(40_000);
    expect(pollDelay(1, 9, false, () => 0.5)).toBe(1);
  });

  it("TestWaitForPollCapsBackoffWindow / TestPollBackoffWindowKeepsTheCap: min(250ms·2^n, 15s); Retry-After capped at 15 s only without a deadline", () => {
    expect([0, 1, 2, 5, 6, 7, 40].map(pollBackoffWindow)).toEqual([250, 500, 1000, 8000, 15_000, 15_000, 15_000]);
    expect(pollDelay(40_000, 0, false)).toBe(15_000);
    for (let n = 0; n < 64; n++) {
      const d = pollDelay(undefined, n, false, () => 0.9999999);
      expect(d).toBeLessThan(15_000);
      expect(d).toBeLessThan(pollBackoffWindow(n));
    }
    expect(jitter(1000, () => 0)).toBe(0);
  });
});
