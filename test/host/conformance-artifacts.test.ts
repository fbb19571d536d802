// Content-addressed artifact upload over real HTTP, per family (each lane's own API root), and
// the two checks where a Form names a manifest: a committed one applies (artifact-then-bundle-apply)
// and a digest only another tenant holds does not (manifest-reference-is-not-a-capability). The
// rest of manifest resolution at apply belongs to the Edge family rules and is tested with them.

import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { key, serve, TOKENS, type HttpClient, type Served } from "./harness.ts";
import { families } from "./family.ts";
import { Wire } from "./wire.ts";
import { expectError, expectStatus } from "./expect.ts";

function sha(bytes: Buffer | string): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

function moduleEntry(name: string, source: string, mediaType = "application/javascript+module") {
  const bytes = Buffer.from(source);
  return { entry: { name, mediaType, size: bytes.byteLength, digest: sha(bytes) }, bytes };
}

function bundleManifest(modules: { entry: object }[], main: string): object {
  return { apiVersion: "artifacts.takoform.com/v1alpha1", kind: "WorkerBundle", mainModule: main, modules: modules.map((m) => m.entry) };
}

describe.each(families())("conformance artifacts — $label", (family) => {
  const API = family.api;
  let served: Served;
  let client: HttpClient;
  let wire: Wire;
  beforeAll(async () => {
    served = await serve({ ...family.options, conformanceProbes: true });
    client = served.client;
    wire = await Wire.connect(client, family);
  });
  afterAll(async () => served.close());

  const start = (manifest: unknown, c = client) => c.request("POST", `${API}/artifacts/uploads`, { body: { manifest }, headers: { "Idempotency-Key": key() } });
  const put = (id: string, digest: string, bytes: Buffer, c = client) =>
    c.request("PUT", `${API}/artifacts/uploads/${id}/blobs/${digest}`, { body: bytes, headers: { "Content-Type": "application/octet-stream" } });
  const commit = (id: string, c = client, k = key()) => c.request("POST", `${API}/artifacts/uploads/${id}/commit`, { headers: { "Idempotency-Key": k } });
  const abandon = (id: string, c = client) => c.request("DELETE", `${API}/artifacts/uploads/${id}`, { headers: { "Idempotency-Key": key() } });
  const head = (digest: string, c = client) => c.request("HEAD", `${API}/artifacts/blobs/${digest}`);

  it("artifact-upload-missing-blob", async () => {
    const m = moduleEntry("index.js", "export default { async fetch() { return new Response('missing'); } };\n");
    const started = await start(bundleManifest([m], "index.js"));
    expectStatus(started, 201);
    expect(started.json.uploadId).toMatch(/^up_[A-Za-z0-9][A-Za-z0-9._-]{0,124}$/);
    expect(started.json.missingBlobs).toEqual([m.entry.digest]);
    expectError(await commit(started.json.uploadId), "artifact_missing", /has not been uploaded/);
  });

  it("artifact-digest-mismatch", async () => {
    const m = moduleEntry("index.js", "export default { async fetch() { return new Response('mismatch'); } };\n");
    const started = await start(bundleManifest([m], "index.js"));
    const id = started.json.uploadId;
    const tampered = Buffer.from(m.bytes);
    tampered[0] = tampered[0]! ^ 1;
    expectError(await put(id, m.entry.digest, tampered), "artifact_invalid", /digest/);
    expectError(await put(id, m.entry.digest, Buffer.concat([m.bytes, Buffer.from(" ")])), "artifact_invalid", /size/);
    expectError(await put(id, sha("undeclared"), Buffer.from("undeclared")), "artifact_invalid", /not declared/);
    expectStatus(await head(m.entry.digest), 404);
  });

  it("artifact-commit-idempotent", async () => {
    const m = moduleEntry("index.js", "export default { async fetch() { return new Response('commit'); } };\n");
    const manifest = bundleManifest([m], "index.js");
    const started = await start(manifest);
    const id = started.json.uploadId;
    expectStatus(await put(id, m.entry.digest, m.bytes), 201);
    expectStatus(await put(id, m.entry.digest, m.bytes), 204);
    const first = await commit(id);
    expectStatus(first, 201);
    expect(first.json.manifestDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const second = await commit(id);
    expectStatus(second, 200);
    expect(second.json.manifestDigest).toBe(first.json.manifestDigest);
    const read = await client.request("GET", `${API}/artifacts/${first.json.manifestDigest}`);
    expectStatus(read, 200);
    expect(read.json).toEqual(manifest);
    expect(sha(read.body)).toBe(first.json.manifestDigest);
    expectStatus(await head(m.entry.digest), 200);
    expectStatus(await head(sha("never uploaded")), 404);
    // A second upload of the same bytes has nothing missing.
    expect((await start(manifest)).json.missingBlobs).toEqual([]);
  });

  it("artifact-manifest-reject-list", async () => {
    const ok = moduleEntry("index.js", "export default {};\n");
    const cases: [string, unknown][] = [
      ["duplicate module names", bundleManifest([ok, ok], "index.js")],
      ["absolute path", bundleManifest([moduleEntry("/index.js", "x")], "/index.js")],
      ["dot-dot segment", bundleManifest([moduleEntry("a/../index.js", "x")], "a/../index.js")],
      ["dot segment", bundleManifest([moduleEntry("./index.js", "x")], "./index.js")],
      ["backslash", bundleManifest([moduleEntry("a\\index.js", "x")], "a\\index.js")],
      ["NUL", bundleManifest([moduleEntry("a\u0000.js", "x")], "a\u0000.js")],
      ["application/json module", bundleManifest([moduleEntry("index.js", "x", "application/json")], "index.js")],
      ["unknown media type", bundleManifest([moduleEntry("index.js", "x", "text/javascript")], "index.js")],
      ["missing mainModule", { apiVersion: "artifacts.takoform.com/v1alpha1", kind: "WorkerBundle", modules: [ok.entry] }],
      ["mainModule names nothing", bundleManifest([ok], "other.js")],
      ["orphan source map", bundleManifest([ok, moduleEntry("missing.js.map", "{}", "application/source-map+json")], "index.js")],
      ["oversize bundle", bundleManifest([{ entry: { ...ok.entry, size: 10_485_761 } }], "index.js")],
      ["negative size", bundleManifest([{ entry: { ...ok.entry, size: -1 } }], "index.js")],
      ["bad digest", bundleManifest([{ entry: { ...ok.entry, digest: "sha256:XYZ" } }], "index.js")],
      ["unknown member", { ...(bundleManifest([ok], "index.js") as object), extra: true }],
      ["wrong apiVersion", { ...(bundleManifest([ok], "index.js") as object), apiVersion: "artifacts.takoform.com/v1" }],
      ["one digest, two sizes", bundleManifest([ok, { entry: { ...ok.entry, name: "copy.js", size: ok.entry.size + 1 } }], "index.js")],
      ["no modules", bundleManifest([], "index.js")],
    ];
    for (const [label, manifest] of cases) {
      const res = await start(manifest);
      if (res.status !== 400 || res.json.error.code !== "artifact_invalid") throw new Error(`${label}: ${res.status} ${res.text}`);
    }
    // Carrying a source map beside the module it maps is fine.
    expectStatus(await start(bundleManifest([ok, moduleEntry("index.js.map", "{}", "application/source-map+json")], "index.js")), 201);
  });

  it("artifact-commit-binds-declared-size", async () => {
    // The same bytes declared under a wrong size by a second manifest: the stored size decides.
    const m = moduleEntry("index.js", "export default { async fetch() { return new Response('size'); } };\n");
    const a = await start(bundleManifest([m], "index.js"));
    expectStatus(await put(a.json.uploadId, m.entry.digest, m.bytes), 201);
    const lying = bundleManifest([{ entry: { ...m.entry, size: m.entry.size + 3 } }], "index.js");
    const b = await start(lying);
    expectStatus(b, 201);
    expect(b.json.missingBlobs).toEqual([]);
    expectError(await commit(b.json.uploadId), "artifact_invalid", /declares/);
  });

  it("artifact-manifest-kind-exclusive", async () => {
    const ok = moduleEntry("index.js", "export default {};\n");
    const file = { path: "index.html", mediaType: "text/html", size: 1, digest: sha("x") };
    expectError(await start({ ...(bundleManifest([ok], "index.js") as object), files: [file] }), "artifact_invalid", /never files/);
    expectError(
      await start({ apiVersion: "artifacts.takoform.com/v1alpha1", kind: "StaticAssetBundle", files: [file], mainModule: "index.js" }),
      "artifact_invalid",
    );
    expectError(
      await start({ apiVersion: "artifacts.takoform.com/v1alpha1", kind: "MigrationBundle", files: [file], modules: [ok.entry] }),
      "artifact_invalid",
    );
    expectStatus(await start({ apiVersion: "artifacts.takoform.com/v1alpha1", kind: "StaticAssetBundle", files: [file] }), 201);
    expectError(await start({ apiVersion: "artifacts.takoform.com/v1alpha1", kind: "StaticAssetBundle", files: [file, file] }), "artifact_invalid", /twice/);
  });

  it("bundle-main-module-is-loadable", async () => {
    const ok = moduleEntry("index.js", "export default {};\n");
    const map = moduleEntry("index.js.map", "{}", "application/source-map+json");
    expectError(await start(bundleManifest([ok, map], "index.js.map")), "artifact_invalid", /not loadable/);
    expectStatus(await start(bundleManifest([ok, map], "index.js")), 201);
  });

  it("artifact-retention-while-referenced", async () => {
    const m = moduleEntry("index.js", "export default { async fetch() { return new Response('kept'); } };\n");
    const kept = await start(bundleManifest([m], "index.js"));
    await put(kept.json.uploadId, m.entry.digest, m.bytes);
    const digest = (await commit(kept.json.uploadId)).json.manifestDigest;
    const other = await start(bundleManifest([moduleEntry("index.js", "export default {}; // other\n")], "index.js"));
    expectStatus(await abandon(other.json.uploadId), 204);
    expectStatus(await abandon(kept.json.uploadId), 204);
    expectStatus(await client.request("GET", `${API}/artifacts/${digest}`), 200);
    expectStatus(await head(m.entry.digest), 200);
    expectError(await abandon(other.json.uploadId), "artifact_missing");
  });

  it("upload-session-bound-to-its-creating-principal", async () => {
    const m = moduleEntry("index.js", "export default { async fetch() { return new Response('owned'); } };\n");
    const started = await start(bundleManifest([m], "index.js"));
    const id = started.json.uploadId;
    for (const token of [TOKENS.alternate, TOKENS.foreign]) {
      const other = client.as(token);
      expectError(await put(id, m.entry.digest, m.bytes, other), "artifact_missing");
      expectError(await commit(id, other), "artifact_missing");
      expectError(await abandon(id, other), "artifact_missing");
    }
    expectError(await commit("up_doesnotexist"), "artifact_missing");
    expectStatus(await put(id, m.entry.digest, m.bytes), 201);
    expectStatus(await commit(id), 201);
  });

  it("artifact-digest-is-not-a-capability", async () => {
    const m = moduleEntry("index.js", "export default { async fetch() { return new Response('capability'); } };\n");
    const manifest = bundleManifest([m], "index.js");
    const started = await start(manifest);
    await put(started.json.uploadId, m.entry.digest, m.bytes);
    const digest = (await commit(started.json.uploadId)).json.manifestDigest;
    const foreign = client.as(TOKENS.foreign);
    expectError(await foreign.request("GET", `${API}/artifacts/${digest}`), "artifact_missing");
    expectStatus(await head(m.entry.digest, foreign), 404);
    // missingBlobs is answered per tenant, even though the bytes are physically present.
    expect((await start(manifest, foreign)).json.missingBlobs).toEqual([m.entry.digest]);
    // Another principal of the same tenant holds what its tenant holds.
    const bob = client.as(TOKENS.alternate);
    expectStatus(await bob.request("GET", `${API}/artifacts/${digest}`), 200);
    expectStatus(await head(m.entry.digest, bob), 200);
  });

  it("artifact-then-bundle-apply", async () => {
    const m = moduleEntry("index.js", "export default { async fetch() { return new Response('bundle'); } };\n");
    const started = await start(bundleManifest([m], "index.js"));
    await put(started.json.uploadId, m.entry.digest, m.bytes);
    const digest = (await commit(started.json.uploadId)).json.manifestDigest;
    const support = await client.request("GET", `${API}/support/forms`);
    const ref = support.json.profiles.find((p: any) => p.formRef.kind === "WorkerBundle" && p.formRef.apiVersion === family.group).formRef;
    const body = {
      apiVersion: ref.apiVersion,
      kind: ref.kind,
      form: { formRef: ref },
      metadata: { name: "applied-bundle", space: "conformance" },
      spec: { manifestDigest: digest },
    };
    const prep = await client.request("POST", `${API}/resources/prepare`, { body });
    const res = await client.request("PUT", `${API}/resources/${ref.apiVersion}/${ref.kind}/applied-bundle`, {
      body: { ...body, review: { prepareDigest: prep.json.review.prepareDigest } },
      headers: { "Idempotency-Key": key(), "If-None-Match": "*" },
    });
    expectStatus(res, 201);
    expect(res.json.spec.manifestDigest).toBe(digest);
  });

  it("manifest-reference-is-not-a-capability", async () => {
    const source = 'export default { async fetch() { return new Response("reference"); } };\n';
    const m = moduleEntry("reference.js", source);
    const manifest = bundleManifest([m], "reference.js");
    const holder = await start(manifest);
    await put(holder.json.uploadId, m.entry.digest, m.bytes);
    const digest = (await commit(holder.json.uploadId)).json.manifestDigest as string;
    const ref = wire.ref("WorkerBundle");
    // Holding is the tenant's: another principal of the holding tenant references it.
    const bob = client.as(TOKENS.alternate);
    expectStatus(await wire.create(ref, "bundle-holder-reference-probe", { manifestDigest: digest }, { client: bob }), 201);
    // A foreign tenant naming the digest gets the artifact_missing a never-committed digest gets,
    // on apply and on import, and nothing is stored.
    const foreign = client.as(TOKENS.foreign);
    expectError(await wire.create(ref, "bundle-foreign-reference-probe", { manifestDigest: digest }, { client: foreign }), "artifact_missing");
    expectError(await wire.read(ref, "bundle-foreign-reference-probe", { client: foreign }), "resource_not_found");
    expectError(
      await wire.import(ref, "bundle-foreign-reference-probe", { manifestDigest: digest }, "native-foreign-reference-probe", { client: foreign }),
      "artifact_missing",
    );
    expectError(await wire.read(ref, "bundle-foreign-reference-probe", { client: foreign }), "resource_not_found");
    // The same bytes, committed by the foreign tenant itself, make the same identity usable by it.
    expect(await wire.commit(manifest, [m.bytes], foreign)).toBe(digest);
    expectStatus(await wire.create(ref, "bundle-foreign-reference-probe", { manifestDigest: digest }, { client: foreign }), 201);
  });
});
