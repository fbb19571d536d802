// The import ID grammar (decision 0017 rule 5; reference §6), a fact the provider (which parses
// IDs, provider/import/import-id.ts) and the constructs (which write them, `importFromHost`) must
// state identically: the members of an identity object, its shape, and its canonical text.
//   NAME, SPACE/NAME          the default create ref of the resource's line;
//   {"space"?, "apiVersion", "kind", "definitionVersion", "schemaDigest", "name"}
//                             the exact identity; the four FormRef members all or none.

import type { FormRef } from "./protocol.ts";

export const IMPORT_ID_SYNTAX =
  'NAME, SPACE/NAME, or one JSON object {"space":…,"apiVersion":…,"kind":…,"definitionVersion":…,"schemaDigest":…,"name":…} (space optional; the four FormRef members are all-or-nothing)';

/** A parsed import ID. */
export interface ImportIdentity {
  name: string;
  /** Absent: the provider's default space applies at read. */
  space?: string;
  /** Absent: the line's default create ref. */
  ref?: FormRef;
}

/** The members of an identity object, in the order the canonical form writes them. */
export const IMPORT_ID_MEMBERS = ["space", "apiVersion", "kind", "definitionVersion", "schemaDigest", "name"] as const;
/** An import ID (or the identity given to `hostImportId`) that does not follow the import ID grammar. */
export class ImportIdError extends Error {
  override name = "ImportIdError";
}

const REF_MEMBERS = ["apiVersion", "kind", "definitionVersion", "schemaDigest"] as const;

/** An identity object's members, as written: shape checked, grammar not (parseImportId checks that). */
export type ImportIdentityMembers = Partial<Record<(typeof IMPORT_ID_MEMBERS)[number], string>> & { name: string };

/**
 * The members of an identity object, checked for shape: no unknown member, every member a
 * string, a name, and the four FormRef members together or not at all.
 */
export function importIdentityMembers(doc: Readonly<Record<string, unknown>>): ImportIdentityMembers {
  for (const key of Object.keys(doc)) {
    if (!(IMPORT_ID_MEMBERS as readonly string[]).includes(key)) {
      throw new ImportIdError(`import identity carries the unknown member ${JSON.stringify(key)} (members: ${IMPORT_ID_MEMBERS.join(", ")})`);
    }
  }
  for (const key of IMPORT_ID_MEMBERS) {
    if (doc[key] !== undefined && typeof doc[key] !== "string") throw new ImportIdError(`import identity member ${JSON.stringify(key)} must be a string`);
  }
  if (doc["name"] === undefined || doc["name"] === "") throw new ImportIdError('import identity must carry "name"');
  const present = REF_MEMBERS.filter((m) => doc[m] !== undefined);
  if (present.length !== 0 && present.length !== REF_MEMBERS.length) {
    throw new ImportIdError("import identity must carry apiVersion, kind, definitionVersion, and schemaDigest together, or none of them");
  }
  return doc as ImportIdentityMembers;
}

/** The canonical text of an identity object: compact JSON in member order, an empty space left out. */
export function formatImportId(members: ImportIdentityMembers): string {
  const out: Record<string, string> = {};
  for (const key of IMPORT_ID_MEMBERS) {
    const value = members[key];
    if (value !== undefined && !(key === "space" && value === "")) out[key] = value;
  }
  return JSON.stringify(out);
}
