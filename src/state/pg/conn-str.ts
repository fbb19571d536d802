// The pg backend's `conn_str`, in every form libpq documents and Terraform's pg backend (lib/pq)
// and node-postgres accept, read into libpq's keywords:
//
//   a URI   postgresql://[user[:password]@][host][:port][/dbname][?keyword=value&…]  (or postgres://)
//           every part percent-encoded; an empty host with the socket directory as a parameter
//           (postgres://deploy:pw@/infra?host=/run/postgresql) or a percent-encoded socket path as
//           the host (postgresql://%2Frun%2Fpostgresql/infra); a parameter overrides the part it
//           names; an IPv6 host in brackets.
//   keyword=value pairs   host=/run/postgresql dbname=infra user=deploy password='a b\'c'
//           separated by whitespace, spaces around `=` optional; a value in single quotes may hold
//           spaces and is the only way to write an empty one; inside or outside quotes a backslash
//           takes the next character literally (\' and \\).
//
// What node-postgres is then handed is built from those keywords (`driverOptions`), never the
// string itself: node-postgres parses neither the keyword form nor a URI whose host is empty.
// Deliberate choices: one host only (node-postgres connects to one; `host=a,b` is refused); a
// keyword this file does not use is passed to node-postgres as its connection-string parser would
// pass it (sslmode, application_name, options, …), so the SSL settings mean what node-postgres
// makes of them; `hostaddr` is used as the host when no host is given.
//
// Nothing here ever quotes the string or a value in a message: it may hold a password. The
// password (and sslpassword) is what `connStrSecrets` lists and `redactConnStr` removes, in the
// form the user wrote.

import { controlCharacterIn, describeControlCharacter } from "../../core/index.ts";
import { StateUsageError } from "../errors.ts";

/** A connection string that cannot be read (never quoting it: it may hold a password). */
export class ConnStrError extends StateUsageError {
  override name = "ConnStrError";
}

/** The keywords that carry secrets. */
const SECRET_KEYWORDS = new Set(["password", "sslpassword"]);
const URI_SCHEME = /^postgres(?:ql)?:\/\//;
const OTHER_SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;
const KEYWORD = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** One keyword=value setting, with the exact text it was written as (for redaction). */
interface Setting {
  keyword: string;
  value: string;
  /** The spelling in the string, raw (a percent-encoded or quoted value as written). */
  rawValue: string;
}

interface Parsed {
  form: "uri" | "keywords";
  settings: Setting[];
  /** The string with every secret taken out, in the form it was written. */
  redacted: string;
}

const fail = (what: string): never => {
  throw new ConnStrError(
    `the pg backend's conn_str ${what}; give a postgres:// URL (postgres://USER@HOST:PORT/DATABASE?sslmode=…) or keyword=value pairs (host=… dbname=… user=…)`,
  );
};

/** The settings that name a place or a login: no control character means anything in them (the host may be a socket directory). */
const NAMING_KEYWORDS = new Set(["host", "hostaddr", "port", "dbname", "user"]);

/**
 * A NUL ends the C string libpq is handed, so it is refused in every value; in a setting that
 * names a place or a login, so is every other control character. Named by position, never shown.
 */
function checkValue(keyword: string, value: string, part: string): void {
  const nul = value.indexOf("\u0000");
  const found = NAMING_KEYWORDS.has(keyword)
    ? controlCharacterIn(value)
    : nul < 0
      ? undefined
      : { codePoint: 0, position: [...value.slice(0, nul)].length + 1 };
  if (found !== undefined) fail(`has the control character ${describeControlCharacter(found)} in its ${part}`);
}

function percentDecode(text: string, part: string): string {
  if (/%(?![0-9A-Fa-f]{2})/.test(text)) fail(`has a % that is not followed by two hex digits in its ${part}`);
  let decoded: string;
  try {
    decoded = decodeURIComponent(text);
  } catch {
    return fail(`has percent-encoding in its ${part} that is not UTF-8`);
  }
  return decoded;
}

