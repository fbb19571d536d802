// Derived revision names (decision 0029; reference §3.2, §3.3, §3.8). The worked examples are
// reproduced exactly, and the Go json.Marshal escaping is checked against digests computed
// independently here from hand-written Go-escaped bytes.

import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { buildWorkerBundleManifest } from "../../src/client/manifest.ts";
import { isResourceName } from "../../src/core/grammar.ts";
import { contentDigest, deriveName, deriveRevisionName, ownerDigestHex, specDigest } from "../../src/provider/revision/names.ts";
import { canonicalJson } from "../../src/forms/digest.ts";
import { bundledCodecTable } from "../../src/registry/bundled.ts";
import { encodeSpec } from "../../src/provider/codec/encode.ts";
import { derivedNamesUnderOtherLanes } from "../../src/provider/revision/other-lanes.ts";
import { moduleSource } from "./harness.ts";

const sha = (s: string) => createHash("sha256").update(Buffer.from(s, "utf8")).digest("hex");
const UPSTREAM = "edge.forms.takoform.com/v1alpha1";
const worker = { apiVersion: UPSTREAM, kind: "ModuleWorker", name: "counter" };
const bundleRef = { apiVersion: UPSTREAM, kind: "WorkerBundle", name: "bundle-abababababab-efe899c74558" };
const versionCodec = { slug: "worker-version", artifactBacked: false };
const bundleCodec = { slug: "worker-bundle", artifactBacked: true };

describe("revision names: the worked examples of §3.8", () => {
  it("example 1: bundle with the test digest and owner counter", () => {
    expect(ownerDigestHex("counter")).toBe("efe899c74558f20b08bbc19bf0228c0c25bddb7871d80bd34ac8b33c030b3698");
    expect(deriveRevisionName(bundleCodec, "counter", { manifestDigest: `sha256:${"ab".repeat(32)}` })).toBe("bundle-abababababab-efe899c74558");
  });

  it("example 2: the same bytes under owner counter-peer keep the content half", () => {
    expect(ownerDigestHex("counter-peer").slice(0, 12)).toBe("e7044b4d8519");
    expect(deriveRevisionName(bundleCodec, "counter-peer", { manifestDigest: `sha256:${"ab".repeat(32)}` })).toBe("bundle-abababababab-e7044b4d8519");
  });

  it("example 3: the minimal version spec, then with two handlers", () => {
    expect(deriveRevisionName(versionCodec, "counter", { bundle: bundleRef, handlers: ["fetch"], worker })).toBe("version-9217066e908d-efe899c74558");
    expect(deriveRevisionName(versionCodec, "counter", { bundle: bundleRef, handlers: ["fetch", "scheduled"], worker })).toBe(
      "version-352f58ae2c93-efe899c74558",
    );
  });

  it("example 4: the version as a real plan produces it, defaults materialized", () => {
    const spec = {
      bucketBindings: [],
      bundle: bundleRef,
      handlers: ["fetch"],
      kvBindings: [],
      queueProducerBindings: [],
      requiredSensitiveVars: [],
      serviceBindings: [],
      sqliteBindings: [],
      vars: {},
      worker,
    };
    expect(deriveRevisionName(versionCodec, "counter", spec)).toBe("version-dc9d202e40b3-efe899c74558");
  });

  it("example 5: moduleSource(1), 90 bytes, gives manifest sha256:dbdf1aacff23…", () => {
    const bytes = Buffer.from(moduleSource(1), "utf8");
    expect(bytes.byteLength).toBe(90);
    const built = buildWorkerBundleManifest({ mainModule: "index.js", modules: [{ name: "index.js", mediaType: "application/javascript+module", bytes }] });
    expect(built.manifestDigest.startsWith("sha256:dbdf1aacff23")).toBe(true);
    expect(deriveRevisionName(bundleCodec, "counter", { manifestDigest: built.manifestDigest })).toBe("bundle-dbdf1aacff23-efe899c74558");
  });

  it("the WorkerVersion example through our generated codec's slug and artifact flag", () => {
    const codec = bundledCodecTable().defaultCreate({ apiVersion: "edge.takoform-cdk.dev/v1alpha1", kind: "WorkerVersion" }).codec;
    expect(deriveRevisionName(codec, "counter", { bundle: bundleRef, handlers: ["fetch"], worker })).toBe("version-9217066e908d-efe899c74558");
    const bundle = bundledCodecTable().defaultCreate({ apiVersion: "edge.takoform-cdk.dev/v1alpha1", kind: "WorkerBundle" }).codec;
    expect(deriveRevisionName(bundle, "counter", { manifestDigest: `sha256:${"ab".repeat(32)}` })).toBe("bundle-abababababab-efe899c74558");
  });
});

