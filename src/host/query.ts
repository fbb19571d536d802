// Query strings. Decoding follows application/x-www-form-urlencoded ("+" is a space, as Go's
// url.Values writes it) but is strict: malformed percent-encoding, empty pairs and repeated
// keys are refused rather than guessed at.
//
// The exact-form query (read, observe, delete, /forms, /form-definitions) is a closed
// vocabulary of five keys, each exactly once. A missing or malformed FormRef member names no
// installed Definition, so it answers form_unknown; a missing or invalid space, an unknown key or
// a repeated key is a malformed request, invalid_argument.

import { type FormRef, isSpaceId } from "../core/index.ts";
import { HostError, invalidArgument } from "./errors.ts";

function decodeComponent(raw: string): string {
  const plus = raw.replace(/\+/g, " ");
  if (!plus.includes("%")) return plus;
  try {
    return decodeURIComponent(plus);
  } catch {
    throw invalidArgument(`query component ${JSON.stringify(raw.slice(0, 80))} has invalid percent-encoding`);
  }
}

/** Parses a raw query (without "?") into key → values, in order. */
export function parseQuery(raw: string | null): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (raw === null || raw === "") return out;
  for (const pair of raw.split("&")) {
    if (pair === "") throw invalidArgument("the query has an empty parameter");
    const eq = pair.indexOf("=");
    const key = decodeComponent(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? "" : decodeComponent(pair.slice(eq + 1));
    const list = out.get(key);
    if (list === undefined) out.set(key, [value]);
    else list.push(value);
  }
  return out;
}

/** Refuses any query on a route that takes none. */
export function requireNoQuery(raw: string | null, routeLabel: string): void {
  if (raw !== null && raw !== "") throw invalidArgument(`${routeLabel} takes no query parameters`);
}

export const EXACT_QUERY_KEYS = ["space", "group", "kind", "definitionVersion", "schemaDigest"] as const;

export interface ExactFormQuery {
  space: string;
  /** The four members as sent; `complete` says whether all four were present. */
  ref: Partial<FormRef>;
  complete: boolean;
}

/** The last query parsed and what it parsed to (frozen: every caller only reads it). */
let lastExact: { raw: string; parsed: Readonly<ExactFormQuery> } | undefined;

/**
 * Parses the closed exact-form query. Consecutive reads of one kind of resource send the same
 * query, so the last accepted one is remembered; a refused query is parsed (and refused) every time.
 */
export function parseExactFormQuery(raw: string | null): Readonly<ExactFormQuery> {
  if (raw !== null && lastExact !== undefined && lastExact.raw === raw) return lastExact.parsed;
  const parsed = parseExactQueryText(raw);
  Object.freeze(parsed.ref);
  if (raw !== null) lastExact = { raw, parsed: Object.freeze(parsed) };
  return parsed;
}

function parseExactQueryText(raw: string | null): ExactFormQuery {
  const params = parseQuery(raw);
  for (const [key, values] of params) {
    if (!(EXACT_QUERY_KEYS as readonly string[]).includes(key)) {
      throw invalidArgument(`unknown query parameter ${JSON.stringify(key)}; the exact-form query takes only ${EXACT_QUERY_KEYS.join(", ")}`);
    }
    if (values.length > 1) throw invalidArgument(`query parameter ${key} was given ${values.length} times; give it exactly once`);
  }
  const one = (key: string): string | undefined => params.get(key)?.[0];
  const space = one("space");
  if (space === undefined) throw invalidArgument("the query parameter space is required");
  if (!isSpaceId(space)) throw invalidArgument(`the query parameter space is not a valid SpaceID: ${JSON.stringify(space)}`);
  const ref: Partial<FormRef> = {};
  const group = one("group");
  const kind = one("kind");
  const definitionVersion = one("definitionVersion");
  const schemaDigest = one("schemaDigest");
  if (group !== undefined) ref.apiVersion = group;
  if (kind !== undefined) ref.kind = kind;
  if (definitionVersion !== undefined) ref.definitionVersion = definitionVersion;
  if (schemaDigest !== undefined) ref.schemaDigest = schemaDigest;
  const complete = group !== undefined && kind !== undefined && definitionVersion !== undefined && schemaDigest !== undefined;
  return { space, ref, complete };
}

/**
 * The refusal for an exact identity the lane's catalog does not hold: `form_not_installed` when
 * another lane of this host installs exactly it (docs/host.md, "Lanes"), else `form_unknown`.
 */
export function formMissing(
  catalog: { installedElsewhere(ref: Partial<FormRef>): boolean },
  lane: { hostApiVersion: string },
  ref: Partial<FormRef>,
): HostError {
  if (catalog.installedElsewhere(ref)) {
    return new HostError(
      "form_not_installed",
      `${ref.apiVersion} ${ref.kind}@${ref.definitionVersion} schema=${ref.schemaDigest} is installed on this host under another Host API lane, not under ${lane.hostApiVersion}; address it through the lane that serves it`,
    );
  }
  return formUnknown(ref);
}

/** The form_unknown refusal for an exact identity this host does not hold. */
export function formUnknown(ref: Partial<FormRef>): HostError {
  const missing = (["apiVersion", "kind", "definitionVersion", "schemaDigest"] as const).filter((m) => ref[m] === undefined);
  if (missing.length > 0) {
    return new HostError("form_unknown", `the exact Form identity is incomplete (missing ${missing.join(", ")}); no installed Definition matches`);
  }
  return new HostError(
    "form_unknown",
    `no installed Form Definition is exactly ${ref.apiVersion} ${ref.kind}@${ref.definitionVersion} schema=${ref.schemaDigest}`,
  );
}