function parseUri(connStr: string): Parsed {
  const scheme = URI_SCHEME.exec(connStr)![0];
  const rest = connStr.slice(scheme.length);
  const queryAt = rest.indexOf("?");
  const hier = queryAt < 0 ? rest : rest.slice(0, queryAt);
  const query = queryAt < 0 ? "" : rest.slice(queryAt + 1);
  const settings: Setting[] = [];
  const add = (keyword: string, raw: string, part: string): void => {
    const value = percentDecode(raw, part);
    checkValue(keyword, value, part);
    settings.push({ keyword, value, rawValue: raw });
  };
  // userinfo: everything before the first @ that comes before any /.
  const slash = hier.indexOf("/");
  const at = hier.indexOf("@");
  let netloc = hier;
  let userinfo = "";
  if (at >= 0 && (slash < 0 || at < slash)) {
    userinfo = hier.slice(0, at);
    netloc = hier.slice(at + 1);
    const colon = userinfo.indexOf(":");
    if (colon < 0) {
      if (userinfo !== "") add("user", userinfo, "user name");
    } else {
      if (colon > 0) add("user", userinfo.slice(0, colon), "user name");
      add("password", userinfo.slice(colon + 1), "password");
    }
  }
  const pathAt = netloc.indexOf("/");
  const hostspec = pathAt < 0 ? netloc : netloc.slice(0, pathAt);
  if (pathAt >= 0 && pathAt < netloc.length - 1) add("dbname", netloc.slice(pathAt + 1), "database name");
  if (hostspec.includes(",")) fail("names several hosts; takoform connects to one (node-postgres has no fail-over list)");
  let host = hostspec;
  let port = "";
  if (hostspec.startsWith("[")) {
    const close = hostspec.indexOf("]");
    if (close < 0) fail("opens an IPv6 host with [ and never closes it");
    host = hostspec.slice(1, close);
    const after = hostspec.slice(close + 1);
    if (after !== "" && !after.startsWith(":")) fail("has text after its bracketed IPv6 host");
    port = after.slice(1);
  } else {
    const colon = hostspec.lastIndexOf(":");
    if (colon >= 0) [host, port] = [hostspec.slice(0, colon), hostspec.slice(colon + 1)];
  }
  if (host !== "") add("host", host, "host");
  if (port !== "") add("port", port, "port");
  const kept: string[] = [];
  for (const pair of query === "" ? [] : query.split("&")) {
    const eq = pair.indexOf("=");
    if (eq <= 0) fail("has a query parameter that is not keyword=value");
    const keyword = percentDecode(pair.slice(0, eq), "query");
    if (!KEYWORD.test(keyword)) fail("has a query parameter whose name is not a keyword");
    add(keyword, pair.slice(eq + 1), `parameter ${keyword}`);
    if (!SECRET_KEYWORDS.has(keyword)) kept.push(pair);
  }
  const shownUser = userinfo.includes(":") ? userinfo.slice(0, userinfo.indexOf(":")) : userinfo;
  const redacted = `${scheme}${shownUser === "" ? "" : `${shownUser}@`}${netloc}${kept.length > 0 ? `?${kept.join("&")}` : ""}`;
  return { form: "uri", settings, redacted };
}

function parseKeywords(connStr: string): Parsed {
  const settings: Setting[] = [];
  const kept: string[] = [];
  let i = 0;
  const space = (): void => {
    while (i < connStr.length && /\s/.test(connStr[i]!)) i++;
  };
  for (space(); i < connStr.length; space()) {
    const start = i;
    while (i < connStr.length && connStr[i] !== "=" && !/\s/.test(connStr[i]!)) i++;
    const keyword = connStr.slice(start, i);
    space();
    if (connStr[i] !== "=") fail("is not keyword=value pairs: a keyword has no = after it");
    if (!KEYWORD.test(keyword)) fail("is not keyword=value pairs: a keyword has characters other than letters, digits and _");
    i++;
    space();
    const valueStart = i;
    let value = "";
    const quoted = connStr[i] === "'";
    if (quoted) i++;
    for (;;) {
      if (i >= connStr.length) {
        if (quoted) fail(`opens a quoted value of ${keyword} and never closes it`);
        break;
      }
      const c = connStr[i]!;
      if (quoted ? c === "'" : /\s/.test(c)) break;
      if (c === "\\" && i + 1 < connStr.length) {
        value += connStr[i + 1];
        i += 2;
        continue;
      }
      value += c;
      i++;
    }
    if (quoted) i++;
    const rawValue = quoted ? connStr.slice(valueStart + 1, i - 1) : connStr.slice(valueStart, i);
    checkValue(keyword, value, `value of ${keyword}`);
    settings.push({ keyword, value, rawValue });
    if (!SECRET_KEYWORDS.has(keyword)) kept.push(connStr.slice(start, i));
  }
  if (settings.length === 0) fail("is empty");
  return { form: "keywords", settings, redacted: kept.join(" ") };
}