describe("revision names follow Go's json.Marshal bytes, not RFC 8785", () => {
  // Each spec is hashed as the exact bytes Go would write, typed out by hand here.
  const cases: [string, Record<string, unknown>, string][] = [
    ["< > &", { vars: { note: "a<b>c&d" } }, '{"vars":{"note":"a\\u003cb\\u003ec\\u0026d"}}'],
    ["U+2028 and U+2029", { vars: { note: "line\u2028para\u2029end" } }, '{"vars":{"note":"line\\u2028para\\u2029end"}}'],
    ["control characters", { vars: { note: "tab\there\u0001" } }, '{"vars":{"note":"tab\\there\\u0001"}}'],
    ["key order and floats", { vars: { b: 1.5, a: 1e21, c: 0.0000001 } }, '{"vars":{"a":1e+21,"b":1.5,"c":1e-7}}'],
  ];
  for (const [label, spec, goBytes] of cases) {
    it(`${label}: the digest is SHA-256 of the Go-escaped bytes`, () => {
      expect(specDigest(spec as never)).toBe(`sha256:${sha(goBytes)}`);
      const name = deriveRevisionName(versionCodec, "counter", spec as never)!;
      expect(name).toBe(`version-${sha(goBytes).slice(0, 12)}-efe899c74558`);
    });
  }

  it("for HTML characters the Go bytes differ from the RFC 8785 bytes, and the name follows Go", () => {
    const spec = { vars: { note: "a<b>c&d" } };
    const jcs = canonicalJson(spec);
    expect(jcs).toBe('{"vars":{"note":"a<b>c&d"}}');
    expect(specDigest(spec)).not.toBe(`sha256:${sha(jcs)}`);
  });
});

describe("TestV3DerivedRevisionNamesAreDeterministicAndDistinct", () => {
  const digest = (n: number) => `sha256:${sha(`content-${n}`)}`;
  it("is deterministic, content changes the name, owners change only the owner half", () => {
    expect(deriveName("bundle", "counter", digest(1))).toBe(deriveName("bundle", "counter", digest(1)));
    expect(deriveName("bundle", "counter", digest(1))).not.toBe(deriveName("bundle", "counter", digest(2)));
    const a = deriveName("bundle", "counter", digest(1))!;
    const b = deriveName("bundle", "counter-peer", digest(1))!;
    expect(a.split("-")[1]).toBe(b.split("-")[1]);
    expect(a.split("-")[2]).not.toBe(b.split("-")[2]);
  });

  it("uses the bundle-, version-, static-asset-bundle- and sqlite-migration-set- prefixes, and only the revision role derives", () => {
    const table = bundledCodecTable();
    const line = (kind: string) => table.defaultCreate({ apiVersion: "edge.takoform-cdk.dev/v1alpha1", kind }).codec;
    expect(deriveRevisionName(line("WorkerBundle"), "o", { manifestDigest: digest(1) })!.startsWith("bundle-")).toBe(true);
    expect(deriveRevisionName(line("WorkerVersion"), "o", { handlers: ["fetch"] })!.startsWith("version-")).toBe(true);
    const revisions = table.registry
      .defaultCreates()
      .map((ref) => table.codec(ref)!)
      .filter((c) => c.role === "revision")
      .map((c) => c.ref.kind)
      .sort();
    expect([...new Set(revisions)]).toEqual(["SQLiteMigrationSet", "StaticAssetBundle", "WorkerBundle", "WorkerVersion"]);
    const beta = (kind: string) => table.defaultCreate({ apiVersion: "edge.takoform-cdk.dev/v1beta1", kind }).codec;
    expect(deriveRevisionName(beta("StaticAssetBundle"), "o", { manifestDigest: digest(1) })).toMatch(/^static-asset-bundle-[0-9a-f]{12}-[0-9a-f]{12}$/);
    expect(deriveRevisionName(beta("SQLiteMigrationSet"), "o", { manifestDigest: digest(1) })).toMatch(/^sqlite-migration-set-[0-9a-f]{12}-[0-9a-f]{12}$/);
  });

  it("names are portable and fixed width; an empty owner or a bad digest derives nothing", () => {
    const long = `o${"x".repeat(62)}`;
    const name = deriveName("version", long, digest(3))!;
    expect(isResourceName(name)).toBe(true);
    expect(name).toHaveLength(33);
    expect(deriveName("bundle", long, digest(3))).toHaveLength(32);
    expect(deriveName("bundle", "", digest(3))).toBeUndefined();
    expect(deriveName("bundle", "o", "md5:abc")).toBeUndefined();
    expect(deriveName("bundle", "o", "sha256:abcdef")).toBeUndefined();
    expect(contentDigest(bundleCodec, {})).toBeUndefined();
  });
});

