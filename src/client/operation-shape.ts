// Operation documents and error envelopes (reference provider §7.5, §7.6; host API §3.2, §4).

import { STATUS_CODES } from "node:http";
import { isDigest, isErrorCode, isUid, OPERATION_API_VERSION, OPERATION_ID, type WireOperation } from "../core/index.ts";
import { type JsonValue, parseStrictJson } from "../forms/index.ts";
import { AUTO_RETRYABLE, HostApiError, ProtocolInvalidError, statusForCode } from "./errors.ts";
import { child, isJsonObject, MAX_RESPONSE_BYTES, MAX_RESPONSE_DEPTH, type WireReader } from "./wire-reader.ts";

const OP_ERROR_CODE = /^[a-z][a-z0-9_]{2,63}$/;
const PHASE = /^[A-Z][A-Za-z0-9]{0,63}$/;

export function isOperationId(value: unknown): value is string {
  return typeof value === "string" && OPERATION_ID.test(value);
}

/**
 * A closed Operation: exact identity, id grammar, closed target/metadata/error, and the state
 * rule — not done carries neither result nor error; done carries exactly one of them.
 */
export function verifyOperation(r: WireReader, value: JsonValue | undefined, pointer: string): WireOperation {
  const op = r.object(value, pointer, ["apiVersion", "kind", "id", "done"], ["target", "metadata", "result", "error"]);
  if (op["apiVersion"] !== OPERATION_API_VERSION || op["kind"] !== "Operation") {
    r.fail(pointer, `is not an ${OPERATION_API_VERSION} Operation`);
  }
  r.string(op["id"], child(pointer, "id"), isOperationId, "an operation id");
  const done = r.boolean(op["done"], child(pointer, "done"));
  if (op["target"] !== undefined) {
    const tp = child(pointer, "target");
    const target = r.object(op["target"], tp, [], ["uid", "manifestDigest"]);
    if (target["uid"] !== undefined) r.string(target["uid"], child(tp, "uid"), isUid, "a uid");
    if (target["manifestDigest"] !== undefined) r.string(target["manifestDigest"], child(tp, "manifestDigest"), isDigest, "a sha256 digest");
  }
  if (op["metadata"] !== undefined) {
    const mp = child(pointer, "metadata");
    const metadata = r.object(op["metadata"], mp, [], ["phase", "progress"]);
    if (metadata["phase"] !== undefined) r.string(metadata["phase"], child(mp, "phase"), (s) => PHASE.test(s), "a phase name");
    if (metadata["progress"] !== undefined) {
      const progress = metadata["progress"];
      if (typeof progress !== "number" || !Number.isInteger(progress) || progress < 0 || progress > 100) {
        r.fail(child(mp, "progress"), "carries a progress outside the integers 0..100");
      }
    }
  }
  if (op["result"] !== undefined) r.freeObject(op["result"], child(pointer, "result"));
  if (op["error"] !== undefined) {
    const ep = child(pointer, "error");
    const error = r.object(op["error"], ep, ["code", "message", "retryable"], ["hostCode"]);
    r.string(error["code"], child(ep, "code"), (s) => OP_ERROR_CODE.test(s), "an error code");
    r.nonEmptyString(error["message"], child(ep, "message"));
    r.boolean(error["retryable"], child(ep, "retryable"));
    if (error["hostCode"] !== undefined) r.nonEmptyString(error["hostCode"], child(ep, "hostCode"));
  }
  const hasResult = op["result"] !== undefined;
  const hasError = op["error"] !== undefined;
  if (!done && (hasResult || hasError)) r.fail(pointer, "is not done but carries a result or an error");
  if (done && hasResult === hasError) r.fail(pointer, "is done and must carry exactly one of result or error");
  return op as unknown as WireOperation;
}

/**
 * An Operation's terminal error as a HostApiError: the taxonomy's status for its code (0 when the
 * code is outside the taxonomy), and retryable only when the host said so for an auto-retryable code.
 * The host's text is redacted: the error is on its way out, the operation document is not.
 */
