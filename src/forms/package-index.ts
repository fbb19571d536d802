// Form Package indexes (packages.forms.takoform.com/v1alpha4): reading, verifying against the
// bytes on disk, and building one. The packageDigest is the canonical digest of the whole
// index; each listed file carries the digest and size of its raw bytes, so a reformatted
// payload keeps its identity but fails its index.

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { compareUtf8, type FormRef, isDigest, isFormRef, PACKAGE_API_VERSION, toFormRef } from "../core/index.ts";
import type { FormModel } from "./definition-types.ts";
import { isPackagePath } from "./definition.ts";
import { digestBytes, digestCanonical, type JsonValue } from "./digest.ts";
import { DefinitionError } from "./errors.ts";
import { child, ShapeReader } from "./shape.ts";
import { parseStrictJson, StrictJsonError } from "./strict-json.ts";

export const PACKAGE_INDEX_FILE = "package-index.json";
export const DEFINITION_MEDIA_TYPE = "application/vnd.takoform.form-definition.v1+json";
export const PACKAGE_MEDIA_TYPES = [DEFINITION_MEDIA_TYPE, "application/schema+json", "application/json", "text/markdown", "text/plain"] as const;
export const MAX_PACKAGE_FILE_SIZE = 67108864;

export interface PackageFile {
  path: string;
  mediaType: string;
  size: number;
  digest: string;
}

export interface PackageIndex {
  apiVersion: string;
  kind: "FormPackage";
  formRef: FormRef;
  definitionPath: string;
  files: PackageFile[];
}

/** Checks the structure of a package index document. Throws DefinitionError. */
export function readPackageIndex(document: JsonValue, origin: { file?: string } = {}): PackageIndex {
  const r: ShapeReader = new ShapeReader(origin.file);
  const doc = r.object(document, "", "a package index");
  r.closed(doc, "", ["apiVersion", "kind", "formRef", "definitionPath", "files"], ["apiVersion", "kind", "formRef", "definitionPath", "files"]);
  r.string(doc.apiVersion, "/apiVersion", { oneOf: [PACKAGE_API_VERSION] });
  r.string(doc.kind, "/kind", { oneOf: ["FormPackage"] });
  if (!isFormRef(doc.formRef)) r.fail("member-invalid", "/formRef", "must be a complete FormRef {apiVersion, kind, definitionVersion, schemaDigest}");
  const definitionPath = r.string(doc.definitionPath, "/definitionPath", { test: isPackagePath, grammar: "package path" });
  const seen = new Set<string>();
  let definitionEntries = 0;
  const files = r.array(doc.files, "/files", { minItems: 1 }).map((entry, i): PackageFile => {
    const at = child("/files", i);
    const file = r.object(entry, at, "a file entry");
    r.closed(file, at, ["path", "mediaType", "size", "digest"], ["path", "mediaType", "size", "digest"]);
    const path = r.string(file.path, child(at, "path"), { test: isPackagePath, grammar: "package path" });
    if (seen.has(path)) r.fail("member-invalid", child(at, "path"), `${path} is listed twice`);
    seen.add(path);
    const mediaType = r.string(file.mediaType, child(at, "mediaType"), { oneOf: PACKAGE_MEDIA_TYPES });
    if (mediaType === DEFINITION_MEDIA_TYPE) definitionEntries++;
    const size = r.integer(file.size, child(at, "size"), 0, MAX_PACKAGE_FILE_SIZE);
    const digest = r.string(file.digest, child(at, "digest"), { test: isDigest, grammar: "sha256 digest" });
    return { path, mediaType, size, digest };
  });
  if (definitionEntries !== 1) r.fail("member-invalid", "/files", `exactly one file must have media type ${DEFINITION_MEDIA_TYPE}`);
  const definitionEntry = files.find((f) => f.path === definitionPath);
  if (definitionEntry === undefined || definitionEntry.mediaType !== DEFINITION_MEDIA_TYPE) {
    r.fail("member-invalid", "/definitionPath", `${definitionPath} must be listed with media type ${DEFINITION_MEDIA_TYPE}`);
  }
  return { apiVersion: PACKAGE_API_VERSION, kind: "FormPackage", formRef: toFormRef(doc.formRef as unknown as FormRef), definitionPath, files };
}

/**
 * Compares an index with the package directory: every listed file present with the listed
 * size and raw digest, and nothing unlisted beside it. `present` is every file in the
 * directory (relative, `/`-separated) except the index itself.
 */
