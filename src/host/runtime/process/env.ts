// The `env` object one invocation receives: exactly the version's vars, its required sensitive
// variables and its binding names, as own enumerable properties and nothing else. Each binding
// is a small object whose methods forward to the host (runtime/bindings/ there), which owns the
// data. The JavaScript shape of each is the one its Binding Definition's description states
// (docs/runtime.md): every method returns a promise, and a failure rejects with an Error whose
// `name` (and `code`) is the Interface's error code.
//
// Values handed to module code are made in the isolate's realm (its Uint8Array, Error, plain
// objects), so `instanceof` inside the module behaves as it expects.

import type { EnvInit } from "../wire.ts";
import type { Realm } from "./globals.ts";

/** What a binding may ask of the host. */
export interface HostLink {
  /** One binding operation; `body` streams bytes to the host (object writes). */
  call(
    binding: string,
    op: string,
    args: unknown[],
    body?: ReadableStream<Uint8Array> | null,
  ): Promise<{ value: unknown; body: ReadableStream<Uint8Array> | null }>;
  /** A worker.service request to the bound worker; resolves when the callee's head arrives. */
  serviceFetch(binding: string, request: Request): Promise<Response>;
}

type Method = (...args: never[]) => unknown;

function objectOf(realm: Realm, members: Record<string, Method>): Record<string, Method> {
  const out = new realm.Object() as Record<string, Method>;
  for (const [name, fn] of Object.entries(members)) out[name] = fn;
  return out;
}

const encoder = new TextEncoder();

function isView(value: unknown): value is ArrayBufferView {
  return ArrayBuffer.isView(value);
}

function isArrayBuffer(value: unknown): value is ArrayBuffer {
  return Object.prototype.toString.call(value) === "[object ArrayBuffer]";
}

function isStream(value: unknown): value is ReadableStream<Uint8Array> {
  return typeof value === "object" && value !== null && typeof (value as ReadableStream).getReader === "function";
}

/** Bytes of a value a binding stores: a string (UTF-8), an ArrayBuffer or a view of one. */
function bytesOf(realm: Realm, value: unknown, what: string): Uint8Array {
  if (typeof value === "string") return encoder.encode(value);
  if (isView(value)) return new Uint8Array(value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength));
  if (isArrayBuffer(value)) return new Uint8Array(value.slice(0));
  throw new realm.TypeError(`${what} must be a string, an ArrayBuffer or an ArrayBuffer view`);
}

async function readAll(stream: ReadableStream<Uint8Array>, limit: number, realm: Realm, what: string): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const bytes = isView(value) ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength) : bytesOf(realm, value, what);
    size += bytes.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new realm.RangeError(`${what} exceeds ${limit} bytes`);
    }
    chunks.push(bytes);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

function realmBytes(realm: Realm, bytes: Uint8Array): Uint8Array {
  const out = new realm.Uint8Array(bytes.byteLength);
  out.set(bytes);
  return out;
}

function realmJson(realm: Realm, value: unknown): unknown {
  return value === undefined ? undefined : realm.JSON.parse(JSON.stringify(value));
}

function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.byteLength > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}

const KV_VALUE_LIMIT = 26_214_400;

/**
 * module-worker.edge-kv: values are bytes — put takes an ArrayBuffer, a typed array or a string
 * (UTF-8; a stream is read to its end), get resolves to an ArrayBuffer, or null for a key that
 * holds nothing (edge.kv's not_found).
 */
