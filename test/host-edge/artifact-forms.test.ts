// The three artifact-backed revisions of the v1beta1 lane over real HTTP (reference v1beta1 §7,
// §13 items 5–8): the manifest kind each Form needs, the media-type policy per manifest kind, the
// author's file order kept, and the lane's ceilings published in support profiles and enforced at
// upload start, at commit and when a Form names the manifest — at the reference values by default
// and at whatever a host is configured with. The v1alpha3 lane keeps its own rules.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalHost, SupportLimitError } from "../../src/host/index.ts";
import { bundledFamily } from "../host/family.ts";
import { GRANTS, key, serve } from "../host/harness.ts";
import { filesManifest, sha256Of, Wire } from "../host/wire.ts";
import { expectError, expectStatus } from "../host/expect.ts";
import { Edge, FULL_MODULE, modes, TOKENS } from "./edge.ts";

const HTML = { path: "index.html", mediaType: "text/html", content: "<!doctype html>\n" };
const CSS = { path: "assets/site.css", mediaType: "text/css", content: "body{}\n" };
const SQL1 = { path: "0001.sql", mediaType: "application/sql", content: "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT);\n" };
const SQL2 = { path: "0002.sql", mediaType: "application/sql", content: "ALTER TABLE notes ADD COLUMN created TEXT;\n" };

