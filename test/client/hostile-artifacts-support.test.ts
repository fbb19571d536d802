// Artifact uploads and support profiles against a scripted host: the refusal paths.

import { describe, expect, it } from "vitest";
import type { HostClient } from "../../src/client/client.ts";
import { AcceptedError, ClientInputError, HostApiError, ProtocolInvalidError } from "../../src/client/errors.ts";
import { buildWorkerBundleManifest } from "../../src/client/manifest.ts";
import { SUPPORT_API_VERSION } from "../../src/core/protocol.ts";
import { API_ROOT } from "./fixtures/lane.ts";
import { digestCanonical } from "../../src/forms/digest.ts";
import { operationDoc, REF } from "./fixtures/documents.ts";
import { envelope, type HostileHost } from "./fixtures/hostile-host.ts";
import { rejectionOf, scriptedHostPerTest } from "./fixtures/scripts.ts";

let host: HostileHost;
let client: HostClient;
const utf8 = (s: string) => new TextEncoder().encode(s);
const modules = [
  { name: "index.js", mediaType: "application/javascript+module", bytes: utf8("export default {}") },
  { name: "lib.js", mediaType: "application/javascript+module", bytes: utf8("export const x = 1") },
];
const built = buildWorkerBundleManifest({ mainModule: "index.js", modules });
const [mainDigest, libDigest] = built.manifest.modules.map((m) => m.digest) as [string, string];
const uploads = `${API_ROOT}/artifacts/uploads`;

scriptedHostPerTest((h, c) => {
  host = h;
  client = c;
});

describe("artifact upload", () => {
  it("PUTs only the blobs the host lists as missing, then commits; the committed digest must be ours", async () => {
    host.on("POST", uploads, () => ({ status: 201, body: { uploadId: "up_1", missingBlobs: [libDigest] } }));
    host.on("PUT", new RegExp(`^${uploads}/up_1/blobs/`), () => ({ status: 201 }));
    host.on("POST", `${uploads}/up_1/commit`, () => ({ status: 201, body: { manifestDigest: built.manifestDigest } }));
    const result = await client.uploadWorkerBundle({ mainModule: "index.js", modules });
    expect(result).toMatchObject({ manifestDigest: built.manifestDigest, uploadId: "up_1", uploaded: [libDigest] });
    const puts = host.calls.filter((c) => c.method === "PUT");
    expect(puts.map((p) => p.path)).toEqual([`${uploads}/up_1/blobs/${libDigest}`]);
    expect(puts[0]!.headers["content-type"]).toBe("application/octet-stream");
    expect(puts[0]!.headers["idempotency-key"]).toBeUndefined();
    expect(puts[0]!.body.toString()).toBe("export const x = 1");
    const start = host.calls[0]!;
    expect(JSON.parse(start.body.toString())).toEqual({ manifest: built.manifest });
    expect(digestCanonical(JSON.parse(start.body.toString()).manifest)).toBe(built.manifestDigest);
  });

  it("TestUploadArtifactRejectsCorruptLocalBlob: nothing is sent", async () => {
    const blobs = new Map(built.blobs);
    blobs.set(libDigest, utf8("export const x = 2"));
    await expect(client.uploadArtifact(built.manifest as never, blobs)).rejects.toThrow(/do not match blob/);
    blobs.delete(libDigest);
    await expect(client.uploadArtifact(built.manifest as never, blobs)).rejects.toThrow(/no local bytes/);
    expect(host.calls).toHaveLength(0);
  });

  it("refuses a missing set naming an undeclared blob, twice the same blob, or a bad upload id", async () => {
    const cases: [unknown, RegExp][] = [
      [{ uploadId: "up_1", missingBlobs: [`sha256:${"0".repeat(64)}`] }, /does not declare/],
      [{ uploadId: "up_1", missingBlobs: [mainDigest, mainDigest] }, /twice/],
      [{ uploadId: "upload-1", missingBlobs: [] }, /not an upload id/],
      [{ uploadId: "up_1" }, /"missingBlobs"/],
    ];
    for (const [body, why] of cases) {
      host.on("POST", uploads, () => ({ status: 201, body }));
      const err = await rejectionOf(client.uploadArtifact(built.manifest as never, built.blobs));
      expect(err).toBeInstanceOf(ProtocolInvalidError);
      expect(err.message).toMatch(why);
    }
    expect(host.calls.every((c) => c.path === uploads)).toBe(true);
  });

  it("a commit naming another digest is accepted-but-unverified; a 202 commit is polled to its result", async () => {
    host.on("POST", uploads, () => ({ status: 201, body: { uploadId: "up_2", missingBlobs: [] } }));
    host.on("POST", `${uploads}/up_2/commit`, () => ({ status: 200, body: { manifestDigest: `sha256:${"9".repeat(64)}` } }));
    const err = await rejectionOf(client.uploadArtifact(built.manifest as never, built.blobs));
    expect(err).toBeInstanceOf(AcceptedError);
    expect(err.message).toContain(`not the local manifest ${built.manifestDigest}`);

    host.on("POST", `${uploads}/up_2/commit`, () => ({ status: 202, headers: { "Retry-After": "0" }, body: { operation: operationDoc("op_commit") } }));
    host.on("GET", `${API_ROOT}/operations/op_commit`, () => ({
      status: 200,
      body: operationDoc("op_commit", { done: true, target: { manifestDigest: built.manifestDigest }, result: { manifestDigest: built.manifestDigest } }),
    }));
    expect((await client.uploadArtifact(built.manifest as never, built.blobs)).manifestDigest).toBe(built.manifestDigest);
    const commits = host.calls.filter((c) => c.path.endsWith("/commit"));
    expect(new Set(commits.map((c) => c.headers["idempotency-key"])).size).toBe(1);
  });

  it("TestGetArtifactManifestVerifiesContentAddress", async () => {
    host.on("GET", `${API_ROOT}/artifacts/${built.manifestDigest}`, () => ({ status: 200, body: built.manifest }));
    expect(await client.getArtifactManifest(built.manifestDigest)).toEqual(built.manifest);
    host.on("GET", `${API_ROOT}/artifacts/${built.manifestDigest}`, () => ({ status: 200, body: { ...built.manifest, mainModule: "lib.js" } }));
    const err = await rejectionOf(client.getArtifactManifest(built.manifestDigest));
    expect(err).toBeInstanceOf(ProtocolInvalidError);
    expect(err.message).toContain("content address");
  });

  it("TestAbandonUploadRejectsAMalformedUploadID / …SurfacesTheTypedHostError / …ReleasesTheSession", async () => {
    await expect(client.abandonUpload("nope")).rejects.toThrow(ClientInputError);
    expect(host.calls).toHaveLength(0);
    host.on("DELETE", `${uploads}/up_9`, () => ({ status: 404, body: envelope("artifact_missing", "no such upload") }));
    const err = await rejectionOf(client.abandonUpload("up_9"));
    expect(err).toBeInstanceOf(HostApiError);
    expect((err as HostApiError).code).toBe("artifact_missing");
    host.on("DELETE", `${uploads}/up_9`, () => ({ status: 204 }));
    await client.abandonUpload("up_9");
    expect(host.calls.at(-1)!.headers["idempotency-key"]).toMatch(/^takoform-/);
  });
});

