// Happy paths and flows of the client against the real embedded local host over loopback HTTP.
// A recording wrapper around the default transport lets the tests look at the exact bytes sent
// and received; it changes nothing on the wire.

import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostClient } from "../../src/client/client.ts";
import { AcceptedError, DiscoveryError, HostApiError, OperationDeadlineError, hostErrorOf, isResourceNotFound } from "../../src/client/errors.ts";
import { incarnationKey } from "../../src/client/keys.ts";
import type { WriteIntentRecord } from "../../src/client/resource-writes.ts";
import {
  createNodeTransport,
  inProcessTransport,
  type HostTransport,
  type HostTransportRequest,
  type HostTransportResponse,
} from "../../src/client/transport.ts";
import { type FormRef } from "../../src/core/protocol.ts";
import { API_ROOT } from "./fixtures/lane.ts";
import { digestCanonical, sha256Hex } from "../../src/forms/digest.ts";
import { LocalHost } from "../../src/host/local-host.ts";

const TOKEN = "takoform-dev-token";
const SPACE = "default";

function formRef(dir: string): FormRef {
  const def = JSON.parse(readFileSync(new URL(`../../registry/packages/forms/${dir}/definition.json`, import.meta.url), "utf8"));
  return { apiVersion: def.apiVersion, kind: def.kind, definitionVersion: def.definitionVersion, schemaDigest: digestCanonical(def) };
}

const QUEUE = formRef("edge/v1beta1/at-least-once-queue");
const BUNDLE = formRef("edge/v1beta1/worker-bundle");
const MODULE_WORKER = formRef("edge/v1beta1/module-worker");

interface Exchange {
  request: HostTransportRequest;
  response: HostTransportResponse;
}

function recording(inner: HostTransport): { transport: HostTransport; log: Exchange[] } {
  const log: Exchange[] = [];
  const transport: HostTransport = async (request) => {
    const response = await inner(request);
    log.push({ request, response });
    return response;
  };
  return { transport, log };
}

const text = (b: Uint8Array | undefined) => (b === undefined ? "" : Buffer.from(b).toString("utf8"));
const pathOf = (e: Exchange) => new URL(e.request.url).pathname;
const queryOf = (e: Exchange) => new URL(e.request.url).search;

interface Rig {
  host: LocalHost;
  url: string;
  client: HostClient;
  log: Exchange[];
  close(): Promise<void>;
}

async function rig(options: Parameters<typeof LocalHost.open>[0] = {}): Promise<Rig> {
  const host = await LocalHost.open({ data: ":memory:", ...options });
  const { url } = await host.listen("127.0.0.1", 0);
  const node = createNodeTransport();
  const { transport, log } = recording(node);
  const client = await HostClient.connect({ endpoint: url, token: TOKEN, transport });
  return {
    host,
    url,
    client,
    log,
    async close() {
      client.close();
      node.close();
      await host.close();
    },
  };
}

