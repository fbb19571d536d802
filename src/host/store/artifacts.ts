// Typed access to artifact storage: blob bytes (stored once), per-tenant holding of blobs and
// manifests, and upload sessions bound to (tenant, principal).

import type { Db } from "./db.ts";

export interface UploadSession {
  id: string;
  tenant: string;
  principal: string;
  /** The canonical manifest text the session was opened with. */
  manifest: string;
  manifestDigest: string;
  state: "open" | "committed";
  createdAt: number;
}

export class ArtifactStore {
  private readonly blobSizeStmt;
  private readonly blobPutStmt;
  private readonly blobGetStmt;
  private readonly holdsBlobStmt;
  private readonly holdBlobStmt;
  private readonly manifestStmt;
  private readonly holdManifestStmt;
  private readonly uploadGetStmt;
  private readonly uploadPutStmt;
  private readonly uploadStateStmt;
  private readonly uploadDeleteStmt;

  constructor(db: Db) {
    this.blobSizeStmt = db.prepare("SELECT size FROM blobs WHERE digest = ?").pluck();
    this.blobPutStmt = db.prepare("INSERT OR IGNORE INTO blobs (digest, size, bytes) VALUES (?, ?, ?)");
    this.blobGetStmt = db.prepare("SELECT bytes FROM blobs WHERE digest = ?").pluck();
    this.holdsBlobStmt = db.prepare("SELECT 1 FROM blob_holders WHERE tenant = ? AND digest = ?").pluck();
    this.holdBlobStmt = db.prepare("INSERT OR IGNORE INTO blob_holders (tenant, digest) VALUES (?, ?)");
    this.manifestStmt = db.prepare("SELECT manifest FROM manifests WHERE tenant = ? AND digest = ?").pluck();
    this.holdManifestStmt = db.prepare("INSERT OR IGNORE INTO manifests (tenant, digest, manifest) VALUES (?, ?, ?)");
    this.uploadGetStmt = db.prepare("SELECT * FROM uploads WHERE id = ?");
    this.uploadPutStmt = db.prepare(
      "INSERT INTO uploads (id, tenant, principal, manifest, manifest_digest, state, created_at) VALUES (@id, @tenant, @principal, @manifest, @manifestDigest, @state, @createdAt)",
    );
    this.uploadStateStmt = db.prepare("UPDATE uploads SET state = ? WHERE id = ?");
    this.uploadDeleteStmt = db.prepare("DELETE FROM uploads WHERE id = ?");
  }

  /** The stored size of a blob's bytes, whoever uploaded them. */
  blobSize(digest: string): number | undefined {
    return this.blobSizeStmt.get(digest) as number | undefined;
  }

  blobBytes(digest: string): Uint8Array | undefined {
    return this.blobGetStmt.get(digest) as Buffer | undefined;
  }

  /** Stores bytes (once) and records that `tenant` holds them. True when the tenant newly holds them. */
  putBlob(tenant: string, digest: string, bytes: Uint8Array): boolean {
    this.blobPutStmt.run(digest, bytes.byteLength, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return this.holdBlobStmt.run(tenant, digest).changes === 1;
  }

  holdsBlob(tenant: string, digest: string): boolean {
    return this.holdsBlobStmt.get(tenant, digest) !== undefined;
  }

  holdBlob(tenant: string, digest: string): void {
    this.holdBlobStmt.run(tenant, digest);
  }

  manifest(tenant: string, digest: string): string | undefined {
    return this.manifestStmt.get(tenant, digest) as string | undefined;
  }

  /** True when the tenant newly holds the manifest. */
  holdManifest(tenant: string, digest: string, manifest: string): boolean {
    return this.holdManifestStmt.run(tenant, digest, manifest).changes === 1;
  }

  upload(id: string): UploadSession | undefined {
    const row = this.uploadGetStmt.get(id) as
      { id: string; tenant: string; principal: string; manifest: string; manifest_digest: string; state: "open" | "committed"; created_at: number } | undefined;
    if (row === undefined) return undefined;
    return {
      id: row.id,
      tenant: row.tenant,
      principal: row.principal,
      manifest: row.manifest,
      manifestDigest: row.manifest_digest,
      state: row.state,
      createdAt: row.created_at,
    };
  }

  putUpload(session: UploadSession): void {
    this.uploadPutStmt.run(session);
  }

  setUploadState(id: string, state: UploadSession["state"]): void {
    this.uploadStateStmt.run(state, id);
  }

  deleteUpload(id: string): void {
    this.uploadDeleteStmt.run(id);
  }
}
