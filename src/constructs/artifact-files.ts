// Directory authoring of the two files manifests (reference v1beta1 §7, §10.4): the `files` list
// of a StaticAssetBundle or SQLiteMigrationSet construct, built from a directory at synth time.
// Only paths, media types and local file names are written; the provider reads the bytes.
//
// - Static assets: every file under the directory, recursively, sorted by path (a stable order;
//   the order of an asset bundle means nothing but is part of its digest). A file or directory
//   whose name starts with "." is left out: the artifact path grammar cannot name it. The media
//   type comes from the extension (DEFAULT_ASSET_MEDIA_TYPES, overridable), else
//   application/octet-stream.
// - Migrations: the `.sql` files directly in the directory, sorted by name — that order is the
//   migration order, so number them with zero-padded prefixes (`0001_init.sql`). Everything else
//   in the directory (a README, subdirectories) is left out. Each is `application/sql`.

import { readdirSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { MIGRATION_MEDIA_TYPE } from "../core/index.ts";
import type { ArtifactFile } from "./resource.ts";

/** File extension (lowercase, without the dot) → static asset media type; anything else is application/octet-stream. */
export const DEFAULT_ASSET_MEDIA_TYPES: Readonly<Record<string, string>> = {
  html: "text/html",
  htm: "text/html",
  css: "text/css",
  js: "text/javascript",
  mjs: "text/javascript",
  json: "application/json",
  map: "application/json",
  webmanifest: "application/manifest+json",
  txt: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  xml: "application/xml",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
  ico: "image/x-icon",
  woff: "font/woff",
  woff2: "font/woff2",
  ttf: "font/ttf",
  otf: "font/otf",
  wasm: "application/wasm",
  pdf: "application/pdf",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  mp4: "video/mp4",
  webm: "video/webm",
};

const FALLBACK_MEDIA_TYPE = "application/octet-stream";

function isFile(full: string, entry: { isFile(): boolean; isSymbolicLink(): boolean }): boolean {
  return entry.isFile() || (entry.isSymbolicLink() && statSync(full).isFile());
}

/** Code-unit order, the same on every machine and locale. */
function byPath(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The local file name the synthesized JSON carries: relative to the directory the app runs in
 * (the project directory), so the output is the same on every checkout; absolute outside it.
 */
export function projectFilePath(full: string): string {
  const rel = relative(process.cwd(), full);
  return rel === "" || rel.startsWith("..") || isAbsolute(rel) ? full : rel.split(sep).join("/");
}

/** Every file under `dir` as a posix-style relative path, sorted; dotfiles and dot-directories left out. */
export function listAssetFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (current: string): void => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      if (entry.name.startsWith(".")) continue;
      const full = join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (isFile(full, entry)) out.push(relative(dir, full).split(sep).join("/"));
    }
  };
  walk(dir);
  return out.sort(byPath);
}

/** The media type of an asset path by its extension. */
export function assetMediaType(path: string, table: Readonly<Record<string, string>> = DEFAULT_ASSET_MEDIA_TYPES): string {
  const dot = path.lastIndexOf(".");
  const extension = dot < 0 || dot < path.lastIndexOf("/") ? "" : path.slice(dot + 1).toLowerCase();
  return table[extension] ?? FALLBACK_MEDIA_TYPE;
}

/**
 * The `files` of a StaticAssetBundle from a directory: every file below it (dotfiles left out),
 * sorted by path, each with the media type of its extension (`mediaTypes` merged over
 * DEFAULT_ASSET_MEDIA_TYPES). Throws when the directory cannot be read.
 */
export function staticAssetFiles(dir: string, options: { mediaTypes?: Readonly<Record<string, string>> } = {}): ArtifactFile[] {
  const root = resolve(dir);
  const table = { ...DEFAULT_ASSET_MEDIA_TYPES, ...options.mediaTypes };
  return listAssetFiles(root).map((path) => ({ path, mediaType: assetMediaType(path, table), contentFile: projectFilePath(join(root, ...path.split("/"))) }));
}

/** The `.sql` files directly in `dir`, sorted by name: the migration order. */
export function listMigrationFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".") || !entry.name.toLowerCase().endsWith(".sql")) continue;
    if (isFile(join(dir, entry.name), entry)) out.push(entry.name);
  }
  return out.sort(byPath);
}

/**
 * The `files` of a SQLiteMigrationSet from a directory: its `.sql` files sorted by name, which is
 * the order they run in, each `application/sql`. Throws when the directory cannot be read.
 */
export function migrationFiles(dir: string): ArtifactFile[] {
  const root = resolve(dir);
  return listMigrationFiles(root).map((path) => ({ path, mediaType: MIGRATION_MEDIA_TYPE, contentFile: projectFilePath(join(root, path)) }));
}
