// Content-addressed artifact upload (reference provider §5.6, §7.4; host API §2.13): start an
// upload session for a manifest, PUT only the blobs the host reports missing (each verified
// locally before anything is sent), commit, and require the committed digest to be ours.

import { digestBytes, digestCanonical, type JsonValue } from "../forms/index.ts";
import { goJson, goStruct, isDigest, UPLOAD_ID } from "../core/index.ts";
import { type CallOptions, expectEmptyBody, expectStatus, type HostConnection, utf8, type WireCall } from "./connection.ts";
import { AcceptedError, ClientInputError } from "./errors.ts";
import { abandonKey, commitKey, uploadStartKey } from "./keys.ts";
import { buildWorkerBundleManifest, type BundleModule, type WorkerBundleManifest } from "./manifest.ts";
import { operationError } from "./operation-shape.ts";
import { settleAccepted } from "./operations.ts";
import { sendWrite } from "./resource-writes.ts";
import { segments } from "./paths.ts";
import { child, isJsonObject, type JsonObject, type WireReader } from "./wire-reader.ts";

export interface ArtifactOptions extends CallOptions {
  idempotencyScope?: string;
  /** Blob PUTs in flight at once (default 4). */
  blobConcurrency?: number;
}

export interface UploadResult {
  manifestDigest: string;
  uploadId: string;
  /** Digests actually sent (the host's missing set). */
  uploaded: string[];
}

interface DeclaredBlob {
  digest: string;
  size: number;
}

/** The RFC 8785 digest of a caller's manifest; a value JSON cannot carry is the caller's error. */
function manifestDigestOf(manifest: JsonObject): string {
  try {
    return digestCanonical(manifest);
  } catch (err) {
    throw new ClientInputError(`takoform: the manifest is not a JSON document: ${(err as Error).message}`);
  }
}

/** The blobs a manifest declares (modules[] or files[]), by digest. */
function declaredBlobs(manifest: JsonObject): Map<string, DeclaredBlob> {
  const out = new Map<string, DeclaredBlob>();
  for (const listName of ["modules", "files"]) {
    const list = manifest[listName];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new ClientInputError(`takoform: manifest ${listName} must be an array`);
    for (const entry of list) {
      if (
        !isJsonObject(entry) ||
        !isDigest(entry["digest"]) ||
        typeof entry["size"] !== "number" ||
        !Number.isSafeInteger(entry["size"]) ||
        entry["size"] < 0
      ) {
        throw new ClientInputError(`takoform: every manifest ${listName} entry needs a sha256 digest and a byte size`);
      }
      const prior = out.get(entry["digest"]);
      if (prior && prior.size !== entry["size"]) throw new ClientInputError(`takoform: manifest declares ${entry["digest"]} with two sizes`);
      out.set(entry["digest"], { digest: entry["digest"], size: entry["size"] });
    }
  }
  return out;
}

function readUploadId(r: WireReader, value: JsonValue | undefined, pointer: string): string {
  return r.string(value, pointer, (s) => UPLOAD_ID.test(s), "an upload id");
}

function readCommitted(r: WireReader, value: JsonValue | undefined, pointer: string, expected: string): string {
  const doc = r.object(value, pointer, ["manifestDigest"]);
  const got = r.string(doc["manifestDigest"], child(pointer, "manifestDigest"), isDigest, "a sha256 digest");
  if (got !== expected) r.refuse(`host committed manifest ${got}, not the local manifest ${expected}`);
  return got;
}

async function inBatches<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(Math.max(1, limit), items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(workers);
}