/** Reads a connection string; `""` is "the libpq environment only" and has no settings. */
function parse(connStr: string): Parsed {
  if (connStr === "") return { form: "keywords", settings: [], redacted: "" };
  if (URI_SCHEME.test(connStr)) return parseUri(connStr);
  const other = OTHER_SCHEME.exec(connStr);
  if (other !== null) {
    throw new ConnStrError(
      `the pg backend's conn_str uses the scheme "${other[1]!.toLowerCase()}:"; give a postgres:// or postgresql:// URL, or keyword=value pairs`,
    );
  }
  if (!connStr.includes("=")) fail("is neither a URL nor keyword=value pairs");
  return parseKeywords(connStr);
}

/** The libpq keywords a connection string sets, the last spelling of each winning (as in libpq). */
export function connStrSettings(connStr: string): Map<string, string> {
  const settings = new Map<string, string>();
  for (const s of parse(connStr).settings) settings.set(s.keyword, s.value);
  const host = settings.get("host");
  if (host !== undefined && host.includes(",")) fail("names several hosts; takoform connects to one (node-postgres has no fail-over list)");
  const port = settings.get("port");
  if (port !== undefined && !(/^[0-9]{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) fail("has a port that is not a number from 1 to 65535");
  return settings;
}

/** Checks the form of a connection string without ever echoing it. Empty means "the libpq environment only". */
export function checkConnStr(connStr: string): void {
  connStrSettings(connStr);
}

/** The secrets a connection string carries (its passwords, in every spelling a message could show). */
export function connStrSecrets(connStr: string): string[] {
  const found = new Set<string>();
  let settings: Setting[];
  try {
    settings = parse(connStr).settings;
  } catch {
    return []; // checkConnStr refuses it before anything connects
  }
  for (const s of settings) {
    if (!SECRET_KEYWORDS.has(s.keyword) || s.value === "") continue;
    found.add(s.value);
    found.add(s.rawValue);
    found.add(encodeURIComponent(s.value));
  }
  found.delete("");
  return [...found].sort((a, b) => b.length - a.length);
}

/** The connection string with every secret removed, in the form it was written: what messages, records and plan files may show. */
export function redactConnStr(connStr: string): string {
  try {
    return parse(connStr).redacted;
  } catch {
    return "(an unreadable connection string)";
  }
}

/** node-postgres's own connection-string parser (pg-connection-string's `parse`), injected so this file loads nothing. */
export type DriverParse = (url: string) => Record<string, unknown>;

/**
 * What node-postgres is given for a connection string: host, port, user, password and database
 * as values, and every other keyword through its own parser (so sslmode and the rest mean
 * exactly what they mean to it). A setting left out stays out, so the PG* variables and
 * ~/.pgpass fill it in as before.
 */
export function driverOptions(connStr: string, driverParse: DriverParse): Record<string, unknown> {
  const settings = connStrSettings(connStr);
  const direct: Record<string, string> = { host: "host", port: "port", user: "user", password: "password", dbname: "database" };
  if (!settings.has("host") && settings.has("hostaddr")) settings.set("host", settings.get("hostaddr")!);
  settings.delete("hostaddr");
  const rest = new URLSearchParams();
  for (const [keyword, value] of settings) if (direct[keyword] === undefined) rest.append(keyword, value);
  const query = rest.toString();
  const options = driverParse(`postgres:///${query === "" ? "" : `?${query}`}`);
  for (const key of ["host", "port", "user", "password", "database"]) delete options[key];
  for (const [keyword, option] of Object.entries(direct)) {
    const value = settings.get(keyword);
    if (value !== undefined) options[option] = option === "port" ? Number(value) : value;
  }
  return options;
}