describe.each(modes((f) => f.lane === "v1beta1"))("artifact-backed Forms — $label", (mode) => {
  let edge: Edge;
  const start = (manifest: unknown) =>
    edge.client.request("POST", `${mode.family.api}/artifacts/uploads`, { body: { manifest }, headers: { "Idempotency-Key": key() } });
  beforeAll(async () => {
    edge = await Edge.open(mode);
  });
  afterAll(async () => edge.close());

  it("each Form names a manifest of its own kind; any other kind is artifact_invalid before mutation, on apply and import", async () => {
    const worker = await edge.bundleDigest(FULL_MODULE);
    const assets = await edge.wire.files("StaticAssetBundle", [HTML, CSS]);
    const migrations = await edge.wire.files("MigrationBundle", [SQL1]);
    const wrong: [string, string, RegExp][] = [
      ["StaticAssetBundle", worker, /a StaticAssetBundle needs a StaticAssetBundle manifest/],
      ["StaticAssetBundle", migrations, /is a MigrationBundle manifest/],
      ["SQLiteMigrationSet", assets, /a SQLiteMigrationSet needs a MigrationBundle manifest/],
      ["SQLiteMigrationSet", worker, /is a WorkerBundle manifest/],
      ["WorkerBundle", migrations, /a WorkerBundle needs a WorkerBundle manifest/],
    ];
    for (const [kind, digest, message] of wrong) {
      await edge.refuses(() => edge.createRaw(kind, "wrong-kind", { manifestDigest: digest }), "artifact_invalid", [message]);
      await edge.refuses(() => edge.importRaw(kind, "wrong-kind", { manifestDigest: digest }, "native-wrong-kind"), "artifact_invalid", [message]);
    }
    const right: [string, string][] = [
      ["StaticAssetBundle", assets],
      ["SQLiteMigrationSet", migrations],
      ["WorkerBundle", worker],
    ];
    for (const [kind, digest] of right) {
      const created = await edge.create(kind, `right-${kind.toLowerCase()}`, { manifestDigest: digest });
      expect(created.spec).toEqual({ manifestDigest: digest });
    }
  });

  it("a manifest the caller's tenant does not hold is artifact_missing, whoever else holds it", async () => {
    const foreign = edge.client.as(TOKENS.foreign);
    const held = await edge.wire.files("StaticAssetBundle", [{ ...HTML, content: "<p>foreign</p>\n" }], foreign);
    await edge.refuses(() => edge.createRaw("StaticAssetBundle", "not-held", { manifestDigest: held }), "artifact_missing");
    await edge.refuses(() => edge.createRaw("SQLiteMigrationSet", "not-held", { manifestDigest: sha256Of("never committed") }), "artifact_missing");
    // The same bytes committed by the caller's own tenant (another principal) make it usable.
    await edge.wire.files("StaticAssetBundle", [{ ...HTML, content: "<p>foreign</p>\n" }], edge.client.as(TOKENS.alternate));
    expect((await edge.create("StaticAssetBundle", "not-held", { manifestDigest: held })).spec.manifestDigest).toBe(held);
  });

  it("media types by manifest kind: a static asset takes any normalised type/subtype, a migration exactly application/sql", async () => {
    for (const mediaType of ["text/html", "image/svg+xml", "application/vnd.example+json", "font/woff2"]) {
      expectStatus(await start(filesManifest("StaticAssetBundle", [{ path: "f", mediaType, content: mediaType }])), 201);
    }
    for (const mediaType of ["text/html; charset=utf-8", "Text/HTML", "text", "text/", "/html", "text/html ", ""]) {
      expectError(await start(filesManifest("StaticAssetBundle", [{ path: "f", mediaType, content: "x" }])), "artifact_invalid", /mediaType/);
    }
    // The WorkerBundle module list is not the policy of a static asset: text/css is fine here.
    expectStatus(await start(filesManifest("StaticAssetBundle", [CSS])), 201);
    for (const mediaType of ["text/plain", "application/x-sql", "text/sql", "application/sql; charset=utf-8"]) {
      expectError(await start(filesManifest("MigrationBundle", [{ ...SQL1, mediaType }])), "artifact_invalid", /must be application\/sql|mediaType/);
    }
    expectStatus(await start(filesManifest("MigrationBundle", [SQL1, SQL2])), 201);
  });

  it("files keep the author's order: it is part of the digest, and a MigrationBundle's order is its migration order", async () => {
    const forward = await edge.wire.files("MigrationBundle", [SQL1, SQL2]);
    const reversed = await edge.wire.files("MigrationBundle", [SQL2, SQL1]);
    expect(reversed).not.toBe(forward);
    const read = await edge.client.request("GET", `${mode.family.api}/artifacts/${reversed}`);
    expect((read.json.files as { path: string }[]).map((f) => f.path)).toEqual(["0002.sql", "0001.sql"]);
    const assets = await edge.wire.files("StaticAssetBundle", [CSS, HTML]);
    expect(((await edge.client.request("GET", `${mode.family.api}/artifacts/${assets}`)).json.files as { path: string }[]).map((f) => f.path)).toEqual([
      CSS.path,
      HTML.path,
    ]);
  });

  it("support profiles publish the reference ceilings; the entry count and the aggregate bytes are enforced at upload start", async () => {
    const expected: Record<string, { maximumBundleBytes: number; maximumBundleFiles: number }> = {
      WorkerBundle: { maximumBundleBytes: 10_485_760, maximumBundleFiles: 4096 },
      StaticAssetBundle: { maximumBundleBytes: 10_485_760, maximumBundleFiles: 16_384 },
      SQLiteMigrationSet: { maximumBundleBytes: 10_485_760, maximumBundleFiles: 16_384 },
    };
    for (const [kind, limits] of Object.entries(expected)) {
      const profile = await edge.client.request("GET", `${mode.family.api}/support/forms/${edge.group}/${kind}/0.1.0`);
      expectStatus(profile, 200);
      expect(profile.json.limits).toEqual(limits);
    }
    const version = await edge.client.request("GET", `${mode.family.api}/support/forms/${edge.group}/WorkerVersion/0.1.0`);
    expect(version.json.limits).toEqual({ maximumBundleBytes: 10_485_760 });
    const one = { path: "a", mediaType: "text/plain", size: 10_485_760, digest: sha256Of("a") };
    expectStatus(await start({ apiVersion: "artifacts.takoform.com/v1alpha1", kind: "StaticAssetBundle", files: [one] }), 201);
    expectError(
      await start({
        apiVersion: "artifacts.takoform.com/v1alpha1",
        kind: "StaticAssetBundle",
        files: [one, { ...one, path: "b", size: 1, digest: sha256Of("b") }],
      }),
      "artifact_invalid",
      /above maximumBundleBytes 10485760/,
    );
    expectError(
      await start({
        apiVersion: "artifacts.takoform.com/v1alpha1",
        kind: "MigrationBundle",
        files: [{ ...one, mediaType: "application/sql", size: 10_485_761 }],
      }),
      "artifact_invalid",
      /above maximumBundleBytes/,
    );
    const many = Array.from({ length: 16_385 }, (_, i) => ({ path: `f${i}`, mediaType: "text/plain", size: 0, digest: sha256Of("") }));
    expectError(
      await start({ apiVersion: "artifacts.takoform.com/v1alpha1", kind: "StaticAssetBundle", files: many }),
      "artifact_invalid",
      /above maximumBundleFiles 16384/,
    );
  });
});