function kvBinding(name: string, link: HostLink, realm: Realm): Record<string, Method> {
  return objectOf(realm, {
    get: async (key: unknown) => {
      const { value } = await link.call(name, "get", [key]);
      return value === null ? null : realmBytes(realm, value as Uint8Array).buffer;
    },
    getWithMetadata: async (key: unknown) => {
      const { value } = await link.call(name, "getWithMetadata", [key]);
      const found = value as { value: Uint8Array; metadata: Record<string, string> | null } | null;
      if (found === null) return null;
      const out = new realm.Object() as Record<string, unknown>;
      out.value = realmBytes(realm, found.value).buffer;
      out.metadata = found.metadata === null ? null : realmJson(realm, found.metadata);
      return out;
    },
    put: async (key: unknown, value: unknown, options?: unknown) => {
      const bytes = isStream(value) ? await readAll(value, KV_VALUE_LIMIT, realm, "a KV value") : bytesOf(realm, value, "a KV value");
      const opts = (options ?? {}) as { metadata?: unknown; expirationTtlSeconds?: unknown };
      await link.call(name, "put", [key, bytes, opts.metadata ?? null, opts.expirationTtlSeconds ?? null]);
    },
    delete: async (key: unknown) => {
      await link.call(name, "delete", [key]);
    },
    list: async (options?: unknown) => {
      const opts = (options ?? {}) as { prefix?: unknown; limit?: unknown; cursor?: unknown };
      const { value } = await link.call(name, "list", [opts.prefix ?? null, opts.limit ?? null, opts.cursor ?? null]);
      return realmJson(realm, value);
    },
  });
}

/** module-worker.queue-producer: send resolves to the message id, sendBatch to the ids in order. */
function queueBinding(name: string, link: HostLink, realm: Realm): Record<string, Method> {
  const delayOf = (options: unknown): unknown =>
    options !== null && typeof options === "object" ? ((options as { delaySeconds?: unknown }).delaySeconds ?? null) : null;
  return objectOf(realm, {
    send: async (body: unknown, options?: unknown) => {
      const { value } = await link.call(name, "send", [bytesOf(realm, body, "a queue message body"), delayOf(options)]);
      return (value as { messageId: string }).messageId;
    },
    sendBatch: async (messages: unknown) => {
      if (!Array.isArray(messages)) throw new realm.TypeError("sendBatch takes an array of { body, delaySeconds? }");
      const list = messages.map((m: unknown) => [bytesOf(realm, (m as { body?: unknown })?.body, "a queue message body"), delayOf(m)]);
      const { value } = await link.call(name, "sendBatch", [list]);
      return realmJson(realm, (value as { messageIds: string[] }).messageIds);
    },
  });
}

/**
 * module-worker.sqlite: parameters and result cells are the lane's edge.sql values — tagged
 * objects on the first lane; on the safe-number lane null, numbers, strings and base64 objects,
 * sent as they are (a bigint or a non-finite number reaches the host, which refuses it with the
 * Interface's code, instead of being turned into something else on the way).
 */
function sqlBinding(name: string, link: HostLink, realm: Realm, model: "tagged" | "safe-number"): Record<string, Method> {
  const convert = model === "safe-number" ? (a: unknown) => sqlData(realm, a, 0) : (a: unknown) => plain(realm, a);
  const run =
    (op: string) =>
    async (...args: unknown[]) =>
      realmJson(realm, (await link.call(name, op, args.map(convert))).value);
  return objectOf(realm, { execute: run("execute"), query: run("query"), transaction: run("transaction") });
}

function sqlError(realm: Realm, message: string): Error {
  const error = new realm.Error(message) as Error & { code: string };
  error.name = "sql_error";
  error.code = "sql_error";
  return error;
}

/** A copy of an edge.sql argument as plain data (primitives, arrays, plain objects); anything else is sql_error. */
function sqlData(realm: Realm, value: unknown, depth: number): unknown {
  if (depth > 8) throw sqlError(realm, "edge.sql arguments nest at most 8 levels");
  if (value === undefined || value === null) return null;
  const type = typeof value;
  if (type === "string" || type === "number" || type === "boolean" || type === "bigint") return value;
  if (Array.isArray(value)) return value.map((v: unknown) => (v === undefined ? undefined : sqlData(realm, v, depth + 1)));
  if (type === "object") {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto === null || proto === realm.Object.prototype || proto === Object.prototype) {
      return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, sqlData(realm, v, depth + 1)]));
    }
  }
  throw sqlError(
    realm,
    `an edge.sql argument is plain data (null, a number, a string, an array or an object), not ${type === "object" ? "an instance" : `a ${type}`}`,
  );
}

