// edge.kv@1.0.0 over the host's database: one row per (namespace incarnation, key). The limits
// and error codes are the Interface's: keys 1..512 bytes (invalid_key), values up to 25 MiB
// (value_too_large), metadata a map of strings up to 1024 bytes as JSON (metadata_too_large),
// expirationTtl 60..315360000 seconds (invalid_value), list pages of 1..1000 keys in
// lexicographic order with an opaque cursor (invalid_cursor). A missing key reads as null
// (the Interface's not_found). This store is immediately consistent, which the Interface allows
// (it promises no more than eventual consistency).

import type { Db } from "../../store/db.ts";
import { BindingError, bytesArg, optionalInteger } from "./errors.ts";

export const KV_LIMITS = { maxKeyBytes: 512, maxValueBytes: 26_214_400, maxMetadataBytes: 1024, maxListPageKeys: 1000 } as const;

export interface KvListPage {
  keys: { name: string }[];
  listComplete: boolean;
  cursor?: string;
}

function key(value: unknown): string {
  if (typeof value !== "string" || value.length === 0) throw new BindingError("invalid_key", "a KV key must be a non-empty string");
  if (Buffer.byteLength(value, "utf8") > KV_LIMITS.maxKeyBytes) throw new BindingError("invalid_key", `a KV key is at most ${KV_LIMITS.maxKeyBytes} bytes`);
  return value;
}

function metadataText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== "object" || Array.isArray(value)) throw new BindingError("invalid_value", "KV metadata must be an object of string values");
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > 64) throw new BindingError("metadata_too_large", "KV metadata has at most 64 members");
  for (const [k, v] of entries) if (typeof v !== "string") throw new BindingError("invalid_value", `KV metadata member ${JSON.stringify(k)} must be a string`);
  const text = JSON.stringify(Object.fromEntries(entries));
  if (Buffer.byteLength(text, "utf8") > KV_LIMITS.maxMetadataBytes)
    throw new BindingError("metadata_too_large", `KV metadata is at most ${KV_LIMITS.maxMetadataBytes} bytes as JSON`);
  return text;
}

export class KvStore {
  private readonly getStmt;
  private readonly putStmt;
  private readonly deleteStmt;
  private readonly listStmt;
  private readonly dropStmt;

  constructor(
    db: Db,
    private readonly now: () => number,
  ) {
    this.getStmt = db.prepare("SELECT value, metadata, expires_at FROM runtime_kv WHERE namespace_uid = ? AND key = ?");
    this.putStmt = db.prepare(
      "INSERT INTO runtime_kv (namespace_uid, key, value, metadata, expires_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (namespace_uid, key) DO UPDATE SET value = excluded.value, metadata = excluded.metadata, expires_at = excluded.expires_at",
    );
    this.deleteStmt = db.prepare("DELETE FROM runtime_kv WHERE namespace_uid = ? AND key = ?");
    this.listStmt = db.prepare(
      "SELECT key FROM runtime_kv WHERE namespace_uid = ? AND key > ? AND substr(CAST(key AS BLOB), 1, ?) = CAST(? AS BLOB) AND (expires_at IS NULL OR expires_at > ?) ORDER BY key LIMIT ?",
    );
    this.dropStmt = db.prepare("DELETE FROM runtime_kv WHERE namespace_uid = ?");
  }

  private row(namespace: string, k: string): { value: Buffer; metadata: string | null } | null {
    const row = this.getStmt.get(namespace, k) as { value: Buffer; metadata: string | null; expires_at: number | null } | undefined;
    if (row === undefined) return null;
    if (row.expires_at !== null && row.expires_at <= this.now()) {
      this.deleteStmt.run(namespace, k);
      return null;
    }
    return row;
  }

  get(namespace: string, k: unknown): Uint8Array | null {
    const row = this.row(namespace, key(k));
    return row === null ? null : new Uint8Array(row.value);
  }

  getWithMetadata(namespace: string, k: unknown): { value: Uint8Array; metadata: Record<string, string> | null } | null {
    const row = this.row(namespace, key(k));
    if (row === null) return null;
    return { value: new Uint8Array(row.value), metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, string>) };
  }

  put(namespace: string, k: unknown, value: unknown, metadata: unknown, ttl: unknown): void {
    const name = key(k);
    const bytes = bytesArg(value, "a KV value", "invalid_value");
    if (bytes.byteLength > KV_LIMITS.maxValueBytes) throw new BindingError("value_too_large", `a KV value is at most ${KV_LIMITS.maxValueBytes} bytes`);
    const meta = metadataText(metadata);
    const seconds = optionalInteger(ttl, "expirationTtl", 60, 315_360_000, "invalid_value");
    this.putStmt.run(
      namespace,
      name,
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      meta,
      seconds === null ? null : this.now() + seconds * 1000,
    );
  }

  delete(namespace: string, k: unknown): void {
    this.deleteStmt.run(namespace, key(k));
  }

  list(namespace: string, prefix: unknown, limit: unknown, cursor: unknown): KvListPage {
    const p = prefix === null || prefix === undefined ? "" : prefix;
    if (typeof p !== "string" || Buffer.byteLength(p, "utf8") > KV_LIMITS.maxKeyBytes)
      throw new BindingError("invalid_key", `a list prefix is a string of at most ${KV_LIMITS.maxKeyBytes} bytes`);
    const size = optionalInteger(limit, "limit", 1, KV_LIMITS.maxListPageKeys, "invalid_cursor") ?? KV_LIMITS.maxListPageKeys;
    let after = "";
    if (cursor !== null && cursor !== undefined) {
      // The cursor is the last key of the previous page, base64url-encoded.
      if (typeof cursor !== "string" || cursor.length === 0 || cursor.length > 4096 || !/^[A-Za-z0-9_-]+$/.test(cursor))
        throw new BindingError("invalid_cursor", "the cursor is not one this namespace returned");
      after = Buffer.from(cursor, "base64url").toString("utf8");
    }
    const rows = this.listStmt.all(namespace, after, Buffer.byteLength(p, "utf8"), p, this.now(), size + 1) as { key: string }[];
    const page = rows.slice(0, size).map((r) => ({ name: r.key }));
    if (rows.length <= size) return { keys: page, listComplete: true };
    return { keys: page, listComplete: false, cursor: Buffer.from(page[page.length - 1]!.name, "utf8").toString("base64url") };
  }

  /** Removes everything a deleted namespace incarnation held. */
  drop(namespace: string): void {
    this.dropStmt.run(namespace);
  }
}