describe("artifact ceilings are the host's configuration", () => {
  const beta = bundledFamily("v1beta1");

  it("configured ceilings are published and enforced at upload start, at commit and when a Form names the manifest", async () => {
    const data = mkdtempSync(join(tmpdir(), "takoform-limits-"));
    try {
      // Committed under the reference ceilings: three files, 30 bytes.
      let served = await serve({ ...beta.options, data });
      let wire = await Wire.connect(served.client, beta);
      const three = [1, 2, 3].map((i) => ({ path: `f${i}.txt`, mediaType: "text/plain", content: "0123456789" }));
      const committed = await wire.files("StaticAssetBundle", three);
      const manifest = filesManifest("StaticAssetBundle", [{ path: "g.txt", mediaType: "text/plain", content: "x".repeat(40) }]);
      const pending = await served.client.request("POST", `${beta.api}/artifacts/uploads`, { body: { manifest }, headers: { "Idempotency-Key": key() } });
      expectStatus(pending, 201);
      await served.client.request("PUT", `${beta.api}/artifacts/uploads/${pending.json.uploadId}/blobs/${sha256Of("x".repeat(40))}`, {
        body: Buffer.from("x".repeat(40)),
      });
      await served.close();

      served = await serve({ ...beta.options, data, supportLimits: { maximumBundleBytes: 32, maximumBundleFiles: { StaticAssetBundle: 2 } } });
      wire = await Wire.connect(served.client, beta);
      const profile = await served.client.request("GET", `${beta.api}/support/forms/${beta.group}/StaticAssetBundle/0.1.0`);
      expect(profile.json.limits).toEqual({ maximumBundleBytes: 32, maximumBundleFiles: 2 });
      // WorkerBundle keeps its reference entry count; every kind takes the configured bytes.
      expect((await served.client.request("GET", `${beta.api}/support/forms/${beta.group}/WorkerBundle/0.1.0`)).json.limits).toEqual({
        maximumBundleBytes: 32,
        maximumBundleFiles: 4096,
      });
      // upload start
      expectError(
        await served.client.request("POST", `${beta.api}/artifacts/uploads`, {
          body: { manifest: filesManifest("StaticAssetBundle", three) },
          headers: { "Idempotency-Key": key() },
        }),
        "artifact_invalid",
        /above maximumBundleFiles 2/,
      );
      // commit of a session opened under the old ceilings
      expectError(
        await served.client.request("POST", `${beta.api}/artifacts/uploads/${pending.json.uploadId}/commit`, { headers: { "Idempotency-Key": key() } }),
        "artifact_invalid",
        /above maximumBundleBytes 32/,
      );
      // a Form naming a manifest committed under the old ceilings
      const ref = wire.ref("StaticAssetBundle");
      expectError(await wire.create(ref, "too-many", { manifestDigest: committed }), "artifact_invalid", /maximumBundleFiles 2/);
      expectError(await wire.read(ref, "too-many"), "resource_not_found");
      await served.close();
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });

  it("a ceiling above what the manifest schema allows, or not a positive integer, is refused when the host opens", async () => {
    await expect(LocalHost.open({ lanes: ["v1beta1"], tokens: GRANTS, supportLimits: { maximumBundleFiles: { WorkerBundle: 4097 } } })).rejects.toBeInstanceOf(
      SupportLimitError,
    );
    await expect(LocalHost.open({ lanes: ["v1beta1"], tokens: GRANTS, supportLimits: { maximumBundleBytes: 0 } })).rejects.toBeInstanceOf(SupportLimitError);
    await expect(LocalHost.open({ lanes: ["v1beta1"], tokens: GRANTS, supportLimits: { maximumBundleFiles: { ModuleWorker: 3 } } })).rejects.toBeInstanceOf(
      SupportLimitError,
    );
  });

  it("the v1alpha3 lane is unaffected: no maximumBundleFiles, no ceiling on files manifests, any media type for a migration file", async () => {
    const alpha = bundledFamily("v1alpha3");
    const served = await serve({ ...alpha.options });
    try {
      const profile = await served.client.request("GET", `${alpha.api}/support/forms/${alpha.group}/WorkerBundle/0.1.0`);
      expect(profile.json.limits).toEqual({ maximumBundleBytes: 10_485_760 });
      const upload = (manifest: unknown) =>
        served.client.request("POST", `${alpha.api}/artifacts/uploads`, { body: { manifest }, headers: { "Idempotency-Key": key() } });
      expectStatus(await upload(filesManifest("MigrationBundle", [{ ...SQL1, mediaType: "text/plain" }])), 201);
      const big = { path: "a", mediaType: "text/plain", size: 10_485_760, digest: sha256Of("a") };
      expectStatus(
        await upload({ apiVersion: "artifacts.takoform.com/v1alpha1", kind: "StaticAssetBundle", files: [big, { ...big, path: "b", digest: sha256Of("b") }] }),
        201,
      );
    } finally {
      await served.close();
    }
  });

  it("a manifest committed on the v1alpha3 lane that breaks v1beta1's media policy is refused when a v1beta1 Form names it", async () => {
    const served = await serve({ bundled: true, lanes: ["v1beta1", "v1alpha3"] });
    try {
      const alpha = await Wire.connect(served.client, bundledFamily("v1alpha3"));
      const beta = await Wire.connect(served.client, bundledFamily("v1beta1"));
      const digest = await alpha.files("MigrationBundle", [{ ...SQL1, mediaType: "text/plain" }]);
      expectError(await beta.create(beta.ref("SQLiteMigrationSet"), "plain-sql", { manifestDigest: digest }), "artifact_invalid", /must be application\/sql/);
      expectError(await beta.read(beta.ref("SQLiteMigrationSet"), "plain-sql"), "resource_not_found");
    } finally {
      await served.close();
    }
  });
});
