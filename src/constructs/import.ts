// Import IDs written by `importFromHost` (decision 0017 rule 5). cdktf's own `importFrom` adds a
// validation that runs `terraform version` at synth, so Takoform constructs write the `import`
// block themselves. The ID is one of:
//   NAME, SPACE/NAME                         resolved to the line's default create ref;
//   {"space","apiVersion","kind","definitionVersion","schemaDigest","name"}  the exact identity
// with space optional and the four FormRef members all or none. Objects are written as compact
// JSON in that member order. The grammar is the one the provider parses (core/import-id.ts).

import { formatImportId, importIdentityMembers, ImportIdError } from "../core/index.ts";

/** The parts of a host object's identity an import ID names (space optional; the four FormRef members all or none). */
export interface HostImportIdentity {
  readonly space?: string;
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly definitionVersion?: string;
  readonly schemaDigest?: string;
  readonly name: string;
}

export { ImportIdError };

/** The import ID text for `id`, checked for shape (core/import-id.ts). `kind` is the importing resource's Form kind. */
export function hostImportId(id: string | HostImportIdentity, kind: string): string {
  if (typeof id === "string") {
    if (id.trim() === "") throw new ImportIdError("an import ID must not be empty");
    return id;
  }
  if (id === null || typeof id !== "object" || Array.isArray(id)) {
    throw new ImportIdError("an import ID is NAME, SPACE/NAME, or an identity object");
  }
  const members = importIdentityMembers(id as unknown as Record<string, unknown>);
  if (members.kind !== undefined && members.kind !== kind) {
    throw new ImportIdError(`Import ID names another Form kind: ${members.kind}, but this resource is a ${kind}`);
  }
  return formatImportId(members);
}
