// The data-plane ceilings that differ by lane (src/core/lanes.ts dataPlane; reference v1beta1
// §8.3, §13 item 13): KV keys, object keys and queue message bodies are smaller on v1beta1 (467,
// 979 and 127000 bytes) than on the first lane (512, 1024, 131072). The stores enforce the first
// lane's — the larger — themselves; a call from a worker of a lane with smaller ones is checked
// here first, with the Interface's own error code. A key is measured as UTF-8 bytes, so it is
// also within the Interface's code-point maximum.

import type { Lane } from "../../../core/index.ts";
import { BindingError, bytesArg } from "./errors.ts";

type DataPlane = Lane["dataPlane"];

function utf8Over(value: unknown, max: number): boolean {
  return typeof value === "string" && Buffer.byteLength(value, "utf8") > max;
}

function prefixOf(options: unknown): unknown {
  return options !== null && typeof options === "object" ? (options as { prefix?: unknown }).prefix : undefined;
}

const KEYED_OBJECT_OPS: ReadonlySet<string> = new Set([
  "head",
  "get",
  "put",
  "delete",
  "createMultipartUpload",
  "uploadPart",
  "completeMultipartUpload",
  "abortMultipartUpload",
]);

/** Refuses a binding call that exceeds its lane's ceilings (before the store sees it). */
export function checkLaneLimits(plane: DataPlane, kind: string, op: string, args: readonly unknown[]): void {
  switch (kind) {
    case "kv": {
      const key = args[0];
      if (utf8Over(key, plane.kvMaxKeyBytes))
        throw new BindingError("invalid_key", `a KV ${op === "list" ? "list prefix" : "key"} is at most ${plane.kvMaxKeyBytes} bytes`);
      return;
    }
    case "objects": {
      if (KEYED_OBJECT_OPS.has(op) && utf8Over(args[0], plane.objectMaxKeyBytes))
        throw new BindingError("invalid_key", `an object key is at most ${plane.objectMaxKeyBytes} bytes`);
      if (op === "list" && utf8Over(prefixOf(args[0]), plane.objectMaxKeyBytes))
        throw new BindingError("invalid_key", `a list prefix is at most ${plane.objectMaxKeyBytes} bytes`);
      return;
    }
    case "queue": {
      const bodies =
        op === "send"
          ? [args[0]]
          : op === "sendBatch" && Array.isArray(args[0])
            ? (args[0] as unknown[][]).map((m) => (Array.isArray(m) ? m[0] : undefined))
            : [];
      for (const body of bodies) {
        if (body === undefined) continue;
        if (bytesArg(body, "a message body", "invalid_body").byteLength > plane.queueMaxMessageBytes) {
          throw new BindingError("message_too_large", `a message body is at most ${plane.queueMaxMessageBytes} bytes`);
        }
      }
      return;
    }
  }
}
