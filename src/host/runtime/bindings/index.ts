// Binding operations an isolate asks for, answered against the data the host keeps. A binding
// reaches the incarnation its WorkerVersion is pinned to (decision 0022): when that resource is
// gone the operation fails backend_unavailable, naming it, instead of reaching whatever took its
// name. worker.service bindings are dispatched by the runtime itself (dispatch.ts).

import type { Topology, VersionNode } from "../topology.ts";
import { BindingError } from "./errors.ts";
import type { KvStore } from "./kv-store.ts";
import { OBJECT_LIMITS, type ObjectStore } from "./object-store.ts";
import type { QueueStore } from "./queue-store.ts";
import type { SqlStore } from "./sql-store.ts";
import { checkLaneLimits } from "./lane-limits.ts";

export interface BindingStores {
  kv: KvStore;
  queues: QueueStore;
  objects: ObjectStore;
  sql: SqlStore;
  /** A queue received messages: its consumer may have work. */
  notifyQueue(queueUid: string): void;
  /** Whether a resource incarnation still exists (in any group: a binding may target any provider). */
  exists(uid: string): boolean;
}

export interface CallResult {
  value: unknown;
  body?: ReadableStream<Uint8Array> | null;
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export async function callBinding(
  stores: BindingStores,
  top: Topology,
  version: VersionNode,
  name: string,
  op: string,
  args: unknown[],
  body: ReadableStream<Uint8Array> | null,
): Promise<CallResult> {
  const binding = version.bindings.find((b) => b.name === name);
  if (binding === undefined) throw new BindingError("backend_unavailable", `the version declares no binding named ${name}`);
  if (!stores.exists(binding.targetUid)) {
    body?.cancel().catch(() => undefined);
    throw new BindingError(
      "backend_unavailable",
      `binding ${name}: the ${binding.targetKind} "${binding.targetName}" it is pinned to (uid ${binding.targetUid}) no longer exists`,
    );
  }
  const uid = binding.targetUid;
  try {
    checkLaneLimits(version.dataPlane, binding.kind, op, args);
  } catch (error) {
    body?.cancel().catch(() => undefined);
    throw error;
  }
  const unknown = (): never => {
    throw new BindingError("backend_unavailable", `binding ${name} has no operation ${op}`);
  };
  switch (binding.kind) {
    case "kv":
      switch (op) {
        case "get":
          return { value: stores.kv.get(uid, args[0]) };
        case "getWithMetadata":
          return { value: stores.kv.getWithMetadata(uid, args[0]) };
        case "put":
          stores.kv.put(uid, args[0], args[1], args[2], args[3]);
          return { value: null };
        case "delete":
          stores.kv.delete(uid, args[0]);
          return { value: null };
        case "list":
          return { value: stores.kv.list(uid, args[0], args[1], args[2]) };
      }
      return unknown();
    case "queue": {
      const queue = top.queues.get(uid);
      const delay = queue?.deliveryDelaySeconds ?? 0;
      if (op === "send") {
        const [messageId] = stores.queues.send(uid, [[args[0], args[1]]], delay);
        stores.notifyQueue(uid);
        return { value: { messageId } };
      }
      if (op === "sendBatch") {
        const list = Array.isArray(args[0]) ? (args[0] as [unknown, unknown][]) : [];
        const messageIds = stores.queues.send(uid, list, delay);
        stores.notifyQueue(uid);
        return { value: { messageIds } };
      }
      return unknown();
    }
    case "sql":
      if (op === "execute") return { value: stores.sql.execute(uid, version.dataPlane.sqlValues, args[0], args[1]) };
      if (op === "query") return { value: stores.sql.query(uid, version.dataPlane.sqlValues, args[0], args[1]) };
      if (op === "transaction") return { value: stores.sql.transaction(uid, version.dataPlane.sqlValues, args[0]) };
      return unknown();
    case "objects":
      return objects(stores.objects, uid, op, args, body, unknown);
    case "service":
      throw new BindingError("backend_unavailable", `binding ${name} is a service binding: call its fetch`);
  }
}

async function objects(
  store: ObjectStore,
  bucket: string,
  op: string,
  args: unknown[],
  body: ReadableStream<Uint8Array> | null,
  unknown: () => never,
): Promise<CallResult> {
  switch (op) {
    case "head":
      return { value: store.head(bucket, args[0]) };
    case "get": {
      const found = store.get(bucket, args[0], record(args[1]));
      if (found === null) return { value: null };
      return { value: found.meta, body: store.stream(found.dataId, found.start, found.end) };
    }
    case "put": {
      const key = args[0];
      const options = record(args[1]);
      store.head(bucket, key); // validates the key before the body is read
      if (body === null) throw new BindingError("invalid_body", "a put needs a body");
      const written = await store.write(body, OBJECT_LIMITS.maxSinglePutBytes);
      try {
        return {
          value: store.commit(bucket, key as string, { dataId: written.dataId, size: written.size, etag: `"${written.sha256.slice(0, 32)}"` }, options),
        };
      } catch (error) {
        store.discard(written.dataId);
        throw error;
      }
    }
    case "delete":
      store.delete(bucket, args[0]);
      return { value: null };
    case "list":
      return { value: store.list(bucket, record(args[0])) };
    case "createMultipartUpload":
      return { value: store.createMultipartUpload(bucket, args[0], record(args[1])) };
    case "uploadPart": {
      const part = store.checkPart(bucket, args[0], args[1], args[2]);
      if (body === null) throw new BindingError("invalid_body", "a part needs a body");
      const written = await store.write(body, OBJECT_LIMITS.maxSinglePutBytes);
      return { value: store.putPart(part.uploadId, part.partNumber, written) };
    }
    case "completeMultipartUpload":
      return { value: store.complete(bucket, args[0], args[1], args[2]) };
    case "abortMultipartUpload":
      store.abort(bucket, args[0], args[1]);
      return { value: null };
  }
  return unknown();
}
