// edge.objects@1.0.0 over the host's database. An object's bytes are stored in pieces of at most
// 1 MiB (runtime_object_data), written as the body streams in and made visible in one
// transaction once it is complete, so a read that starts after a completed write sees it and a
// failed write leaves nothing. Entity tags are quoted SHA-256 prefixes of the content; a
// multipart object's is derived from its parts' tags and their count (`"…-N"`). Limits and
// error codes are the Interface's: keys 1..1024 bytes, one put up to 300 MiB, parts 1..10000,
// an object up to 5 GiB, list pages up to 1000.

import { createHash, randomBytes } from "node:crypto";
import type { Db } from "../../store/db.ts";
import { nextSequence } from "../storage.ts";
import { BindingError, optionalInteger } from "./errors.ts";

export const OBJECT_LIMITS = {
  maxKeyBytes: 1024,
  maxSinglePutBytes: 314_572_800,
  maxObjectBytes: 5_368_709_120,
  maxMultipartParts: 10_000,
  maxListPageObjects: 1000,
} as const;
const PIECE = 1024 * 1024;

export interface ObjectHead {
  key: string;
  etag: string;
  size: number;
  contentType?: string;
  uploadedAtMillis: number;
}

interface Row {
  key: string;
  data_id: number;
  etag: string;
  size: number;
  content_type: string | null;
  uploaded_at: number;
}

function key(value: unknown): string {
  if (typeof value !== "string" || value.length === 0) throw new BindingError("invalid_key", "an object key must be a non-empty string");
  if (Buffer.byteLength(value, "utf8") > OBJECT_LIMITS.maxKeyBytes)
    throw new BindingError("invalid_key", `an object key is at most ${OBJECT_LIMITS.maxKeyBytes} bytes`);
  return value;
}

function optionalText(value: unknown, what: string, max: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || value.length === 0 || value.length > max)
    throw new BindingError("invalid_key", `${what} must be a string of 1..${max} characters`);
  return value;
}

function head(row: Row): ObjectHead {
  return {
    key: row.key,
    etag: row.etag,
    size: row.size,
    ...(row.content_type !== null ? { contentType: row.content_type } : {}),
    uploadedAtMillis: row.uploaded_at,
  };
}

