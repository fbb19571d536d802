// AES-256-GCM under a key derived from sensitive variables' values: the one scheme behind sealed
// write intents (intent.ts) and recoverable sensitive outputs (output.ts). The key is HKDF-SHA256
// over a purpose's label and the canonical JSON of the (name, value) pairs, salted with the
// state's lineage; each purpose has its own label and info, so the keys of two uses never meet,
// and none meets the value seals' HMAC (no JSON value starts with a label). The caller binds what
// the ciphertext belongs to as associated data.

import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import type { KnownValue } from "../core/index.ts";
import { canonicalJson } from "../core/canonical-json.ts";

/** The secret inputs: each sensitive variable's name and value, sorted by name. */
export type VariableSecrets = readonly (readonly [string, KnownValue])[];

/** What a key is for: its HKDF input label (ends with a newline) and info. */
export interface KeyPurpose {
  label: string;
  info: string;
}

/** A ciphertext as stored, base64: the 12-byte nonce, the 16-byte tag, the data. */
export interface CipherBox {
  iv: string;
  tag: string;
  data: string;
}

/** A ciphertext as a record stores it: the scheme's version and names, the variables whose values derive the key (sorted), and the box. */
export interface VariableCipherRecord<V extends number> extends CipherBox {
  v: V;
  alg: "AES-256-GCM";
  kdf: "HKDF-SHA256";
  variables: string[];
}

function deriveKey(purpose: KeyPurpose, lineage: string, secrets: VariableSecrets): Buffer {
  const material = Buffer.from(purpose.label + canonicalJson(secrets.map(([name, value]) => [name, value]) as KnownValue), "utf8");
  return Buffer.from(hkdfSync("sha256", material, Buffer.from(lineage, "utf8"), Buffer.from(purpose.info, "utf8"), 32));
}

export function encryptUnderVariables(purpose: KeyPurpose, lineage: string, secrets: VariableSecrets, associated: Buffer, plaintext: string): CipherBox {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", deriveKey(purpose, lineage, secrets), iv);
  cipher.setAAD(associated);
  const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return { iv: iv.toString("base64"), tag: cipher.getAuthTag().toString("base64"), data: data.toString("base64") };
}

/** The plaintext; throws when the variables' values, the lineage or the associated data differ from the ones it was sealed with. */
export function decryptUnderVariables(purpose: KeyPurpose, lineage: string, secrets: VariableSecrets, associated: Buffer, box: CipherBox): string {
  const decipher = createDecipheriv("aes-256-gcm", deriveKey(purpose, lineage, secrets), Buffer.from(box.iv, "base64"));
  decipher.setAAD(associated);
  decipher.setAuthTag(Buffer.from(box.tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(box.data, "base64")), decipher.final()]).toString("utf8");
}
