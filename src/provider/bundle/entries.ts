// What the two file-authoring surfaces share: a WorkerBundle's `modules` and a StaticAssetBundle's
// or SQLiteMigrationSet's `files` are both lists of local files, each with a name in the manifest
// and a media type. Reading them — unknown at plan, missing or unknown at apply, unreadable in
// either — is one loop; each surface names its own fields and words.

import { readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { controlCharacterProblem, type Diagnostic, errorText, isUnknown, UNKNOWN, type Value } from "../../core/index.ts";
import { providerCode } from "../diagnostics/codes.ts";

/**
 * A manifest authoring problem: reported at the attribute, pointing at the manifest digest it
 * decides. The plan and the apply find it with the same functions, so it has one code in both.
 */
export function manifestProblem(summary: string, detail: string, attribute: string): Diagnostic {
  return { severity: "error", summary, detail, code: providerCode("artifact-authoring-invalid"), attribute, pointer: "/manifestDigest" };
}

export type Element = Record<string, Value>;

/** Stands for an element not known yet (the whole element unknown), so no member of it is known missing. */
const UNKNOWN_ELEMENT: Element = Object.freeze({});

/** The list's elements, each an object (anything else reads as an empty one), or undefined for no list. */
export function listElements(value: Value): Element[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.map((item) => (isUnknown(item) ? UNKNOWN_ELEMENT : item !== null && typeof item === "object" && !Array.isArray(item) ? (item as Element) : {}));
}

/** Reads one local file's bytes, refusing a path with a control character, what is not a regular file, or is over `maxBytes`. */
export async function readAuthoredFile(path: string, maxBytes: number, what: string): Promise<Uint8Array> {
  const control = controlCharacterProblem("the path", path);
  if (control !== undefined) throw new Error(`${control}, which no file name takes`);
  const absolute = resolve(path);
  const info = await stat(absolute);
  if (!info.isFile()) throw new Error(`${path} is not a regular file`);
  if (info.size > maxBytes) throw new Error(`${path} is ${info.size} bytes; ${what} may hold at most ${maxBytes}`);
  return new Uint8Array(await readFile(absolute));
}

/** The refusal of an element with no content_file: the same at validate, at plan and at apply. */
export function missingContentFile(shape: Pick<EntryShape, "list" | "missingSummary" | "missingRepair">, i: number): Diagnostic {
  const at = `${shape.list}[${i}]`;
  return manifestProblem(shape.missingSummary, `${at} has no content_file, so the provider has no bytes to upload; ${shape.missingRepair}`, at);
}

/** Whether an element is known to have no content_file (an element or a content_file not yet known is not). */
export function lacksContentFile(element: Element): boolean {
  if (element === UNKNOWN_ELEMENT) return false;
  const file = element["content_file"] ?? null;
  return typeof file !== "string" && !isUnknown(file);
}

export interface EntryShape {
  /** The list attribute ("modules", "files") and its elements' name and media-type fields. */
  list: string;
  keyField: string;
  typeField: string;
  /** "Missing module content_file", and its repair. */
  missingSummary: string;
  missingRepair: string;
  /** "Unknown bundle authoring", and what must be wholly known. */
  unknownSummary: string;
  unknownWhat: string;
  /** "Unreadable module file". */
  unreadableSummary: string;
  read(file: string): Promise<Uint8Array>;
}

export interface ReadEntry {
  key: string;
  mediaType: string;
  file: string;
  bytes: Uint8Array;
}

export type ReadEntries = { entries: ReadEntry[]; partial: Value[]; unresolved: boolean } | { diagnostics: Diagnostic[] };

/**
 * Reads every element's file, in the author's order. At plan an element not yet known leaves the
 * list unresolved (`partial` is what the plan shows); at apply it is an error. Everything else is
 * an error in both modes, at plan too, since it would fail the apply midway, after the resources
 * before this one were created: a content_file known to be missing, a known file that cannot be
 * read. The mode decides only what an unknown value means.
 */
export async function readEntries(elements: readonly Element[], shape: EntryShape, mode: "plan" | "apply"): Promise<ReadEntries> {
  const entries: ReadEntry[] = [];
  const partial: Value[] = [];
  let unresolved = false;
  for (let i = 0; i < elements.length; i++) {
    const element = elements[i]!;
    const key = element[shape.keyField];
    const type = element[shape.typeField];
    const file = element["content_file"] ?? null;
    if (typeof key !== "string" || typeof type !== "string" || typeof file !== "string") {
      const at = `${shape.list}[${i}]`;
      if (lacksContentFile(element)) return { diagnostics: [missingContentFile(shape, i)] };
      if (mode === "apply") {
        return { diagnostics: [manifestProblem(shape.unknownSummary, `${at} must be wholly known before the provider can apply ${shape.unknownWhat}.`, at)] };
      }
      unresolved = true;
      partial.push({ ...element, size: UNKNOWN, digest: UNKNOWN });
      continue;
    }
    try {
      const bytes = await shape.read(file);
      entries.push({ key, mediaType: type, file, bytes });
      partial.push({ ...element, size: bytes.byteLength, digest: "" });
    } catch (err) {
      const at = `${shape.list}[${i}].content_file`;
      return { diagnostics: [manifestProblem(shape.unreadableSummary, `${at} ${JSON.stringify(file)} could not be read: ${errorText(err)}`, at)] };
    }
  }
  return { entries, partial, unresolved };
}