export class ObjectStore {
  private readonly byKey;
  private readonly insertPiece;
  private readonly pieceAt;
  private readonly dropData;
  private readonly upsert;
  private readonly deleteObject;
  private readonly listStmt;
  private readonly dropBucketData;
  private readonly dropBucket;
  private readonly uploadGet;
  private readonly uploadPut;
  private readonly uploadDelete;
  private readonly partPut;
  private readonly partGet;
  private readonly partsOf;
  private readonly partsDelete;
  private readonly partMove;

  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {
    this.byKey = db.prepare("SELECT * FROM runtime_objects WHERE bucket_uid = ? AND key = ?");
    this.insertPiece = db.prepare("INSERT INTO runtime_object_data (data_id, seq, offset, bytes) VALUES (?, ?, ?, ?)");
    this.pieceAt = db.prepare(
      "SELECT offset, bytes FROM runtime_object_data WHERE data_id = ? AND offset <= ? AND offset + length(bytes) > ? ORDER BY seq LIMIT 1",
    );
    this.dropData = db.prepare("DELETE FROM runtime_object_data WHERE data_id = ?");
    this.upsert = db.prepare(
      `INSERT INTO runtime_objects (bucket_uid, key, data_id, etag, size, content_type, uploaded_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (bucket_uid, key) DO UPDATE SET data_id = excluded.data_id, etag = excluded.etag, size = excluded.size, content_type = excluded.content_type, uploaded_at = excluded.uploaded_at`,
    );
    this.deleteObject = db.prepare("DELETE FROM runtime_objects WHERE bucket_uid = ? AND key = ?");
    this.listStmt = db.prepare(
      "SELECT * FROM runtime_objects WHERE bucket_uid = ? AND key > ? AND substr(CAST(key AS BLOB), 1, ?) = CAST(? AS BLOB) ORDER BY key LIMIT ?",
    );
    this.dropBucketData = db.prepare(
      "DELETE FROM runtime_object_data WHERE data_id IN (SELECT data_id FROM runtime_objects WHERE bucket_uid = ? UNION SELECT p.data_id FROM runtime_multipart_parts p JOIN runtime_multipart m USING (upload_id) WHERE m.bucket_uid = ?)",
    );
    this.dropBucket = db.prepare("DELETE FROM runtime_objects WHERE bucket_uid = ?");
    this.uploadGet = db.prepare("SELECT * FROM runtime_multipart WHERE upload_id = ? AND bucket_uid = ? AND key = ?");
    this.uploadPut = db.prepare("INSERT INTO runtime_multipart (upload_id, bucket_uid, key, content_type, created_at) VALUES (?, ?, ?, ?, ?)");
    this.uploadDelete = db.prepare("DELETE FROM runtime_multipart WHERE upload_id = ?");
    this.partPut = db.prepare(
      "INSERT INTO runtime_multipart_parts (upload_id, part_number, data_id, etag, size) VALUES (?, ?, ?, ?, ?) ON CONFLICT (upload_id, part_number) DO UPDATE SET data_id = excluded.data_id, etag = excluded.etag, size = excluded.size",
    );
    this.partGet = db.prepare("SELECT * FROM runtime_multipart_parts WHERE upload_id = ? AND part_number = ?");
    this.partsOf = db.prepare("SELECT * FROM runtime_multipart_parts WHERE upload_id = ? ORDER BY part_number");
    this.partsDelete = db.prepare("DELETE FROM runtime_multipart_parts WHERE upload_id = ?");
    this.partMove = db.prepare("UPDATE runtime_object_data SET data_id = ?, seq = seq + ?, offset = offset + ? WHERE data_id = ?");
  }

  private row(bucket: string, k: string): Row | undefined {
    return this.byKey.get(bucket, k) as Row | undefined;
  }

  head(bucket: string, k: unknown): ObjectHead | null {
    const row = this.row(bucket, key(k));
    return row === undefined ? null : head(row);
  }

  /** Checks a read and says which bytes it returns; the body is then read with `pieces`. */
  get(
    bucket: string,
    k: unknown,
    options: Record<string, unknown>,
  ): { meta: ObjectHead & { partial: boolean; range?: { offset: number; length: number } }; dataId: number; start: number; end: number } | null {
    const row = this.row(bucket, key(k));
    if (row === undefined) return null;
    const ifMatch = optionalText(options.ifMatch, "ifMatch", 256);
    const ifNoneMatch = optionalText(options.ifNoneMatch, "ifNoneMatch", 256);
    if (ifMatch !== undefined && ifMatch !== row.etag) throw new BindingError("precondition_failed", `the object's entity tag is ${row.etag}, not ${ifMatch}`);
    if (ifNoneMatch !== undefined && (ifNoneMatch === row.etag || ifNoneMatch === "*"))
      throw new BindingError("precondition_failed", `the object's entity tag matches ${ifNoneMatch}`);
    let start = 0;
    let end = row.size;
    let partial = false;
    const range = options.range as { offset?: unknown; length?: unknown } | undefined;
    if (range !== undefined && range !== null) {
      const offset = optionalInteger(range.offset, "range.offset", 0, OBJECT_LIMITS.maxObjectBytes, "range_not_satisfiable") ?? 0;
      const length = optionalInteger(range.length, "range.length", 1, OBJECT_LIMITS.maxObjectBytes, "range_not_satisfiable");
      if (offset >= row.size && !(offset === 0 && row.size === 0))
        throw new BindingError("range_not_satisfiable", `the range starts at ${offset}, past the object's ${row.size} bytes`);
      start = offset;
      end = length === null ? row.size : Math.min(row.size, offset + length);
      partial = true;
    }
    const meta = { ...head(row), partial, ...(partial ? { range: { offset: start, length: end - start } } : {}) };
    return { meta, dataId: row.data_id, start, end };
  }

