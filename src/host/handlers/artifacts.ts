// Content-addressed artifact upload (reference §2.13). Upload sessions are bound to the
// (tenant, principal) that opened them; manifests and blobs are held per tenant, so another
// caller's handle or digest answers exactly like one that never existed. Bytes are stored once
// whoever uploads them; authorization is never shared. Nothing a tenant holds is ever dropped,
// so a referenced manifest or blob stays readable for the life of the data directory.

import { isDigest } from "../../core/index.ts";
import { digestBytes } from "../../forms/index.ts";
import { SCHEMA_ONLY, validateManifest } from "../artifacts/manifest.ts";
import type { HostContext, RequestContext } from "../context.ts";
import { decodeJsonBody, expectClosed, expectObject, requireEmptyBody } from "../envelope.ts";
import { HostError, invalidArgument } from "../errors.ts";
import { idempotencyKeyHeader } from "../fences.ts";
import { emptyResponse, jsonResponse, textBytes, type HostResponse } from "../http.ts";
import { lookupReplay, recordReplay, replayScope } from "../idempotency.ts";
import { newUploadId } from "../ids.ts";
import { requireNoQuery } from "../query.ts";
import type { UploadSession } from "../store/index.ts";

/** Artifact routes carry no space; their replay records live in the "" space. */
const NO_SPACE = "";

function ownedUpload(ctx: HostContext, rc: RequestContext, id: string): UploadSession {
  const session = ctx.store.artifacts.upload(id);
  if (session === undefined || session.tenant !== rc.caller.tenant || session.principal !== rc.caller.principal) {
    throw new HostError("artifact_missing", `no upload ${id.slice(0, 140)} exists for this principal`);
  }
  return session;
}

export function handleUploadStart(ctx: HostContext, rc: RequestContext): HostResponse {
  requireNoQuery(rc.match.query, "artifact upload");
  const key = idempotencyKeyHeader(rc.headers, "artifact upload start");
  const body = expectObject(decodeJsonBody(rc.body), "");
  expectClosed(body, "", ["manifest"], ["manifest"]);
  const scope = replayScope(rc, NO_SPACE, key, ctx.settings.conformanceProbes);
  return ctx.store.transaction(() => {
    const replayed = lookupReplay(ctx, scope);
    if (replayed !== undefined) return replayed;
    const valid = validateManifest(body.manifest, ctx.artifacts);
    const missingBlobs = [...valid.blobs.keys()].filter((d) => !ctx.store.artifacts.holdsBlob(rc.caller.tenant, d));
    const uploadId = newUploadId();
    ctx.store.artifacts.putUpload({
      id: uploadId,
      tenant: rc.caller.tenant,
      principal: rc.caller.principal,
      manifest: valid.canonical,
      manifestDigest: valid.digest,
      state: "open",
      createdAt: ctx.now(),
    });
    const response = jsonResponse(201, { uploadId, missingBlobs });
    recordReplay(ctx, scope, response, {});
    return response;
  });
}

export function handleBlobUpload(ctx: HostContext, rc: RequestContext): HostResponse {
  requireNoQuery(rc.match.query, "blob upload");
  const { uploadId, digest } = rc.match.params as { uploadId: string; digest: string };
  return ctx.store.transaction(() => {
    const session = ownedUpload(ctx, rc, uploadId);
    if (session.state !== "open") throw new HostError("artifact_missing", `upload ${uploadId} was already committed; start a new upload`);
    const { blobs } = validateManifest(JSON.parse(session.manifest), SCHEMA_ONLY);
    const declared = isDigest(digest) ? blobs.get(digest) : undefined;
    if (declared === undefined) throw new HostError("artifact_invalid", `blob ${digest.slice(0, 80)} is not declared by this upload's manifest`);
    if (rc.body.byteLength !== declared) {
      throw new HostError("artifact_invalid", `blob ${digest} is declared with size ${declared}, but ${rc.body.byteLength} bytes were sent`);
    }
    const actual = digestBytes(rc.body);
    if (actual !== digest) throw new HostError("artifact_invalid", `the uploaded bytes digest to ${actual}, not the declared ${digest}`);
    const fresh = ctx.store.artifacts.putBlob(rc.caller.tenant, digest, rc.body);
    return emptyResponse(fresh ? 201 : 204);
  });
}

