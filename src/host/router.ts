// Path routing. Dispatch looks at the ESCAPED path: it is split on "/" first and each segment
// is percent-decoded on its own, so an encoded slash can never join or split segments. A Form
// group travels as two ordinary segments ({formGroup}/{formVersion}) and is rejoined here.
//
// Unknown routes and methods answer `invalid_argument` naming what was wrong, never
// `resource_not_found`: only a structured resource_not_found means "absent" to a client, and a
// misrouted DELETE must not look like "already gone" (reference §11 Q9). A lane this host does
// not serve is such an unknown route, named as one (hostCode `unknown_route`): a client asks the
// next lane then (docs/client.md, lane negotiation).
//
// The lane is the route's first segments, matched whole (`/apis/forms.takoform.com/<lane>`); the
// rest is parsed by position, so a Form group whose version segment spells the same word as the
// lane (`…/v1beta1/resources/edge.forms.takoform.com/v1beta1/Kind/name`) is never confused with it.

import { type Lane, LANES } from "../core/index.ts";
import { HostError, invalidArgument } from "./errors.ts";

export type RouteName =
  | "discovery"
  | "forms"
  | "form-definition"
  | "support-forms"
  | "support-form"
  | "support-interface"
  | "support-binding"
  | "validate"
  | "prepare"
  | "apply"
  | "read"
  | "delete"
  | "import"
  | "observe"
  | "operation"
  | "operation-cancel"
  | "artifact-upload-start"
  | "artifact-blob-upload"
  | "artifact-commit"
  | "artifact-upload-abandon"
  | "artifact-manifest-read"
  | "artifact-blob-head";

export interface RouteMatch {
  route: RouteName;
  /** The lane whose discovery path or API root the target starts with. */
  lane: Lane;
  /** Decoded path parameters; `group` is the rejoined `{formGroup}/{formVersion}`. */
  params: Record<string, string>;
  /** The raw query string without `?`, or null when the target had none. */
  query: string | null;
}

const LANE_SEGMENTS = LANES.map((lane) => ({ lane, discovery: lane.discoveryPath.split("/").slice(1), api: lane.apiRoot.split("/").slice(1) }));

/** Decodes one escaped path segment strictly. */
export function decodeSegment(segment: string): string {
  if (!segment.includes("%")) return segment;
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    throw invalidArgument(`path segment ${JSON.stringify(segment)} has invalid percent-encoding`);
  }
  return decoded;
}

const PATH_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;

/** Splits a request target into escaped path and raw query. */
export function splitTarget(target: string): { path: string; query: string | null } {
  if (!target.startsWith("/")) throw invalidArgument("the request target must be an absolute path");
  const q = target.indexOf("?");
  const path = q < 0 ? target : target.slice(0, q);
  const query = q < 0 ? null : target.slice(q + 1);
  if (!PATH_CHARS.test(path)) throw invalidArgument("the request path carries characters that must be percent-encoded");
  return { path, query };
}

type LaneFreeMatch = Omit<RouteMatch, "lane">;

/** Picks the route for `method` among those a path serves, or refuses the method. */
function allowed(
  method: string,
  _path: RouteName,
  params: Record<string, string>,
  query: string | null,
  methods: Partial<Record<string, RouteName>>,
): LaneFreeMatch {
  const hit = Object.hasOwn(methods, method) ? methods[method] : undefined;
  if (hit === undefined) {
    throw invalidArgument(`method ${method} is not allowed on this route (allowed: ${Object.keys(methods).join(", ")})`, {
      hostCode: "method_not_allowed",
    });
  }
  return { route: hit, params, query };
}

/**
 * Resolves a method and request target to one route of a served lane, or refuses with
 * invalid_argument (an unknown route, or a lane the host does not serve).
 */
export function route(method: string, target: string, served: { has(lane: string): boolean }): RouteMatch {
  const { path, query } = splitTarget(target);
  const raw = path.slice(1).split("/");
  const segments: string[] = [];
  for (const segment of raw) {
    const decoded = decodeSegment(segment);
    // No path segment ever carries an encoded slash: the group is two ordinary segments.
    if (decoded.includes("/")) throw invalidArgument("a path segment may not encode a slash; a Form group travels as two segments");
    segments.push(decoded);
  }
  if (segments.some((s) => s.length === 0)) throw unknownRoute(path);
  for (const { lane, discovery, api } of LANE_SEGMENTS) {
    if (startsWith(segments, discovery) && segments.length === discovery.length) {
      if (!served.has(lane.name)) throw unservedLane(lane);
      return { ...allowed(method, "discovery", {}, query, { GET: "discovery" }), lane };
    }
    if (!startsWith(segments, api)) continue;
    if (!served.has(lane.name)) throw unservedLane(lane);
    const match = apiRoute(method, segments.slice(api.length), query);
    if (match === undefined) throw unknownRoute(path);
    return { ...match, lane };
  }
  throw unknownRoute(path);
}