/** `POST {api}/artifacts/uploads`, keyed freshly per invocation. */
export async function startUpload(
  conn: HostConnection,
  manifest: JsonObject,
  opts: ArtifactOptions = {},
): Promise<{ uploadId: string; missingBlobs: string[] }> {
  const manifestDigest = manifestDigestOf(manifest);
  const declared = declaredBlobs(manifest);
  const call: WireCall = {
    call: `upload start ${manifestDigest}`,
    method: "POST",
    path: `${conn.apiPath}/artifacts/uploads`,
    headers: { "Idempotency-Key": uploadStartKey(manifestDigest, opts.idempotencyScope) },
    body: utf8(goJson(goStruct([["manifest", manifest]]))),
  };
  const response = await conn.send(call, opts);
  expectStatus(call, response, [200, 201]);
  const r = conn.reader(call, response.status);
  const doc = r.object(r.json(response.body), "", ["uploadId", "missingBlobs"]);
  const uploadId = readUploadId(r, doc["uploadId"], "/uploadId");
  const missing = r.array(doc["missingBlobs"], "/missingBlobs");
  const seen = new Set<string>();
  missing.forEach((d, i) => {
    const digest = r.string(d, child("/missingBlobs", i), isDigest, "a sha256 digest");
    if (seen.has(digest)) r.fail(child("/missingBlobs", i), `lists ${digest} twice`);
    if (!declared.has(digest)) r.fail(child("/missingBlobs", i), `asks for ${digest}, which the manifest does not declare`);
    seen.add(digest);
  });
  return { uploadId, missingBlobs: [...seen] };
}

/** `PUT {api}/artifacts/uploads/{uploadId}/blobs/{digest}`: no key, but content-addressed, so safe to send twice. */
export async function putBlob(conn: HostConnection, uploadId: string, digest: string, bytes: Uint8Array, opts: CallOptions = {}): Promise<void> {
  if (!UPLOAD_ID.test(uploadId)) throw new ClientInputError(`takoform: ${JSON.stringify(uploadId)} is not an upload id (up_…)`);
  if (digestBytes(bytes) !== digest) throw new ClientInputError(`takoform: local bytes do not match blob ${digest}; nothing was sent`);
  const call: WireCall = {
    call: `upload blob ${digest}`,
    method: "PUT",
    path: `${conn.apiPath}/artifacts/uploads/${segments(uploadId)}/blobs/${segments(digest)}`,
    body: bytes,
    contentType: "application/octet-stream",
    idempotent: true,
  };
  const response = await conn.send(call, opts);
  expectStatus(call, response, [201, 204]);
  if (response.status === 204) expectEmptyBody(call, response);
}

/** `POST …/{uploadId}/commit`; a 202 is polled. The committed digest must equal the local one. */
export async function commitUpload(conn: HostConnection, uploadId: string, manifestDigest: string, opts: ArtifactOptions = {}): Promise<string> {
  if (!UPLOAD_ID.test(uploadId)) throw new ClientInputError(`takoform: ${JSON.stringify(uploadId)} is not an upload id (up_…)`);
  const call: WireCall = {
    call: `commit upload ${uploadId}`,
    method: "POST",
    path: `${conn.apiPath}/artifacts/uploads/${segments(uploadId)}/commit`,
    headers: { "Idempotency-Key": commitKey(uploadId, manifestDigest, opts.idempotencyScope) },
  };
  const response = await sendWrite(conn, call, opts);
  if (response.status !== 202) {
    try {
      expectStatus(call, response, [200, 201]);
      const r = conn.reader(call, response.status);
      return readCommitted(r, r.json(response.body), "", manifestDigest);
    } catch (err) {
      throw new AcceptedError(err as Error);
    }
  }
  const { id, terminal } = await settleAccepted(conn, call, response, opts);
  try {
    if (terminal.error) throw operationError(terminal, call.call, "operation", conn.redact);
    return readCommitted(conn.reader(`${call.call} (operation ${id} result)`, 200), terminal.result as JsonValue | undefined, "/result", manifestDigest);
  } catch (err) {
    throw new AcceptedError(err as Error, id);
  }
}