  /**
   * The bytes [start, end) of stored data as a stream, one piece per read. Each read is its own
   * query (no statement stays open across awaits); data replaced while it is read ends the
   * stream with an error instead of mixing two objects.
   */
  stream(dataId: number, start: number, end: number): ReadableStream<Uint8Array> {
    let position = start;
    return new ReadableStream<Uint8Array>(
      {
        pull: (controller) => {
          if (position >= end) {
            controller.close();
            return;
          }
          const piece = this.pieceAt.get(dataId, position, position) as { offset: number; bytes: Buffer } | undefined;
          if (piece === undefined) {
            controller.error(new Error("the object was replaced or deleted while it was read"));
            return;
          }
          const from = position - piece.offset;
          const to = Math.min(piece.bytes.byteLength, end - piece.offset);
          controller.enqueue(new Uint8Array(piece.bytes.buffer, piece.bytes.byteOffset + from, to - from));
          position = piece.offset + to;
        },
      },
      { highWaterMark: 0 },
    );
  }

  /** Stores a streamed body as new data; returns its id, size and content hash. Nothing is visible yet. */
  async write(body: ReadableStream<Uint8Array>, limit: number): Promise<{ dataId: number; size: number; sha256: string }> {
    const dataId = nextSequence(this.db, "object_data");
    const hash = createHash("sha256");
    let size = 0;
    let seq = 0;
    let pending: Uint8Array[] = [];
    let pendingSize = 0;
    const flush = (): void => {
      if (pendingSize === 0) return;
      const piece = Buffer.concat(pending, pendingSize);
      this.insertPiece.run(dataId, seq++, size - pendingSize, piece);
      pending = [];
      pendingSize = 0;
    };
    try {
      const reader = body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > limit) {
          await reader.cancel();
          throw new BindingError("value_too_large", `the body exceeds ${limit} bytes`);
        }
        hash.update(value);
        pending.push(value);
        pendingSize += value.byteLength;
        if (pendingSize >= PIECE) flush();
      }
      flush();
    } catch (error) {
      this.dropData.run(dataId);
      if (error instanceof BindingError) throw error;
      throw new BindingError("invalid_body", `the body could not be read: ${error instanceof Error ? error.message : String(error)}`);
    }
    return { dataId, size, sha256: hash.digest("hex") };
  }

  discard(dataId: number): void {
    this.dropData.run(dataId);
  }

  /** Makes written data the object at `k`, checking the write's preconditions at that instant. */
  commit(bucket: string, k: string, data: { dataId: number; size: number; etag: string }, options: Record<string, unknown>): { etag: string; size: number } {
    const contentType = optionalText(options.contentType, "contentType", 256);
    const ifMatch = optionalText(options.ifMatch, "ifMatch", 256);
    const ifNoneMatch = options.ifNoneMatch;
    if (ifNoneMatch !== undefined && ifNoneMatch !== null && ifNoneMatch !== "*")
      throw new BindingError("precondition_failed", 'ifNoneMatch on a write may only be "*"');
    return this.db.transaction(() => {
      const existing = this.row(bucket, k);
      if (ifNoneMatch === "*" && existing !== undefined) throw new BindingError("precondition_failed", `an object already exists at ${JSON.stringify(k)}`);
      if (ifMatch !== undefined && existing?.etag !== ifMatch)
        throw new BindingError("precondition_failed", `the object's entity tag is ${existing?.etag ?? "absent"}, not ${ifMatch}`);
      this.upsert.run(bucket, k, data.dataId, data.etag, data.size, contentType ?? null, this.now());
      if (existing !== undefined) this.dropData.run(existing.data_id);
      return { etag: data.etag, size: data.size };
    })();
  }

  delete(bucket: string, k: unknown): void {
    const name = key(k);
    this.db.transaction(() => {
      const existing = this.row(bucket, name);
      if (existing === undefined) return;
      this.deleteObject.run(bucket, name);
      this.dropData.run(existing.data_id);
    })();
  }

  list(bucket: string, options: Record<string, unknown>): { objects: ObjectHead[]; prefixes: string[]; truncated: boolean; cursor?: string } {
    const prefix = options.prefix === undefined || options.prefix === null ? "" : options.prefix;
    if (typeof prefix !== "string" || Buffer.byteLength(prefix, "utf8") > OBJECT_LIMITS.maxKeyBytes)
      throw new BindingError("invalid_key", "prefix must be a string of at most 1024 bytes");
    const delimiter = optionalText(options.delimiter, "delimiter", 16);
    const limit = optionalInteger(options.limit, "limit", 1, OBJECT_LIMITS.maxListPageObjects, "invalid_cursor") ?? OBJECT_LIMITS.maxListPageObjects;
    let after = "";
    if (options.cursor !== undefined && options.cursor !== null) {
      if (typeof options.cursor !== "string" || !/^[A-Za-z0-9_-]{1,4096}$/.test(options.cursor))
        throw new BindingError("invalid_cursor", "the cursor is not one this bucket returned");
      after = Buffer.from(options.cursor, "base64url").toString("utf8");
    }
    const objects: ObjectHead[] = [];
    const prefixes: string[] = [];
    let last = after;
    const prefixBytes = Buffer.byteLength(prefix, "utf8");
    // With a delimiter, keys under one folded prefix are skipped in one step past the prefix.
    while (objects.length + prefixes.length < limit) {
      const rows = this.listStmt.all(bucket, last, prefixBytes, prefix, limit) as Row[];
      if (rows.length === 0) return { objects, prefixes, truncated: false };
      for (const row of rows) {
        last = row.key;
        const rest = row.key.slice(prefix.length);
        const cut = delimiter === undefined ? -1 : rest.indexOf(delimiter);
        if (cut >= 0) {
          const folded = prefix + rest.slice(0, cut + delimiter!.length);
          prefixes.push(folded);
          last = `${folded}\u{10FFFF}`;
          break;
        }
        objects.push(head(row));
        if (objects.length + prefixes.length >= limit) break;
      }
    }
    const more = (this.listStmt.all(bucket, last, prefixBytes, prefix, 1) as Row[]).length > 0;
    return more ? { objects, prefixes, truncated: true, cursor: Buffer.from(last, "utf8").toString("base64url") } : { objects, prefixes, truncated: false };
  }

  createMultipartUpload(bucket: string, k: unknown, options: Record<string, unknown>): { uploadId: string } {
    const name = key(k);
    const uploadId = `mpu_${randomBytes(16).toString("hex")}`;
    this.uploadPut.run(uploadId, bucket, name, optionalText(options.contentType, "contentType", 256) ?? null, this.now());
    return { uploadId };
  }

  private upload(bucket: string, k: unknown, uploadId: unknown): { upload_id: string; content_type: string | null } {
    const name = key(k);
    if (typeof uploadId !== "string") throw new BindingError("upload_not_found", "uploadId must be a string");
    const upload = this.uploadGet.get(uploadId, bucket, name) as { upload_id: string; content_type: string | null } | undefined;
    if (upload === undefined) throw new BindingError("upload_not_found", `no multipart upload ${uploadId} for ${JSON.stringify(name)}`);
    return upload;
  }

  /** Checks a part upload before its body is read. */
  checkPart(bucket: string, k: unknown, uploadId: unknown, partNumber: unknown): { uploadId: string; partNumber: number } {
    const upload = this.upload(bucket, k, uploadId);
    const number = optionalInteger(partNumber, "partNumber", 1, OBJECT_LIMITS.maxMultipartParts, "invalid_part");
    if (number === null) throw new BindingError("invalid_part", "partNumber is required");
    return { uploadId: upload.upload_id, partNumber: number };
  }

  putPart(uploadId: string, partNumber: number, data: { dataId: number; size: number; sha256: string }): { partNumber: number; etag: string } {
    const etag = `"${data.sha256.slice(0, 32)}"`;
    this.db.transaction(() => {
      const prior = this.partGet.get(uploadId, partNumber) as { data_id: number } | undefined;
      this.partPut.run(uploadId, partNumber, data.dataId, etag, data.size);
      if (prior !== undefined) this.dropData.run(prior.data_id);
    })();
    return { partNumber, etag };
  }

  complete(bucket: string, k: unknown, uploadId: unknown, parts: unknown): { etag: string; size: number } {
    const name = key(k);
    const upload = this.upload(bucket, name, uploadId);
    if (!Array.isArray(parts) || parts.length === 0 || parts.length > OBJECT_LIMITS.maxMultipartParts)
      throw new BindingError("invalid_part", `parts lists 1..${OBJECT_LIMITS.maxMultipartParts} parts`);
    return this.db.transaction(() => {
      const stored = new Map(
        (this.partsOf.all(upload.upload_id) as { part_number: number; data_id: number; etag: string; size: number }[]).map((p) => [p.part_number, p]),
      );
      const chosen = [...parts].map((p: unknown) => p as { partNumber?: unknown; etag?: unknown }).sort((a, b) => Number(a.partNumber) - Number(b.partNumber));
      let size = 0;
      const hash = createHash("sha256");
      const used: { data_id: number; size: number }[] = [];
      let previous = 0;
      for (const part of chosen) {
        const number = Number(part.partNumber);
        if (number === previous) throw new BindingError("invalid_part", `part ${number} is listed twice`);
        previous = number;
        const found = stored.get(number);
        if (found === undefined || found.etag !== part.etag)
          throw new BindingError("invalid_part", `part ${number} with entity tag ${String(part.etag)} was not uploaded`);
        size += found.size;
        hash.update(found.etag);
        used.push(found);
      }
      if (size > OBJECT_LIMITS.maxObjectBytes)
        throw new BindingError("value_too_large", `the parts add up to ${size} bytes, above ${OBJECT_LIMITS.maxObjectBytes}`);
      const dataId = nextSequence(this.db, "object_data");
      let seq = 0;
      let offset = 0;
      for (const part of used) {
        this.partMove.run(dataId, seq, offset, part.data_id);
        seq += 1_000_000;
        offset += part.size;
      }
      for (const part of stored.values()) if (!used.includes(part)) this.dropData.run(part.data_id);
      this.partsDelete.run(upload.upload_id);
      this.uploadDelete.run(upload.upload_id);
      const etag = `"${hash.digest("hex").slice(0, 32)}-${used.length}"`;
      return this.commit(bucket, name, { dataId, size, etag }, upload.content_type === null ? {} : { contentType: upload.content_type });
    })();
  }

  abort(bucket: string, k: unknown, uploadId: unknown): void {
    const upload = this.upload(bucket, k, uploadId);
    this.db.transaction(() => {
      for (const part of this.partsOf.all(upload.upload_id) as { data_id: number }[]) this.dropData.run(part.data_id);
      this.partsDelete.run(upload.upload_id);
      this.uploadDelete.run(upload.upload_id);
    })();
  }

  /** Removes everything a deleted bucket incarnation held. */
  drop(bucket: string): void {
    this.db.transaction(() => {
      this.dropBucketData.run(bucket, bucket);
      this.dropBucket.run(bucket);
      for (const upload of this.db.prepare("SELECT upload_id FROM runtime_multipart WHERE bucket_uid = ?").pluck().all(bucket) as string[]) {
        this.partsDelete.run(upload);
        this.uploadDelete.run(upload);
      }
    })();
  }
}