describe("support profiles", () => {
  const profile = (fields: Record<string, unknown>) => ({ apiVersion: SUPPORT_API_VERSION, kind: "FormSupport", operations: ["create"], ...fields });
  const formPath = `${API_ROOT}/support/forms/edge.takoform-cdk.dev/v1alpha1/AtLeastOnceQueue/0.1.0`;

  it("TestGetFormSupportSplitsTheGroupIntoTwoPathSegments", async () => {
    host.on("GET", formPath, () => ({ status: 200, body: profile({ formRef: { ...REF } }) }));
    await client.getFormSupport(REF);
    expect(host.calls[0]!.url).toBe(formPath);
  });

  it("TestGetFormSupportAcceptsAProfileWithoutASchemaDigest", async () => {
    const { schemaDigest: _omit, ...line } = REF;
    host.on("GET", formPath, () => ({ status: 200, body: profile({ formRef: line, limits: { maximumQueues: 3 } }) }));
    expect(((await client.getFormSupport(REF)) as { limits?: Record<string, number> }).limits).toEqual({ maximumQueues: 3 });
  });

  it("TestGetFormSupportRejectsADifferentExactSchemaDigest", async () => {
    host.on("GET", formPath, () => ({ status: 200, body: profile({ formRef: { ...REF, schemaDigest: `sha256:${"e".repeat(64)}` } }) }));
    expect((await rejectionOf(client.getFormSupport(REF))).message).toContain("names a different exact Form schemaDigest");
  });

  it("TestGetFormSupportRejectsSubstitutedLine", async () => {
    for (const change of [{ kind: "QueueConsumer" }, { definitionVersion: "0.2.0" }, { apiVersion: "other.takoform-cdk.dev/v1alpha1" }]) {
      host.on("GET", formPath, () => ({ status: 200, body: profile({ formRef: { ...REF, ...change } }) }));
      expect((await rejectionOf(client.getFormSupport(REF))).message).toContain("names a different FormRef line");
    }
    host.on("GET", formPath, () => ({ status: 200, body: { ...profile({}), kind: "BindingSupport" } }));
    expect((await rejectionOf(client.getFormSupport(REF))).message).toContain("not a FormSupport");
  });

  it("TestListFormSupport", async () => {
    host.on("GET", `${API_ROOT}/support/forms`, () => ({ status: 200, body: { profiles: [profile({ formRef: REF })] } }));
    expect(await client.listFormSupport()).toHaveLength(1);
    host.on("GET", `${API_ROOT}/support/forms`, () => ({ status: 200, body: { profiles: [{ ...profile({}), apiVersion: "support.takoform.com/v1" }] } }));
    expect(await rejectionOf(client.listFormSupport())).toBeInstanceOf(ProtocolInvalidError);
  });

  it("interface and binding profiles must name the requested contract", async () => {
    host.on("GET", `${API_ROOT}/support/interfaces/edge.kv/1.0.0`, () => ({
      status: 200,
      body: { apiVersion: SUPPORT_API_VERSION, kind: "InterfaceSupport", interfaceRef: { name: "edge.kv", version: "1.0.0" } },
    }));
    await client.getInterfaceSupport("edge.kv", "1.0.0");
    host.on("GET", `${API_ROOT}/support/bindings/module-worker.edge-kv/1.0.0`, () => ({
      status: 200,
      body: { apiVersion: SUPPORT_API_VERSION, kind: "BindingSupport", bindingRef: { name: "module-worker.edge-sql", version: "1.0.0" } },
    }));
    expect((await rejectionOf(client.getBindingSupport("module-worker.edge-kv", "1.0.0"))).message).toContain("does not name module-worker.edge-kv@1.0.0");
  });
});