export function handleCommit(ctx: HostContext, rc: RequestContext): HostResponse {
  requireNoQuery(rc.match.query, "artifact commit");
  const key = idempotencyKeyHeader(rc.headers, "artifact commit");
  requireEmptyBody(rc.body, "artifact commit");
  const { uploadId } = rc.match.params as { uploadId: string };
  const scope = replayScope(rc, NO_SPACE, key, ctx.settings.conformanceProbes);
  return ctx.store.transaction(() => {
    const replayed = lookupReplay(ctx, scope);
    if (replayed !== undefined) return replayed;
    const session = ownedUpload(ctx, rc, uploadId);
    // Every manifest rule is re-verified at commit, then every declared blob against its bytes.
    const valid = validateManifest(JSON.parse(session.manifest), ctx.artifacts);
    for (const [digest, size] of valid.blobs) {
      if (!ctx.store.artifacts.holdsBlob(rc.caller.tenant, digest)) {
        throw new HostError("artifact_missing", `blob ${digest} has not been uploaded; upload it, then commit again`);
      }
      const stored = ctx.store.artifacts.blobSize(digest);
      if (stored !== size) throw new HostError("artifact_invalid", `blob ${digest} is stored with ${stored} bytes, but the manifest declares ${size}`);
    }
    const fresh = ctx.store.artifacts.holdManifest(rc.caller.tenant, valid.digest, valid.canonical);
    ctx.store.artifacts.setUploadState(uploadId, "committed");
    const response = jsonResponse(fresh ? 201 : 200, { manifestDigest: valid.digest });
    recordReplay(ctx, scope, response, {});
    return response;
  });
}

export function handleAbandon(ctx: HostContext, rc: RequestContext): HostResponse {
  requireNoQuery(rc.match.query, "artifact upload abandon");
  const key = idempotencyKeyHeader(rc.headers, "artifact upload abandon");
  requireEmptyBody(rc.body, "artifact upload abandon");
  const { uploadId } = rc.match.params as { uploadId: string };
  const scope = replayScope(rc, NO_SPACE, key, ctx.settings.conformanceProbes);
  return ctx.store.transaction(() => {
    const replayed = lookupReplay(ctx, scope);
    if (replayed !== undefined) return replayed;
    ownedUpload(ctx, rc, uploadId);
    // Abandoning a session drops the session only; bytes and manifests the tenant holds stay.
    ctx.store.artifacts.deleteUpload(uploadId);
    const response = emptyResponse(204);
    recordReplay(ctx, scope, response, {});
    return response;
  });
}

export function handleManifestRead(ctx: HostContext, rc: RequestContext): HostResponse {
  requireNoQuery(rc.match.query, "manifest read");
  requireEmptyBody(rc.body, "manifest read");
  const { manifestDigest } = rc.match.params as { manifestDigest: string };
  if (!isDigest(manifestDigest)) throw invalidArgument(`${String(manifestDigest).slice(0, 80)} is not a manifest digest (sha256:<64 hex>)`);
  const manifest = ctx.store.artifacts.manifest(rc.caller.tenant, manifestDigest);
  if (manifest === undefined) throw new HostError("artifact_missing", `no committed manifest ${manifestDigest} is held by this tenant`);
  return jsonResponse(200, textBytes(manifest));
}

export function handleBlobHead(ctx: HostContext, rc: RequestContext): HostResponse {
  requireNoQuery(rc.match.query, "blob head");
  const { digest } = rc.match.params as { digest: string };
  const held = isDigest(digest) && ctx.store.artifacts.holdsBlob(rc.caller.tenant, digest);
  return emptyResponse(held ? 200 : 404);
}