export function operationError(op: WireOperation, call: string, origin: "operation" | "delete-operation", redact: (text: string) => string): HostApiError {
  const e = op.error!;
  const init: ConstructorParameters<typeof HostApiError>[0] = {
    call,
    code: e.code,
    status: statusForCode(e.code),
    message: redact(e.message),
    retryable: e.retryable && AUTO_RETRYABLE.has(e.code),
    operationId: op.id,
    origin,
  };
  if (e.hostCode !== undefined) init.hostCode = redact(e.hostCode);
  return new HostApiError(init);
}

const BODY_IN_MESSAGE = 1024;

/**
 * A non-2xx answer: a HostApiError when the envelope is stable by every rule, else a
 * ProtocolInvalidError whose message is the trimmed body (or the status text).
 */
export function decodeErrorResponse(
  call: string,
  status: number,
  body: Uint8Array,
  retryAfterMs: number | undefined,
  redact: (text: string) => string,
): HostApiError | ProtocolInvalidError {
  const stable = stableEnvelope(status, body);
  if (stable) {
    const init: ConstructorParameters<typeof HostApiError>[0] = {
      call,
      code: stable.code,
      status,
      message: redact(stable.message),
      requestId: redact(stable.requestId),
      retryable: stable.retryable,
    };
    if (stable.hostCode !== undefined) init.hostCode = redact(stable.hostCode);
    if (stable.details !== undefined) init.details = redactJson(stable.details, redact);
    if (retryAfterMs !== undefined) init.retryAfterMs = retryAfterMs;
    return new HostApiError(init);
  }
  let text = Buffer.from(body.subarray(0, BODY_IN_MESSAGE * 4))
    .toString("utf8")
    .trim();
  if (text.length > BODY_IN_MESSAGE) text = `${text.slice(0, BODY_IN_MESSAGE)}…`;
  if (text === "") text = STATUS_CODES[status] ?? "no status text";
  return new ProtocolInvalidError(`takoform: ${call}: protocol-invalid host response (HTTP ${status}): ${redact(text)}`, status, retryAfterMs);
}

interface StableEnvelope {
  code: string;
  message: string;
  requestId: string;
  retryable: boolean;
  hostCode?: string;
  details?: JsonValue;
}

function stableEnvelope(status: number, body: Uint8Array): StableEnvelope | undefined {
  if (body.byteLength === 0 || body.byteLength > MAX_RESPONSE_BYTES) return undefined;
  let doc: JsonValue;
  try {
    doc = parseStrictJson(body, { maxDepth: MAX_RESPONSE_DEPTH });
  } catch {
    return undefined;
  }
  if (!isJsonObject(doc) || !onlyKeys(doc, ["error"], [])) return undefined;
  const e = doc["error"];
  if (!isJsonObject(e) || !onlyKeys(e, ["code", "message", "requestId", "retryable"], ["hostCode", "details"])) return undefined;
  const { code, message, requestId, retryable, hostCode } = e;
  if (typeof code !== "string" || typeof message !== "string" || typeof requestId !== "string") return undefined;
  if (code.trim() === "" || message.trim() === "" || requestId.trim() === "") return undefined;
  if (typeof retryable !== "boolean") return undefined;
  if (!isErrorCode(code) || statusForCode(code) !== status) return undefined;
  if (retryable && !AUTO_RETRYABLE.has(code)) return undefined;
  if (hostCode !== undefined && (typeof hostCode !== "string" || hostCode === "")) return undefined;
  const out: StableEnvelope = { code, message, requestId, retryable };
  if (hostCode !== undefined) out.hostCode = hostCode;
  if (e["details"] !== undefined) out.details = e["details"];
  return out;
}

function onlyKeys(o: { [k: string]: JsonValue }, required: string[], optional: string[]): boolean {
  for (const k of required) if (!Object.hasOwn(o, k)) return false;
  for (const k of Object.keys(o)) if (!required.includes(k) && !optional.includes(k)) return false;
  return true;
}

/** Applies `redact` to every string (keys included) of a JSON value. */
export function redactJson(value: JsonValue, redact: (text: string) => string): JsonValue {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((v) => redactJson(v, redact));
  if (isJsonObject(value)) {
    const out: { [k: string]: JsonValue } = {};
    for (const [k, v] of Object.entries(value)) {
      Object.defineProperty(out, redact(k), { value: redactJson(v, redact), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}