describe("v1beta1 revision names (reference v1beta1 §10.3, §13 item 17)", () => {
  const table = bundledCodecTable();
  const beta = (kind: string) => table.defaultCreate({ apiVersion: "edge.takoform-cdk.dev/v1beta1", kind }).codec;
  const test = `sha256:${"ab".repeat(32)}`;

  it("a static asset bundle and a migration set are named by their manifest digest, 45 and 46 characters", () => {
    const assets = deriveRevisionName(beta("StaticAssetBundle"), "counter", { manifestDigest: test })!;
    const migrations = deriveRevisionName(beta("SQLiteMigrationSet"), "counter", { manifestDigest: test })!;
    expect(assets).toBe("static-asset-bundle-abababababab-efe899c74558");
    expect(migrations).toBe("sqlite-migration-set-abababababab-efe899c74558");
    expect([assets.length, migrations.length]).toEqual([45, 46]);
    expect(isResourceName(assets) && isResourceName(migrations)).toBe(true);
    // The content half is the manifest digest's, as for a WorkerBundle: never a hash of the one-field spec.
    expect(assets).not.toBe(`static-asset-bundle-${specDigest({ manifestDigest: test }).slice(7, 19)}-efe899c74558`);
  });

  it("a WorkerVersion's name covers assets: the materialized spec hashed as Go's json.Marshal bytes, and another attachment is another name", () => {
    const codec = beta("WorkerVersion");
    const group = "edge.takoform-cdk.dev/v1beta1";
    const attributes = {
      worker: "counter",
      bundle: "bundle-abababababab-efe899c74558",
      handlers: ["fetch"],
      vars_json: "{}",
      required_sensitive_vars: [],
      kv_bindings: [],
      bucket_bindings: [],
      sqlite_bindings: [],
      queue_producer_bindings: [],
      service_bindings: [],
      assets: null,
    };
    const withAssets = {
      ...attributes,
      assets: { bundle: "static-asset-bundle-abababababab-efe899c74558", run_worker_first: false, not_found_handling: "single_page_application" },
    };
    const plain = encodeSpec(codec, attributes, { mode: "plan" });
    const attached = encodeSpec(codec, withAssets, { mode: "plan" });
    expect([plain.errors, attached.errors, plain.unresolved, attached.unresolved], JSON.stringify([plain.errors, attached.errors])).toEqual([
      [],
      [],
      false,
      false,
    ]);
    // Typed out as Go writes the map: every key sorted, nested ones too, the bool bare.
    const ref = (kind: string, name: string) => `{"apiVersion":"${group}","kind":"${kind}","name":"${name}"}`;
    const goBytes =
      `{"assets":{"bundle":${ref("StaticAssetBundle", "static-asset-bundle-abababababab-efe899c74558")},"notFoundHandling":"single_page_application","runWorkerFirst":false},` +
      `"bucketBindings":[],"bundle":${ref("WorkerBundle", "bundle-abababababab-efe899c74558")},"handlers":["fetch"],"kvBindings":[],"queueProducerBindings":[],` +
      `"requiredSensitiveVars":[],"serviceBindings":[],"sqliteBindings":[],"vars":{},"worker":${ref("ModuleWorker", "counter")}}`;
    expect(specDigest(attached.spec)).toBe(`sha256:${sha(goBytes)}`);
    const named = deriveRevisionName(codec, "counter", attached.spec)!;
    expect(named).toBe(`version-${sha(goBytes).slice(0, 12)}-efe899c74558`);
    // No assets member at all without the attachment (absence means no asset lookup).
    expect(Object.keys(plain.spec)).not.toContain("assets");
    expect(deriveRevisionName(codec, "counter", plain.spec)).not.toBe(named);
    const other = encodeSpec(codec, { ...withAssets, assets: { ...withAssets.assets, not_found_handling: "none" } }, { mode: "plan" });
    expect(deriveRevisionName(codec, "counter", other.spec)).not.toBe(named);
  });
});

