// Static assets of a WorkerVersion (reference v1beta1 §8.7): the files of the StaticAssetBundle its
// `assets` pins, served from the exact manifest and the exact blob bytes the bundle's tenant holds.
//
// URL → manifest path is one closed operation: the query and fragment are dropped; the escaped
// pathname must start with "/"; an encoded "/" or "\" (%2F, %5C) or a raw "\" is refused; it is
// percent-decoded exactly once, strictly (a malformed escape or bytes that are not UTF-8 are
// refused); controls, Unicode noncharacters and "\" are refused; exactly one leading "/" is
// removed; the root ("/") is the empty path, which no file has; every other path must have no
// empty, "." or ".." segment (so no trailing or doubled "/") and satisfy the manifest path grammar
// (≤ 240 characters). A path that fails is INVALID: it never matches a file and never falls back
// to index.html.
//
// What the lane leaves open, and this runtime chooses (docs/runtime.md, "Static assets"):
//   - only GET and HEAD reach the asset stage; other methods go to the worker as if it missed;
//   - an asset answer is 200 with the manifest entry's mediaType as Content-Type, its exact
//     Content-Length, and a strong ETag of the file's sha256 (an If-None-Match naming it is 304);
//   - a miss with no fetch handler to ask is a host-generated 404 (asset_not_found); an invalid
//     path with none is 400 (asset_path_invalid).

import type { WireArtifactManifest } from "../../core/index.ts";
import type { Store } from "../store/index.ts";
import type { ResponseHead } from "./isolate.ts";
import { RuntimeFailure } from "./limits.ts";
import type { HeaderList } from "./wire.ts";

const PATH = /^[A-Za-z0-9_][A-Za-z0-9._-]*(?:\/[A-Za-z0-9_][A-Za-z0-9._-]*)*$/;
const MAX_PATH = 240;
const decoder = new TextDecoder("utf-8", { fatal: true });

/** The manifest path a URL's escaped pathname names: a path, "" for the root, or null when invalid. */
export function canonicalAssetPath(escaped: string): string | null {
  const cut = escaped.search(/[?#]/);
  const raw = cut < 0 ? escaped : escaped.slice(0, cut);
  if (!raw.startsWith("/")) return null;
  if (/%(?:2f|5c)/i.test(raw) || raw.includes("\\")) return null;
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (raw[i] === "%") {
      const hex = raw.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return null;
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else if (c < 0x80) {
      bytes.push(c);
    } else {
      // A raw non-ASCII character in a request target: its UTF-8 bytes, as if it had been escaped.
      const point = raw.codePointAt(i)!;
      bytes.push(...Buffer.from(String.fromCodePoint(point), "utf8"));
      if (point > 0xffff) i++;
    }
  }
  let decoded: string;
  try {
    decoded = decoder.decode(Uint8Array.from(bytes));
  } catch {
    return null;
  }
  for (const ch of decoded) {
    const point = ch.codePointAt(0)!;
    if (point < 0x20 || (point >= 0x7f && point <= 0x9f) || ch === "\\") return null;
    if ((point >= 0xfdd0 && point <= 0xfdef) || (point & 0xfffe) === 0xfffe) return null;
  }
  const path = decoded.slice(1);
  if (path === "") return "";
  for (const segment of path.split("/")) if (segment === "" || segment === "." || segment === "..") return null;
  if (path.length > MAX_PATH || !PATH.test(path)) return null;
  return path;
}

/** The pathname (escaped, with query) of a URL a worker is handed: `http://host:port/path?q`. */
export function requestTarget(url: string): string {
  const scheme = url.indexOf("://");
  const slash = url.indexOf("/", scheme < 0 ? 0 : scheme + 3);
  return slash < 0 ? "/" : url.slice(slash);
}

export type AssetLookup = { kind: "hit"; response: ResponseHead } | { kind: "miss" } | { kind: "invalid" };

export interface AssetRequest {
  method: string;
  url: string;
  headers: HeaderList;
}

export interface AssetBundle {
  tenant: string;
  manifestDigest: string;
}

type ManifestFile = NonNullable<WireArtifactManifest["files"]>[number];

function etagOf(file: ManifestFile): string {
  return `"${file.digest.slice("sha256:".length)}"`;
}

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch
    .split(",")
    .map((t) => t.trim().replace(/^W\//, ""))
    .some((t) => t === "*" || t === etag);
}

/** Looks requests up in StaticAssetBundles; manifests are immutable, so each is parsed once. */
export class AssetServer {
  private readonly manifests = new Map<string, Map<string, ManifestFile> | null>();

  constructor(private readonly store: Store) {}

  private files(bundle: AssetBundle): Map<string, ManifestFile> | null {
    const key = `${bundle.tenant} ${bundle.manifestDigest}`;
    if (this.manifests.has(key)) return this.manifests.get(key)!;
    const text = this.store.artifacts.manifest(bundle.tenant, bundle.manifestDigest);
    let files: Map<string, ManifestFile> | null = null;
    if (text !== undefined) {
      const manifest = JSON.parse(text) as WireArtifactManifest;
      if (manifest.kind === "StaticAssetBundle") files = new Map((manifest.files ?? []).map((f) => [f.path, f]));
    }
    if (this.manifests.size >= 256) this.manifests.delete(this.manifests.keys().next().value!);
    this.manifests.set(key, files);
    return files;
  }

  /** The asset stage of one request; `spa` serves index.html for a valid path the bundle lacks. */
  lookup(bundle: AssetBundle, spa: boolean, request: AssetRequest): AssetLookup {
    const path = canonicalAssetPath(requestTarget(request.url));
    if (path === null) return { kind: "invalid" };
    const files = this.files(bundle);
    if (files === null) return { kind: "miss" };
    const file = files.get(path) ?? (spa ? files.get("index.html") : undefined);
    if (file === undefined) return { kind: "miss" };
    const bytes = this.store.artifacts.holdsBlob(bundle.tenant, file.digest) ? this.store.artifacts.blobBytes(file.digest) : undefined;
    if (bytes === undefined) return { kind: "miss" };
    const etag = etagOf(file);
    const ifNoneMatch = request.headers.find(([name]) => name === "if-none-match")?.[1];
    if (matches(ifNoneMatch, etag)) return { kind: "hit", response: { status: 304, headers: [["etag", etag]], inline: new Uint8Array(0), body: null } };
    return {
      kind: "hit",
      response: {
        status: 200,
        headers: [
          ["content-type", file.mediaType],
          ["etag", etag],
        ],
        inline: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
        body: null,
      },
    };
  }
}

/** Why no stage answered a request when there was no fetch handler to ask. */
export function assetMiss(invalid: boolean): RuntimeFailure {
  return invalid
    ? new RuntimeFailure("asset_path_invalid", "the request path is not a canonical static-asset path, and the version has no fetch handler")
    : new RuntimeFailure("asset_not_found", "no static asset at this path, and the version has no fetch handler");
}