/** Arguments cross to the host as JSON data: anything else is refused here, not half-copied. */
function plain(realm: Realm, value: unknown): unknown {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as unknown;
  } catch {
    throw new realm.TypeError("binding arguments must be JSON data (edge.sql parameters are tagged values)");
  }
}

/**
 * module-worker.object-bucket: bodies stream both ways. put and uploadPart take a ReadableStream,
 * an ArrayBuffer (or typed array) or a string; get resolves to the object's metadata with `body`,
 * a ReadableStream; get and head resolve to null for a missing key.
 */
function objectsBinding(name: string, link: HostLink, realm: Realm): Record<string, Method> {
  const withBody = (meta: unknown, body: ReadableStream<Uint8Array> | null): unknown => {
    if (meta === null) return null;
    const out = realmJson(realm, meta) as Record<string, unknown>;
    out.body = body;
    return out;
  };
  const bodyStream = (value: unknown): ReadableStream<Uint8Array> =>
    isStream(value) ? value : streamOf(value === null || value === undefined ? new Uint8Array(0) : bytesOf(realm, value, "an object body"));
  return objectOf(realm, {
    head: async (key: unknown) => realmJson(realm, (await link.call(name, "head", [key])).value),
    get: async (key: unknown, options?: unknown) => {
      const result = await link.call(name, "get", [key, plain(realm, options ?? {})]);
      return withBody(result.value, result.body);
    },
    put: async (key: unknown, body: unknown, options?: unknown) =>
      realmJson(realm, (await link.call(name, "put", [key, plain(realm, options ?? {})], bodyStream(body))).value),
    delete: async (key: unknown) => {
      await link.call(name, "delete", [key]);
    },
    list: async (options?: unknown) => realmJson(realm, (await link.call(name, "list", [plain(realm, options ?? {})])).value),
    createMultipartUpload: async (key: unknown, options?: unknown) =>
      realmJson(realm, (await link.call(name, "createMultipartUpload", [key, plain(realm, options ?? {})])).value),
    uploadPart: async (key: unknown, uploadId: unknown, partNumber: unknown, body: unknown) =>
      realmJson(realm, (await link.call(name, "uploadPart", [key, uploadId, partNumber], bodyStream(body))).value),
    completeMultipartUpload: async (key: unknown, uploadId: unknown, parts: unknown) =>
      realmJson(realm, (await link.call(name, "completeMultipartUpload", [key, uploadId, plain(realm, parts)])).value),
    abortMultipartUpload: async (key: unknown, uploadId: unknown) => {
      await link.call(name, "abortMultipartUpload", [key, uploadId]);
    },
  });
}

/**
 * module-worker.service: fetch takes a Request, or the global fetch's arguments, and resolves to
 * the callee's Response (its uncaught exception is its 500); it rejects only when the call
 * cannot be made, with an Error named backend_unavailable.
 */
function serviceBinding(name: string, link: HostLink, realm: Realm): Record<string, Method> {
  return objectOf(realm, {
    fetch: (input: unknown, init?: unknown) => {
      const request = new Request(
        input as ConstructorParameters<typeof Request>[0],
        { ...(init as RequestInit | undefined), ...(init !== undefined && (init as RequestInit).body !== undefined ? { duplex: "half" } : {}) } as RequestInit,
      );
      return link.serviceFetch(name, request);
    },
  });
}

export function buildEnv(init: EnvInit, link: HostLink, realm: Realm): Record<string, unknown> {
  const env = realm.JSON.parse(init.varsJson) as Record<string, unknown>;
  for (const [key, value] of init.secrets) env[key] = value;
  for (const binding of init.bindings) {
    switch (binding.kind) {
      case "kv":
        env[binding.name] = kvBinding(binding.name, link, realm);
        break;
      case "queue":
        env[binding.name] = queueBinding(binding.name, link, realm);
        break;
      case "sql":
        env[binding.name] = sqlBinding(binding.name, link, realm, binding.sqlValues ?? "tagged");
        break;
      case "objects":
        env[binding.name] = objectsBinding(binding.name, link, realm);
        break;
      case "service":
        env[binding.name] = serviceBinding(binding.name, link, realm);
        break;
    }
  }
  return env;
}