describe("a derived name survives a lane upgrade (revision/other-lanes.ts)", () => {
  const table = bundledCodecTable();
  const codecOf = (group: string, kind: string) => table.defaultCreate({ apiVersion: group, kind }).codec;
  const ALPHA = "edge.takoform-cdk.dev/v1alpha1";
  const BETA = "edge.takoform-cdk.dev/v1beta1";
  const attributes = (extra: Record<string, unknown> = {}) => ({
    worker: "counter",
    bundle: "bundle-abababababab-efe899c74558",
    handlers: ["fetch"],
    vars_json: "{}",
    required_sensitive_vars: [],
    kv_bindings: [{ name: "COUNTER", target_name: "counter-state" }],
    bucket_bindings: [],
    sqlite_bindings: [],
    queue_producer_bindings: [],
    service_bindings: [],
    ...extra,
  });

  it("the v1beta1 spelling of a version moved from v1alpha3 also derives its v1alpha3 name; any other content does not", () => {
    const alpha = codecOf(ALPHA, "WorkerVersion");
    const beta = codecOf(BETA, "WorkerVersion");
    const alphaSpec = encodeSpec(alpha, attributes(), { mode: "plan" }).spec;
    const betaSpec = encodeSpec(beta, attributes({ assets: null }), { mode: "plan" }).spec;
    const recorded = deriveRevisionName(alpha, "counter", alphaSpec)!;
    const derived = deriveRevisionName(beta, "counter", betaSpec)!;
    // Different spellings of the same content: different names under each lane's own rule.
    expect(derived).not.toBe(recorded);
    expect(JSON.stringify(betaSpec)).toBe(JSON.stringify(alphaSpec).replaceAll(ALPHA, BETA));
    expect(derivedNamesUnderOtherLanes(beta, "counter", betaSpec)).toEqual([recorded]);
    expect(derivedNamesUnderOtherLanes(alpha, "counter", alphaSpec)).toEqual([derived]);
    // Changed content is a new name under every spelling.
    const changed = encodeSpec(beta, attributes({ assets: null, handlers: ["fetch", "scheduled"] }), { mode: "plan" }).spec;
    expect(derivedNamesUnderOtherLanes(beta, "counter", changed)).not.toContain(recorded);
    // A revision named by its manifest digest does not depend on the lane at all.
    expect(derivedNamesUnderOtherLanes(codecOf(BETA, "WorkerBundle"), "counter", { manifestDigest: `sha256:${"ab".repeat(32)}` })).toEqual([]);
  });
});