describe("against the local host (synchronous answers)", () => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig();
  });
  afterAll(async () => {
    await r.close();
  });

  it("TestDiscoverNegotiatesV1alpha3 against the real host", () => {
    expect(r.client.lane.apiPath).toBe(API_ROOT);
    expect(r.client.lane.origin.origin).toBe(r.url);
  });

  it("TestApplyResourceCreateHappyPath: availability with group+space, unfenced prepare, PUT with If-None-Match: *", async () => {
    const before = r.log.length;
    const result = await r.client.applyResource({ ref: QUEUE, name: "create-happy", space: SPACE, spec: { messageRetentionSeconds: 600 } });
    expect(result.status).toBe(201);
    expect(result.resource.metadata).toMatchObject({ name: "create-happy", space: SPACE, generation: "1", revision: "1" });
    const [availability, prepare, put] = r.log.slice(before);
    expect(pathOf(availability!)).toBe(`${API_ROOT}/forms`);
    const query = new URLSearchParams(queryOf(availability!));
    expect(query.get("group")).toBe(QUEUE.apiVersion);
    expect(query.get("space")).toBe(SPACE);
    expect(query.has("apiVersion")).toBe(false);
    expect(query.has("packageDigest")).toBe(false);
    expect(prepare!.request.headers["Takoform-Expected-Generation"]).toBeUndefined();
    expect(put!.request.method).toBe("PUT");
    expect(put!.request.headers["If-None-Match"]).toBe("*");
    expect(put!.request.headers["Takoform-Expected-Generation"]).toBeUndefined();
    const body = JSON.parse(text(put!.request.body));
    expect(body.review.prepareDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(body.expectedGeneration).toBeUndefined();
    expect(body.expectedUid).toBeUndefined();
    expect(body.form).toEqual({ formRef: QUEUE });
    expect(put!.request.headers["Idempotency-Key"]).toBe(incarnationKey("apply", QUEUE, "create-happy", SPACE, "", "", sha256Hex(put!.request.body!)));
  });

  it("accepts the host's materialized defaults: an omitted default comes back filled in", async () => {
    const result = await r.client.applyResource({ ref: QUEUE, name: "materialized", space: SPACE, spec: { messageRetentionSeconds: 600 } });
    expect(result.resource.spec).toEqual({ messageRetentionSeconds: 600, deliveryDelaySeconds: 0 });
    const prepared = await r.client.prepareResource({ ref: QUEUE, name: "materialized-2", space: SPACE, spec: { messageRetentionSeconds: 60 } });
    expect(prepared.resource.spec).toEqual({ messageRetentionSeconds: 60, deliveryDelaySeconds: 0 });
    expect(prepared.review.specDigest).toBe(digestCanonical({ messageRetentionSeconds: 60, deliveryDelaySeconds: 0 }));
  });

  it("TestV3UpdateCarriesGenerationAndUIDFence: header fence, no If-None-Match, body expectedUid; generation and revision 2", async () => {
    const created = await r.client.applyResource({ ref: QUEUE, name: "update-fence", space: SPACE, spec: { messageRetentionSeconds: 600 } });
    const before = r.log.length;
    const updated = await r.client.applyResource(
      { ref: QUEUE, name: "update-fence", space: SPACE, spec: { messageRetentionSeconds: 900 } },
      { expectedGeneration: "1", expectedUid: created.resource.metadata.uid },
    );
    expect(updated.status).toBe(200);
    expect(updated.resource.metadata).toMatchObject({ uid: created.resource.metadata.uid, generation: "2", revision: "2" });
    const exchanges = r.log.slice(before);
    expect(new URLSearchParams(queryOf(exchanges[0]!)).get("group")).toBe(QUEUE.apiVersion);
    expect(exchanges[1]!.request.headers["Takoform-Expected-Generation"]).toBe("1");
    const put = exchanges[2]!;
    expect(put.request.headers["Takoform-Expected-Generation"]).toBe("1");
    expect(put.request.headers["If-None-Match"]).toBeUndefined();
    expect(JSON.parse(text(put.request.body))).toMatchObject({ expectedUid: created.resource.metadata.uid, expectedGeneration: "1" });
  });

  it("TestApplyResourceStaleGenerationConflict against the host: a plain (not accepted) generation_conflict", async () => {
    await r.client.applyResource({ ref: QUEUE, name: "stale", space: SPACE, spec: { messageRetentionSeconds: 600 } });
    await r.client.applyResource({ ref: QUEUE, name: "stale", space: SPACE, spec: { messageRetentionSeconds: 700 } }, { expectedGeneration: "1" });
    const err = await r.client
      .applyResource({ ref: QUEUE, name: "stale", space: SPACE, spec: { messageRetentionSeconds: 800 } }, { expectedGeneration: "1" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HostApiError);
    expect([(err as HostApiError).code, (err as HostApiError).status, (err as HostApiError).retryable]).toEqual(["generation_conflict", 412, false]);
    // A create on the taken name is refused before acceptance too (the host's prepare needs a fence).
    const create = await r.client.applyResource({ ref: QUEUE, name: "stale", space: SPACE, spec: { messageRetentionSeconds: 600 } }).catch((e: unknown) => e);
    expect(create).toBeInstanceOf(HostApiError);
    expect(create).not.toBeInstanceOf(AcceptedError);
  });

  it("TestGetResourceCapturesRevisionETag / TestGetResourceNotFound", async () => {
    await r.client.applyResource({ ref: QUEUE, name: "readable", space: SPACE, spec: { messageRetentionSeconds: 600 } });
    const before = r.log.length;
    const read = await r.client.getResource(SPACE, QUEUE, "readable");
    expect(read.metadata.revision).toBe("1");
    expect(r.log[before]!.response.headers["etag"]).toBe('"1"');
    const missing = await r.client.getResource(SPACE, QUEUE, "never-created").catch((e: unknown) => e);
    expect(isResourceNotFound(missing)).toBe(true);
  });

  it("TestObserveResourceHonorsFence against the host", async () => {
    const created = await r.client.applyResource({ ref: QUEUE, name: "observed", space: SPACE, spec: { messageRetentionSeconds: 600 } });
    const { uid } = created.resource.metadata;
    const observed = await r.client.observeResource(SPACE, QUEUE, "observed", { uid, generation: "1" });
    expect(observed.resource.metadata.generation).toBe("1");
    const stale = await r.client.observeResource(SPACE, QUEUE, "observed", { uid, generation: "2" }).catch((e: unknown) => e);
    expect((stale as HostApiError).code).toBe("generation_conflict");
  });

  it("delete: 204, the same delete retried replays, and a re-created incarnation gets its own key", async () => {
    const first = await r.client.applyResource({ ref: QUEUE, name: "deleted", space: SPACE, spec: { messageRetentionSeconds: 600 } });
    const fence = { uid: first.resource.metadata.uid, generation: "1" };
    expect(await r.client.deleteResource(SPACE, QUEUE, "deleted", fence)).toEqual({ status: 204 });
    expect(isResourceNotFound(await r.client.getResource(SPACE, QUEUE, "deleted").catch((e: unknown) => e))).toBe(true);
    // TestDeleteKeyStillReplaysTheSameDeleteRetried: the recorded 204 is replayed, not re-executed.
    expect(await r.client.deleteResource(SPACE, QUEUE, "deleted", fence)).toEqual({ status: 204 });
    // TestDeleteKeyDistinguishesTwoIncarnationsOfOneName: a new incarnation at generation 1 is really deleted.
    const second = await r.client.applyResource({ ref: QUEUE, name: "deleted", space: SPACE, spec: { messageRetentionSeconds: 600 } });
    expect(second.resource.metadata.uid).not.toBe(first.resource.metadata.uid);
    await r.client.deleteResource(SPACE, QUEUE, "deleted", { uid: second.resource.metadata.uid, generation: "1" });
    expect(isResourceNotFound(await r.client.getResource(SPACE, QUEUE, "deleted").catch((e: unknown) => e))).toBe(true);
  });

  it("import: a new adoption is created under the exact ref", async () => {
    const adopted = await r.client.importResource({
      ref: QUEUE,
      name: "adopted",
      space: SPACE,
      spec: { messageRetentionSeconds: 600 },
      nativeId: "native-queue-1",
    });
    expect(adopted.status).toBe(201);
    expect(adopted.resource.metadata.generation).toBe("1");
  });

  it("validate and the Form Definition", async () => {
    const invalid = await r.client.validateResource({ ref: QUEUE, name: "v", space: SPACE, spec: { messageRetentionSeconds: 1 } });
    expect(invalid.valid).toBe(false);
    expect(invalid.diagnostics.length).toBeGreaterThan(0);
    expect((await r.client.validateResource({ ref: QUEUE, name: "v", space: SPACE, spec: { messageRetentionSeconds: 60 } })).valid).toBe(true);
    const definition = await r.client.getFormDefinition(SPACE, QUEUE);
    expect(definition.identity.formRef).toEqual(QUEUE);
    expect(definition.desiredSchema["required"]).toEqual(["messageRetentionSeconds"]);
    const unknown = await r.client.getFormDefinition(SPACE, { ...QUEUE, definitionVersion: "9.9.9" }).catch((e: unknown) => e);
    expect((unknown as HostApiError).code).toBe("form_unknown");
  });

  it("TestUploadArtifactFlowAndCommitIdempotency, TestHeadBlobPresenceProbe, TestGetArtifactManifestVerifiesContentAddress", async () => {
    const utf8 = (s: string) => new TextEncoder().encode(s);
    const modules = [
      { name: "index.js", mediaType: "application/javascript+module", bytes: utf8(`export default { fetch() { return new Response("${Date.now()}") } }`) },
      { name: "util.js", mediaType: "application/javascript+module", bytes: utf8("export const one = 1;") },
    ];
    const digests = modules.map((m) => `sha256:${sha256Hex(m.bytes)}`);
    expect(await r.client.headBlob(digests[0]!)).toBe(false);
    const first = await r.client.uploadWorkerBundle({ mainModule: "index.js", modules });
    expect(first.uploaded.sort()).toEqual([...digests].sort());
    const second = await r.client.uploadWorkerBundle({ mainModule: "index.js", modules });
    expect(second.uploaded).toEqual([]);
    expect(second.manifestDigest).toBe(first.manifestDigest);
    expect(await r.client.headBlob(digests[0]!)).toBe(true);
    expect(await r.client.getArtifactManifest(first.manifestDigest)).toEqual(first.manifest);
    const bundle = await r.client.applyResource({ ref: BUNDLE, name: "bundle-a", space: SPACE, spec: { manifestDigest: first.manifestDigest } });
    expect(bundle.resource.spec).toEqual({ manifestDigest: first.manifestDigest });
  });

  it("TestAbandonUploadReleasesTheSession", async () => {
    const modules = [{ name: "main.js", mediaType: "application/javascript+module", bytes: new TextEncoder().encode(`export default 1; // ${Math.random()}`) }];
    const { manifest } = await import("../../src/client/manifest.ts").then((m) => m.buildWorkerBundleManifest({ mainModule: "main.js", modules }));
    const { uploadId } = await r.client.startUpload(manifest as never);
    await r.client.abandonUpload(uploadId);
    const after = await r.client.commitUpload(uploadId, digestCanonical(manifest as never)).catch((e: unknown) => e);
    expect((after as HostApiError).code).toBe("artifact_missing");
    // The same abandon retried is idempotent (its key replays), while another session id is unknown.
    await r.client.abandonUpload(uploadId);
    expect((await r.client.abandonUpload("up_never").catch((e: unknown) => e)) as HostApiError).toMatchObject({ code: "artifact_missing" });
  });

  it("support profiles: list, the exact Form, an Interface and a Binding", async () => {
    const profiles = await r.client.listFormSupport();
    expect(profiles.length).toBeGreaterThan(0);
    const queue = await r.client.getFormSupport(QUEUE);
    expect(queue.kind).toBe("FormSupport");
    const runtime = await r.client.getInterfaceSupport("worker.runtime", "1.0.0");
    expect(runtime.interfaceRef?.name).toBe("worker.runtime");
    const binding = await r.client.getBindingSupport("module-worker.edge-kv", "1.0.0");
    expect(binding.bindingRef?.name).toBe("module-worker.edge-kv");
    expect((await r.client.getFormSupport({ ...MODULE_WORKER, definitionVersion: "7.7.7" }).catch((e: unknown) => e)) as HostApiError).toMatchObject({
      code: "form_unknown",
    });
  });

  it("resend replays a committed write byte-identically and executes one that never arrived", async () => {
    const intents: WriteIntentRecord[] = [];
    const created = await r.client.applyResource(
      { ref: QUEUE, name: "resent", space: SPACE, spec: { messageRetentionSeconds: 600 } },
      {},
      { onIntent: (i) => void intents.push(i) },
    );
    const original = r.log.at(-1)!;
    const replay = await r.client.resend(intents[0]!.request, { kind: "apply", ref: QUEUE, name: "resent", space: SPACE });
    const replayed = r.log.at(-1)!;
    expect(replay.resource).toEqual(created.resource);
    expect(replayed.response.status).toBe(original.response.status);
    expect(text(replayed.response.body)).toBe(text(original.response.body));
    expect(replayed.request.headers["Idempotency-Key"]).toBe(intents[0]!.idempotencyKey);
    expect(replayed.request.headers["Authorization"]).toBe(`Bearer ${TOKEN}`);

    // A crash after recording the intent and before sending: the resend performs the delete.
    const lost: WriteIntentRecord[] = [];
    const crashed = await r.client
      .deleteResource(
        SPACE,
        QUEUE,
        "resent",
        { uid: created.resource.metadata.uid, generation: "1" },
        {
          onIntent: (i) => {
            lost.push(i);
            throw new Error("simulated crash");
          },
        },
      )
      .catch((e: unknown) => e);
    expect((crashed as Error).message).toBe("simulated crash");
    expect((await r.client.getResource(SPACE, QUEUE, "resent")).metadata.uid).toBe(created.resource.metadata.uid);
    expect(await r.client.resend(lost[0]!.request, { kind: "delete", ref: QUEUE, name: "resent", space: SPACE })).toEqual({ status: 204 });
    expect(isResourceNotFound(await r.client.getResource(SPACE, QUEUE, "resent").catch((e: unknown) => e))).toBe(true);
    // And a second resend replays the recorded 204.
    expect(await r.client.resend(lost[0]!.request, { kind: "delete", ref: QUEUE, name: "resent", space: SPACE })).toEqual({ status: 204 });
  });

  it("idempotency scopes give deliberate repeats of one write distinct keys", async () => {
    await r.client.applyResource({ ref: QUEUE, name: "scoped", space: SPACE, spec: { messageRetentionSeconds: 600 } });
    const keys: string[] = [];
    for (const scope of ["settle:1", "settle:2"]) {
      const current = await r.client.getResource(SPACE, QUEUE, "scoped");
      await r.client.applyResource(
        { ref: QUEUE, name: "scoped", space: SPACE, spec: { messageRetentionSeconds: 600 } },
        { expectedGeneration: current.metadata.generation, expectedUid: current.metadata.uid },
        { idempotencyScope: scope, onIntent: (i) => void keys.push(i.idempotencyKey) },
      );
    }
    expect(new Set(keys).size).toBe(2);
  });

  it("the in-process transport reaches the same host without sockets", async () => {
    const inProcess = await HostClient.connect({ endpoint: r.url, token: TOKEN, transport: inProcessTransport((req) => r.host.handle(req)) });
    const read = await inProcess.getResource(SPACE, QUEUE, "readable");
    expect(read.metadata.name).toBe("readable");
    // The advertised endpoints follow the Host the adapter sends, so another loopback name works too.
    const byName = await HostClient.connect({
      endpoint: r.url.replace("127.0.0.1", "localhost"),
      token: TOKEN,
      transport: inProcessTransport((req) => r.host.handle(req)),
    });
    expect(byName.lane.origin.hostname).toBe("localhost");
  });

  it("an unknown token is refused at discovery with the host's typed error", async () => {
    const err = await HostClient.connect({ endpoint: r.url, token: "not-a-token-this-host-knows" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DiscoveryError);
    expect(((err as DiscoveryError).cause as HostApiError).code).toBe("unauthenticated");
  });
});

describe("against the local host (every mutation answers 202)", () => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig({ async: "always" });
  });
  afterAll(async () => {
    await r.close();
  });

  it("TestApplyResourceVia202OperationPolling: create, update and delete settle through their operations, honouring Retry-After", async () => {
    const created = await r.client.applyResource({ ref: QUEUE, name: "async-q", space: SPACE, spec: { messageRetentionSeconds: 600 } });
    expect(created.status).toBe(202);
    expect(created.operationId).toMatch(/^op_/);
    expect(created.resource.metadata.generation).toBe("1");
    const put = r.log.find((e) => e.request.method === "PUT")!;
    expect(put.response.status).toBe(202);
    expect(r.log.some((e) => pathOf(e) === `${API_ROOT}/operations/${created.operationId}`)).toBe(true);
    const updated = await r.client.applyResource(
      { ref: QUEUE, name: "async-q", space: SPACE, spec: { messageRetentionSeconds: 700 } },
      { expectedGeneration: "1", expectedUid: created.resource.metadata.uid },
    );
    expect(updated.resource.metadata.generation).toBe("2");
    const deleted = await r.client.deleteResource(SPACE, QUEUE, "async-q", { uid: created.resource.metadata.uid, generation: "2" });
    expect(deleted.status).toBe(202);
    expect(isResourceNotFound(await r.client.getResource(SPACE, QUEUE, "async-q").catch((e: unknown) => e))).toBe(true);
  });

  it("TestApplyResourceReportsAcceptanceWhenTheOperationOutlivesTheDeadline, then the operation settles", async () => {
    r.host.controls.holdNewOperations(true);
    let err: unknown;
    try {
      err = await r.client
        .applyResource({ ref: QUEUE, name: "held", space: SPACE, spec: { messageRetentionSeconds: 600 } }, {}, { deadline: Date.now() + 400 })
        .catch((e: unknown) => e);
    } finally {
      r.host.controls.holdNewOperations(false);
    }
    expect(err).toBeInstanceOf(AcceptedError);
    const accepted = err as AcceptedError;
    expect(accepted.operationId).toMatch(/^op_/);
    expect(accepted.cause).toBeInstanceOf(OperationDeadlineError);
    r.host.controls.releaseOperation(accepted.operationId!);
    const { operation, error } = await r.client.awaitOperation(accepted.operationId!, { deadline: Date.now() + 10_000 });
    expect(error).toBeUndefined();
    expect(operation.done).toBe(true);
    expect((await r.client.getResource(SPACE, QUEUE, "held")).metadata.generation).toBe("1");
  });

  it("cancel stops a held operation, which then commits nothing", async () => {
    r.host.controls.holdNewOperations(true);
    let err: unknown;
    try {
      err = await r.client
        .applyResource({ ref: QUEUE, name: "cancelled", space: SPACE, spec: { messageRetentionSeconds: 600 } }, {}, { deadline: Date.now() + 200 })
        .catch((e: unknown) => e);
    } finally {
      r.host.controls.holdNewOperations(false);
    }
    const id = (err as AcceptedError).operationId!;
    const op = await r.client.cancelOperation(id);
    expect(op.id).toBe(id);
    expect(op.error?.code).toBe("operation_cancelled");
    expect(isResourceNotFound(await r.client.getResource(SPACE, QUEUE, "cancelled").catch((e: unknown) => e))).toBe(true);
  });

  it("a terminal operation error is typed inside the AcceptedError (uid_mismatch after an out-of-band re-create)", async () => {
    const created = await r.client.applyResource({ ref: QUEUE, name: "replaced", space: SPACE, spec: { messageRetentionSeconds: 600 } });
    r.host.controls.holdNewOperations(true);
    let err: unknown;
    try {
      err = await r.client
        .applyResource(
          { ref: QUEUE, name: "replaced", space: SPACE, spec: { messageRetentionSeconds: 900 } },
          { expectedGeneration: "1", expectedUid: created.resource.metadata.uid },
          { deadline: Date.now() + 200 },
        )
        .catch((e: unknown) => e);
    } finally {
      r.host.controls.holdNewOperations(false);
    }
    const id = (err as AcceptedError).operationId!;
    r.host.controls.recreateOutOfBand({ tenant: "dev", space: SPACE, apiVersion: QUEUE.apiVersion, kind: QUEUE.kind, name: "replaced" } as never);
    r.host.controls.releaseOperation(id);
    const { error } = await r.client.awaitOperation(id, { deadline: Date.now() + 10_000 });
    expect(error?.code).toBe("uid_mismatch");
    expect(error?.status).toBe(409);
    expect(hostErrorOf(new AcceptedError(error!, id))?.code).toBe("uid_mismatch");
  });
});
