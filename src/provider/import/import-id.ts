// Parsing import IDs (decision 0017 rule 5; reference §6), on the grammar core states
// (core/import-id.ts: the members, their shape, the canonical text the constructs write). Three
// forms, after trimming white space:
//   NAME                 default space, default create ref
//   SPACE/NAME           split at the FIRST "/" (a SpaceID never contains one); default create ref
//   {"space"?, "apiVersion", "kind", "definitionVersion", "schemaDigest", "name"}
//                        the canonical form, chosen when the ID starts with "{": exactly one JSON
//                        object, parsed strictly (duplicate members refused), no unknown members,
//                        and the four FormRef members all together or not at all.
// The JSON form exists because no delimiter is safe: a SpaceID may hold almost any character.

import {
  importIdentityMembers,
  ImportIdError,
  isDigest,
  isFormApiVersion,
  isKind,
  isResourceName,
  isSemver,
  isSpaceId,
  type FormRef,
  type ImportIdentity,
} from "../../core/index.ts";
import { isJsonObject, parseStrictJson, StrictJsonError } from "../../forms/index.ts";

function checkName(name: string): string {
  if (!isResourceName(name)) {
    throw new ImportIdError(
      `import name ${JSON.stringify(name)} is not a resource name (a lowercase letter, then up to 62 lowercase letters, digits or hyphens)`,
    );
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
  const members = importIdentityMembers(doc);
  const out: ImportIdentity = { name: checkName(members.name) };
  if (members.space !== undefined && members.space !== "") out.space = checkSpace(members.space);
  if (members.apiVersion !== undefined) {
    const ref: FormRef = {
      apiVersion: members.apiVersion,
      kind: members.kind!,
      definitionVersion: members.definitionVersion!,
      schemaDigest: members.schemaDigest!,
    };
    if (!isFormApiVersion(ref.apiVersion)) throw new ImportIdError(`import identity apiVersion ${JSON.stringify(ref.apiVersion)} is not a Form group`);
    if (!isKind(ref.kind)) throw new ImportIdError(`import identity kind ${JSON.stringify(ref.kind)} is not a kind`);
    if (!isSemver(ref.definitionVersion))
      throw new ImportIdError(`import identity definitionVersion ${JSON.stringify(ref.definitionVersion)} is not a SemVer version`);
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