/** `DELETE {api}/artifacts/uploads/{uploadId}`: releases an unfinished session. */
export async function abandonUpload(conn: HostConnection, uploadId: string, opts: ArtifactOptions = {}): Promise<void> {
  if (typeof uploadId !== "string" || !UPLOAD_ID.test(uploadId)) {
    throw new ClientInputError(`takoform: ${JSON.stringify(uploadId)} is not an upload id (up_…)`);
  }
  const call: WireCall = {
    call: `abandon upload ${uploadId}`,
    method: "DELETE",
    path: `${conn.apiPath}/artifacts/uploads/${segments(uploadId)}`,
    headers: { "Idempotency-Key": abandonKey(uploadId, opts.idempotencyScope) },
  };
  const response = await conn.send(call, opts);
  expectStatus(call, response, [204]);
  expectEmptyBody(call, response);
}

/** `HEAD {api}/artifacts/blobs/{digest}`: true when the caller's tenant holds the blob. */
export async function headBlob(conn: HostConnection, digest: string, opts: CallOptions = {}): Promise<boolean> {
  if (!isDigest(digest)) throw new ClientInputError(`takoform: ${JSON.stringify(digest)} is not a sha256 digest`);
  const call: WireCall = { call: `probe blob ${digest}`, method: "HEAD", path: `${conn.apiPath}/artifacts/blobs/${segments(digest)}` };
  try {
    const response = await conn.send(call, opts);
    expectStatus(call, response, [200]);
    return true;
  } catch (err) {
    // A HEAD answer has no body, so absence is the bare status.
    if ((err as { status?: number }).status === 404) return false;
    throw err;
  }
}

/** `GET {api}/artifacts/{digest}`: the manifest, whose RFC 8785 digest must be the one asked for. */
export async function getArtifactManifest(conn: HostConnection, digest: string, opts: CallOptions = {}): Promise<JsonObject> {
  if (!isDigest(digest)) throw new ClientInputError(`takoform: ${JSON.stringify(digest)} is not a sha256 digest`);
  const call: WireCall = { call: `read manifest ${digest}`, method: "GET", path: `${conn.apiPath}/artifacts/${segments(digest)}` };
  const response = await conn.send(call, opts);
  expectStatus(call, response, [200]);
  const r = conn.reader(call, response.status);
  const manifest = r.freeObject(r.json(response.body), "");
  const actual = digestCanonical(manifest);
  if (actual !== digest) r.refuse(`host returned a manifest whose content address is ${actual}, not the requested ${digest}`);
  return manifest;
}

/**
 * The whole upload: every declared blob is checked against its digest and size before any
 * traffic, then start → PUT the missing blobs → commit.
 */
export async function uploadArtifact(
  conn: HostConnection,
  manifest: JsonObject,
  blobs: ReadonlyMap<string, Uint8Array>,
  opts: ArtifactOptions = {},
): Promise<UploadResult> {
  const manifestDigest = manifestDigestOf(manifest);
  for (const { digest, size } of declaredBlobs(manifest).values()) {
    const bytes = blobs.get(digest);
    if (!bytes) throw new ClientInputError(`takoform: no local bytes for blob ${digest}; nothing was sent`);
    if (bytes.byteLength !== size || digestBytes(bytes) !== digest) {
      throw new ClientInputError(`takoform: local bytes do not match blob ${digest} (size ${size}); nothing was sent`);
    }
  }
  const { uploadId, missingBlobs } = await startUpload(conn, manifest, opts);
  await inBatches(missingBlobs, opts.blobConcurrency ?? 4, (digest) => putBlob(conn, uploadId, digest, blobs.get(digest)!, opts));
  const committed = await commitUpload(conn, uploadId, manifestDigest, opts);
  return { manifestDigest: committed, uploadId, uploaded: missingBlobs };
}

/** Builds the WorkerBundle manifest from module bytes and uploads it. */
export async function uploadWorkerBundle(
  conn: HostConnection,
  input: { mainModule: string; modules: readonly BundleModule[] },
  opts: ArtifactOptions = {},
): Promise<UploadResult & { manifest: WorkerBundleManifest }> {
  const built = buildWorkerBundleManifest(input);
  const result = await uploadArtifact(conn, built.manifest as unknown as JsonObject, built.blobs, opts);
  return { ...result, manifest: built.manifest };
}
