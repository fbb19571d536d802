// Validators precompiled at generation time: `npm run gen` writes the ajv standalone code of every
// schema in the bundled Form packages to registry/generated/validators/<hex>.gen.cjs, named by the
// schema's canonical digest (sha256 hex). A file is loaded only when a spec is first validated
// against a schema with that digest, so a command pays for the validators of the Forms it touches
// and never for ajv's compiler. Content addressing means a file can only ever serve the schema it was compiled from;
// a stale or missing file just falls back to compiling (and the staleness test catches it).

import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { ValidateFunction } from "ajv/dist/2020.js";
import { packageRoot } from "../core/package-root.ts";

/** Where the bundled packages' precompiled validators live. */
export const PRECOMPILED_VALIDATORS_DIR = join(packageRoot(), "registry", "generated", "validators");

/** `sha256:<hex>` → `<hex>.gen.cjs` */
export function precompiledFileName(digest: string): string {
  return `${digest.slice(digest.indexOf(":") + 1)}.gen.cjs`;
}

// CommonJS so that loading stays synchronous (validation is synchronous) and lazy.
const require = createRequire(import.meta.url);
let available: Set<string> | undefined;

/**
 * A loader of the precompiled validator of the schema with this canonical digest, if the package
 * has one. Calling it loads the file (once; later calls return the same function).
 */
export function precompiledValidator(digest: string): (() => ValidateFunction) | undefined {
  if (available === undefined) {
    try {
      available = new Set(readdirSync(PRECOMPILED_VALIDATORS_DIR));
    } catch {
      available = new Set();
    }
  }
  const name = precompiledFileName(digest);
  if (!available.has(name)) return undefined;
  return () => require(join(PRECOMPILED_VALIDATORS_DIR, name)) as ValidateFunction;
}