export function verifyPackageFiles(index: PackageIndex, directory: string, present: readonly string[], indexFile: string): DefinitionError[] {
  const problems: DefinitionError[] = [];
  const listed = new Set<string>();
  index.files.forEach((entry, i) => {
    listed.add(entry.path);
    const at = child("/files", i);
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(directory, entry.path));
    } catch {
      problems.push(new DefinitionError("package-file-missing", child(at, "path"), `${entry.path} is listed but absent`, { file: indexFile }));
      return;
    }
    if (bytes.length !== entry.size) {
      problems.push(
        new DefinitionError("package-file-mismatch", child(at, "size"), `${entry.path} is ${bytes.length} bytes, the index says ${entry.size}`, {
          file: indexFile,
        }),
      );
    }
    const digest = digestBytes(bytes);
    if (digest !== entry.digest) {
      problems.push(
        new DefinitionError("package-file-mismatch", child(at, "digest"), `${entry.path} hashes to ${digest}, the index says ${entry.digest}`, {
          file: indexFile,
        }),
      );
    }
  });
  for (const path of present) {
    if (!listed.has(path)) {
      problems.push(new DefinitionError("package-file-unlisted", "/files", `${path} is in the package directory but not in its index`, { file: indexFile }));
    }
  }
  return problems;
}

/** Writes a JSON document in the corpus byte format: two-space indentation and a final newline. */
export function writeJsonFile(path: string, value: JsonValue): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** The media type a package payload is listed under, by its name. */
export function packageMediaType(path: string, definitionPath: string): string {
  if (path === definitionPath) return DEFINITION_MEDIA_TYPE;
  if (path.endsWith(".schema.json")) return "application/schema+json";
  if (path.endsWith(".json")) return "application/json";
  if (path.endsWith(".md")) return "text/markdown";
  if (path.endsWith(".txt")) return "text/plain";
  throw new DefinitionError("package-file-media-type", "", `${path} has no package media type (.json, .schema.json, .md, .txt)`);
}

/**
 * Builds the index of a package directory: every file in it (dot-files excepted) with its raw
 * size and digest, sorted by path; the index never lists itself. The definition file must hold
 * exactly the definition given (its canonical digest is checked).
 */
export function buildPackageIndex(formDirectory: string, definition: FormModel, options: { definitionPath?: string } = {}): PackageIndex {
  const definitionPath = options.definitionPath ?? "definition.json";
  const paths = listPackageFiles(formDirectory).filter((p) => p !== PACKAGE_INDEX_FILE);
  if (!paths.includes(definitionPath)) {
    throw new DefinitionError("package-definition-missing", "", `${definitionPath} is not in ${formDirectory}`);
  }
  const files = paths.map((path): PackageFile => {
    if (!isPackagePath(path)) throw new DefinitionError("package-file-media-type", "", `${path} is not a valid package path`);
    const bytes = readFileSync(join(formDirectory, path));
    if (bytes.length > MAX_PACKAGE_FILE_SIZE) throw new DefinitionError("package-file-mismatch", "", `${path} exceeds ${MAX_PACKAGE_FILE_SIZE} bytes`);
    if (path === definitionPath) {
      let digest: string;
      try {
        digest = digestCanonical(parseStrictJson(bytes));
      } catch (error) {
        if (!(error instanceof StrictJsonError)) throw error;
        throw new DefinitionError("json-invalid", error.pointer, error.message, { file: join(formDirectory, path), cause: error });
      }
      if (digest !== definition.ref.schemaDigest) {
        throw new DefinitionError(
          "package-formref-mismatch",
          "",
          `${path} on disk has schemaDigest ${digest}, not the definition's ${definition.ref.schemaDigest}`,
          { file: join(formDirectory, path) },
        );
      }
    }
    return { path, mediaType: packageMediaType(path, definitionPath), size: bytes.length, digest: digestBytes(bytes) };
  });
  return { apiVersion: PACKAGE_API_VERSION, kind: "FormPackage", formRef: toFormRef(definition.ref), definitionPath, files };
}

/** Every regular file under `directory`, relative and `/`-separated, sorted; dot-entries skipped. */
export function listPackageFiles(directory: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, prefix: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith(".")) continue;
      const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory()) walk(join(dir, entry.name), rel);
      else if (entry.isFile()) out.push(rel);
    }
  };
  walk(directory, "");
  return out.sort(compareUtf8);
}