function apiRoute(method: string, s: string[], query: string | null): LaneFreeMatch | undefined {
  const [head] = s;
  const n = s.length;
  if (head === "forms" && n === 1) return allowed(method, "forms", {}, query, { GET: "forms" });
  if (head === "form-definitions" && n === 4) {
    return allowed(method, "form-definition", groupParams(s[1]!, s[2]!, { kind: s[3]! }), query, { GET: "form-definition" });
  }
  if (head === "support") {
    if (n === 2 && s[1] === "forms") return allowed(method, "support-forms", {}, query, { GET: "support-forms" });
    if (n === 6 && s[1] === "forms") {
      return allowed(method, "support-form", groupParams(s[2]!, s[3]!, { kind: s[4]!, definitionVersion: s[5]! }), query, {
        GET: "support-form",
      });
    }
    if (n === 4 && s[1] === "interfaces") {
      return allowed(method, "support-interface", { name: s[2]!, version: s[3]! }, query, { GET: "support-interface" });
    }
    if (n === 4 && s[1] === "bindings") {
      return allowed(method, "support-binding", { name: s[2]!, version: s[3]! }, query, { GET: "support-binding" });
    }
    return undefined;
  }
  if (head === "resources") {
    if (n === 2 && s[1] === "validate") return allowed(method, "validate", {}, query, { POST: "validate" });
    if (n === 2 && s[1] === "prepare") return allowed(method, "prepare", {}, query, { POST: "prepare" });
    if (n === 5) {
      return allowed(method, "read", groupParams(s[1]!, s[2]!, { kind: s[3]!, name: s[4]! }), query, {
        GET: "read",
        PUT: "apply",
        DELETE: "delete",
      });
    }
    if (n === 6 && (s[5] === "import" || s[5] === "observe")) {
      const action: RouteName = s[5] === "import" ? "import" : "observe";
      return allowed(method, action, groupParams(s[1]!, s[2]!, { kind: s[3]!, name: s[4]! }), query, { POST: action });
    }
    return undefined;
  }
  if (head === "operations") {
    if (n === 2) return allowed(method, "operation", { id: s[1]! }, query, { GET: "operation" });
    if (n === 3 && s[2] === "cancel") return allowed(method, "operation-cancel", { id: s[1]! }, query, { POST: "operation-cancel" });
    return undefined;
  }
  if (head === "artifacts") {
    if (n === 2 && s[1] === "uploads") return allowed(method, "artifact-upload-start", {}, query, { POST: "artifact-upload-start" });
    if (n === 3 && s[1] === "uploads") {
      return allowed(method, "artifact-upload-abandon", { uploadId: s[2]! }, query, { DELETE: "artifact-upload-abandon" });
    }
    if (n === 4 && s[1] === "uploads" && s[3] === "commit") {
      return allowed(method, "artifact-commit", { uploadId: s[2]! }, query, { POST: "artifact-commit" });
    }
    if (n === 5 && s[1] === "uploads" && s[3] === "blobs") {
      return allowed(method, "artifact-blob-upload", { uploadId: s[2]!, digest: s[4]! }, query, { PUT: "artifact-blob-upload" });
    }
    if (n === 3 && s[1] === "blobs") return allowed(method, "artifact-blob-head", { digest: s[2]! }, query, { HEAD: "artifact-blob-head" });
    if (n === 2) return allowed(method, "artifact-manifest-read", { manifestDigest: s[1]! }, query, { GET: "artifact-manifest-read" });
    return undefined;
  }
  return undefined;
}

function groupParams(formGroup: string, formVersion: string, rest: Record<string, string>): Record<string, string> {
  return { group: `${formGroup}/${formVersion}`, ...rest };
}

function startsWith(segments: readonly string[], prefix: readonly string[]): boolean {
  if (segments.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (segments[i] !== prefix[i]) return false;
  return true;
}

function unknownRoute(path: string): HostError {
  const shown = path.length > 200 ? `${path.slice(0, 200)}…` : path;
  return invalidArgument(`unknown route ${shown}: no Host API endpoint of this host has this path`, { hostCode: "unknown_route" });
}

function unservedLane(lane: Lane): HostError {
  return invalidArgument(`this host does not serve the Host API lane ${lane.hostApiVersion}`, { hostCode: "unknown_route" });
}
