// The bundled codecs, read when first used. Each codec is a JSON document generated into
// codecs/<family>/<version>/<slug>@<definitionVersion>.gen.json; the generated registry names
// them by path, and the record built here reads a file (synchronously, once) only when its
// codec is asked for, so a command pays for the Forms it touches, not for all of them.
//
// Whoever copies such a record must copy its property descriptors, not its values (a spread
// reads every codec): see combineGenerated and CodecTable.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../core/package-root.ts";
import type { FormCodec } from "./codec-types.ts";

/** The generated header a codec document carries in its `//` member, which is not part of the codec. */
const HEADER_MEMBER = "//";

/** Reads one generated codec document. */
export function readCodecDocument(file: string): FormCodec {
  const document = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  delete document[HEADER_MEMBER];
  return document as unknown as FormCodec;
}

/**
 * formRefKey → codec, each property a getter that reads `files[key]` (relative to the package
 * root) on first access and keeps the result.
 */
export function lazyCodecs(files: Readonly<Record<string, string>>): Readonly<Record<string, FormCodec>> {
  const root = packageRoot();
  const record: Record<string, FormCodec> = {};
  for (const [key, path] of Object.entries(files)) {
    let codec: FormCodec | undefined;
    Object.defineProperty(record, key, { enumerable: true, get: () => (codec ??= readCodecDocument(join(root, path))) });
  }
  return Object.freeze(record);
}

/** A record holding every property of `records` in order, later ones winning, without reading any codec. */
export function mergeCodecRecords(...records: Readonly<Record<string, FormCodec>>[]): Readonly<Record<string, FormCodec>> {
  const merged: Record<string, FormCodec> = {};
  for (const record of records) {
    for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(record))) {
      Object.defineProperty(merged, key, { ...descriptor, configurable: true });
    }
  }
  return Object.freeze(merged);
}
