// Every JSON document the engine reads from the user's side — the synthesized stack (cdk.tf.json
// or `--config FILE`), cdktf.json, the synthesis manifest, `--var-file` files, JSON variable
// values and saved plans — goes through the strict I-JSON reader Form definitions use
// (src/forms/strict-json.ts), never JSON.parse. JSON.parse keeps the LAST of two members with one
// name: a stack with a second, empty "resource" block would plan to destroy everything. It also
// nests as deep as the call stack allows, and decodes invalid UTF-8 into U+FFFD without a word.
// Here each of those is a diagnostic naming the file, the line and column, the JSON pointer of
// the value being read, and the repair.

import { readFile } from "node:fs/promises";
import type { Diagnostic } from "../../core/index.ts";
import { type JsonValue, parseStrictJson, StrictJsonError, type StrictJsonReason } from "../../forms/index.ts";
import { configCode, type ConfigCode } from "./diagnostics.ts";

/**
 * Deepest nesting of arrays and objects in a stack: the strict reader's (and upstream's) limit.
 * A resource attribute's value starts at depth 4 (`resource` → type → name → attribute), so a
 * value may nest 252 levels; nothing a Form declares comes near that.
 */
export const STACK_MAX_DEPTH = 256;

export type StrictRead = { ok: true; value: JsonValue } | { ok: false; diagnostic: Diagnostic };

export interface StrictReadOptions {
  /** How the document is named in messages: a path, or words such as "the value of TF_VAR_x". */
  what: string;
  /** What to do about a document that is not JSON at all (truncated, a syntax error, bad bytes). */
  repair: string;
  maxDepth?: number;
  /** The document is a stack: a pointer inside `resource/<type>/<name>` names that resource's address. */
  stack?: boolean;
}

/** Reads one strict I-JSON document from text or bytes; never throws on bad input. */
export function readStrictJson(input: string | Uint8Array, options: StrictReadOptions): StrictRead {
  const maxDepth = options.maxDepth ?? STACK_MAX_DEPTH;
  try {
    return { ok: true, value: parseStrictJson(input, { maxDepth }) };
  } catch (error) {
    if (!(error instanceof StrictJsonError)) throw error;
    const diagnostic = strictJsonDiagnostic(error, options.what, options.repair, maxDepth);
    const address = options.stack === true ? resourceAddressAt(error.pointer) : undefined;
    return { ok: false, diagnostic: address === undefined ? diagnostic : { ...diagnostic, address } };
  }
}

/** `<type>.<name>` when a stack's pointer lies inside (or at) `/resource/<type>/<name>`. */
function resourceAddressAt(pointer: string): string | undefined {
  const tokens = pointer.split("/").slice(1, 4).map(unescapeToken);
  return tokens.length === 3 && tokens[0] === "resource" ? `${tokens[1]}.${tokens[2]}` : undefined;
}

/** A pointer short enough to show: past 8 tokens (a value hundreds of levels deep) it is cut. */
function shownPointer(pointer: string): string {
  const tokens = pointer.split("/");
  return tokens.length <= 9 ? pointer : `${tokens.slice(0, 9).join("/")}/… (${tokens.length - 1} levels)`;
}

interface ReasonText {
  code: ConfigCode;
  summary: (what: string, error: StrictJsonError) => string;
  repair?: (error: StrictJsonError, maxDepth: number) => string;
}

const REASONS: Partial<Record<StrictJsonReason, ReasonText>> = {
  "duplicate-member": {
    code: configCode("duplicate-key"),
    summary: (what, error) => `${what} repeats the key ${memberName(error)}`,
    repair: (error) =>
      `Keep one member named ${memberName(error)} in ${parentOf(error.pointer)} and merge what the two copies held: JSON readers disagree about which copy wins, so takoform reads neither. cdktf never writes a key twice; if the file was edited by hand, re-run \`takoform synth\`.`,
  },
  "too-deep": {
    code: configCode("nesting-too-deep"),
    summary: (what) => `${what} nests too deeply`,
    repair: (_error, maxDepth) => `Nest objects and lists at most ${maxDepth} levels deep; no attribute of a Form needs more.`,
  },
  "invalid-utf8": {
    code: configCode("invalid-json"),
    summary: (what) => `${what} is not UTF-8`,
  },
};

/** The object holding the member a pointer ends in, for messages. */
function parentOf(pointer: string): string {
  const parent = pointer.slice(0, pointer.lastIndexOf("/"));
  return parent === "" ? "the top-level object" : `the object at ${JSON.stringify(parent)}`;
}

/** One reference token of a JSON pointer, unescaped (RFC 6901: `~1` is `/`, `~0` is `~`). */
function unescapeToken(token: string): string {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

function memberName(error: StrictJsonError): string {
  return JSON.stringify(unescapeToken(error.pointer.slice(error.pointer.lastIndexOf("/") + 1)));
}

export function strictJsonDiagnostic(error: StrictJsonError, what: string, repair: string, maxDepth = STACK_MAX_DEPTH): Diagnostic {
  const reason = REASONS[error.reason];
  const at = `line ${error.line}, column ${error.column}`;
  const detail = error.reason === "invalid-utf8" ? `At ${at} (byte ${error.offset}): an invalid UTF-8 byte sequence.` : `At ${at}: ${error.detail}.`;
  return {
    severity: "error",
    code: reason?.code ?? configCode("invalid-json"),
    summary: reason?.summary(what, error) ?? `${what} is not valid JSON`,
    detail,
    ...(error.pointer !== "" ? { pointer: shownPointer(error.pointer) } : {}),
    repair: reason?.repair?.(error, maxDepth) ?? repair,
  };
}

export type InputBytes = { ok: true; bytes: Uint8Array } | { ok: false; diagnostic: Diagnostic };

/**
 * Reads a user's input file as bytes (decoding as "utf8" would turn invalid UTF-8 into U+FFFD
 * silently). A file that is not there is its own problem, not a JSON one; any other failure (a
 * directory, no permission) says what the system said.
 */
export async function readInputBytes(file: string, input: { noun: string; missingRepair: string; unreadableRepair?: string }): Promise<InputBytes> {
  try {
    return { ok: true, bytes: await readFile(file) };
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    return {
      ok: false,
      diagnostic: {
        severity: "error",
        code: missing ? configCode("file-not-found") : configCode("file-unreadable"),
        summary: missing ? `The ${input.noun} ${file} does not exist` : `Cannot read the ${input.noun} ${file}`,
        cause: (error as Error).message,
        repair: missing ? input.missingRepair : (input.unreadableRepair ?? input.missingRepair),
      },
    };
  }
}
