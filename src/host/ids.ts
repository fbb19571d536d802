// Host-issued identifiers: short, grammar-valid, random (never derived from names, so a
// re-created resource always gets a new uid).

import { randomBytes } from "node:crypto";
import { OPERATION_ID, UPLOAD_ID } from "../core/index.ts";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

// Random bytes are drawn from a pool refilled in bulk: one syscall per 8 KiB, not per id.
const POOL_SIZE = 8192;
let pool = randomBytes(POOL_SIZE);
let offset = 0;

function base32(length: number): string {
  if (offset + length > POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  let out = "";
  for (let i = 0; i < length; i++) out += ALPHABET[pool[offset + i]! & 31];
  offset += length;
  return out;
}

/** `u` + 20 base32 characters (100 random bits). */
export function newUid(): string {
  return `u${base32(20)}`;
}

export function newOperationId(): string {
  return `op_${base32(24)}`;
}

export function newUploadId(): string {
  return `up_${base32(24)}`;
}

export function newRequestId(): string {
  return `req_${base32(16)}`;
}

export function isOperationId(value: string): boolean {
  return value.length <= 128 && OPERATION_ID.test(value);
}

export function isUploadId(value: string): boolean {
  return value.length <= 128 && UPLOAD_ID.test(value);
}
