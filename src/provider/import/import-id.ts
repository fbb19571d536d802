// Import IDs (decision 0017 rule 5; reference §6). Three forms, after trimming white space:
//   NAME                 default space, default create ref
//   SPACE/NAME           split at the FIRST "/" (a SpaceID never contains one); default create ref
//   {"space"?, "apiVersion", "kind", "definitionVersion", "schemaDigest", "name"}
//                        the canonical form, chosen when the ID starts with "{": exactly one JSON
//                        object, parsed strictly (duplicate members refused), no unknown members,
//                        and the four FormRef members all together or not at all.
// The JSON form exists because no delimiter is safe: a SpaceID may hold almost any character.

import { isDigest, isFormApiVersion, isKind, isResourceName, isSemver, isSpaceId } from "../../core/grammar.ts";
import type { FormRef } from "../../forms/refs.ts";
import { isJsonObject } from "../../forms/shape.ts";
import { parseStrictJson, StrictJsonError } from "../../forms/strict-json.ts";

export const IMPORT_ID_SYNTAX =
  'NAME, SPACE/NAME, or one JSON object {"space":…,"apiVersion":…,"kind":…,"definitionVersion":…,"schemaDigest":…,"name":…} (space optional; the four FormRef members are all-or-nothing)';

export interface ImportIdentity {
  name: string;
  /** Absent: the provider's default space applies at read. */
  space?: string;
  /** Absent: the line's default create ref. */
  ref?: FormRef;
}

export class ImportIdError extends Error {
  override name = "ImportIdError";
}

const MEMBERS = ["space", "apiVersion", "kind", "definitionVersion", "schemaDigest", "name"] as const;
const REF_MEMBERS = ["apiVersion", "kind", "definitionVersion", "schemaDigest"] as const;

function checkName(name: string): string {
  if (!isResourceName(name)) {
    throw new ImportIdError(`import name ${JSON.stringify(name)} is not a resource name (a lowercase letter, then up to 62 lowercase letters, digits or hyphens)`);
  }
  return name;
}

function checkSpace(space: string): string {
  if (!isSpaceId(space)) throw new ImportIdError(`import space ${JSON.stringify(space)} is not a SpaceID`);
  return space;
}

function parseJsonIdentity(text: string): ImportIdentity {
  let doc;
  try {
    doc = parseStrictJson(text);
  } catch (err) {
    if (err instanceof StrictJsonError && err.reason === "trailing-data") throw new ImportIdError("import identity must be exactly one JSON object");
    throw new ImportIdError(`import identity is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!isJsonObject(doc)) throw new ImportIdError("import identity must be exactly one JSON object");
  for (const key of Object.keys(doc)) {
    if (!(MEMBERS as readonly string[]).includes(key)) throw new ImportIdError(`import identity carries the unknown member ${JSON.stringify(key)}`);
  }
  const str = (key: string): string | undefined => {
    const value = doc[key];
    if (value === undefined) return undefined;
    if (typeof value !== "string") throw new ImportIdError(`import identity member ${JSON.stringify(key)} must be a string`);
    return value;
  };
  const name = str("name");
  if (name === undefined) throw new ImportIdError('import identity must carry "name"');
  const out: ImportIdentity = { name: checkName(name) };
  const space = str("space");
  if (space !== undefined && space !== "") out.space = checkSpace(space);
  const present = REF_MEMBERS.filter((m) => str(m) !== undefined);
  if (present.length !== 0 && present.length !== REF_MEMBERS.length) {
    throw new ImportIdError("import identity must carry apiVersion, kind, definitionVersion, and schemaDigest together, or none of them");
  }
  if (present.length === REF_MEMBERS.length) {
    const ref: FormRef = { apiVersion: str("apiVersion")!, kind: str("kind")!, definitionVersion: str("definitionVersion")!, schemaDigest: str("schemaDigest")! };
    if (!isFormApiVersion(ref.apiVersion)) throw new ImportIdError(`import identity apiVersion ${JSON.stringify(ref.apiVersion)} is not a Form group`);
    if (!isKind(ref.kind)) throw new ImportIdError(`import identity kind ${JSON.stringify(ref.kind)} is not a kind`);
    if (!isSemver(ref.definitionVersion)) throw new ImportIdError(`import identity definitionVersion ${JSON.stringify(ref.definitionVersion)} is not a SemVer version`);
    if (!isDigest(ref.schemaDigest)) throw new ImportIdError(`import identity schemaDigest ${JSON.stringify(ref.schemaDigest)} is not a sha256 digest`);
    out.ref = ref;
  }
  return out;
}

/** Parses an import ID; an ImportIdError names what is wrong. */
export function parseImportId(id: string): ImportIdentity {
  if (typeof id !== "string") throw new ImportIdError("import ID must be a string");
  const text = id.trim();
  if (text === "") throw new ImportIdError("import ID is empty");
  if (text.startsWith("{")) return parseJsonIdentity(text);
  const slash = text.indexOf("/");
  if (slash < 0) return { name: checkName(text) };
  return { space: checkSpace(text.slice(0, slash)), name: checkName(text.slice(slash + 1)) };
}
