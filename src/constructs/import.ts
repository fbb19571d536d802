// Import IDs written by `importFromHost` (decision 0017 rule 5). cdktf's own `importFrom` adds a
// validation that runs `terraform version` at synth, so Takoform constructs write the `import`
// block themselves. The ID is one of:
//   NAME, SPACE/NAME                         resolved to the line's default create ref;
//   {"space","apiVersion","kind","definitionVersion","schemaDigest","name"}  the exact identity
// with space optional and the four FormRef members all or none. Objects are written as compact
// JSON in that member order.

export interface HostImportIdentity {
  readonly space?: string;
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly definitionVersion?: string;
  readonly schemaDigest?: string;
  readonly name: string;
}

const MEMBERS = ["space", "apiVersion", "kind", "definitionVersion", "schemaDigest", "name"] as const;
const REF_MEMBERS = ["apiVersion", "kind", "definitionVersion", "schemaDigest"] as const;

export class ImportIdError extends Error {
  override name = "ImportIdError";
}

/** The import ID text for `id`, checked for shape. `kind` is the importing resource's Form kind. */
export function hostImportId(id: string | HostImportIdentity, kind: string): string {
  if (typeof id === "string") {
    if (id.trim() === "") throw new ImportIdError("an import ID must not be empty");
    return id;
  }
  if (id === null || typeof id !== "object" || Array.isArray(id)) {
    throw new ImportIdError("an import ID is NAME, SPACE/NAME, or an identity object");
  }
  const raw = id as unknown as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (!(MEMBERS as readonly string[]).includes(key)) throw new ImportIdError(`an import identity has no member "${key}" (members: ${MEMBERS.join(", ")})`);
  }
  for (const key of MEMBERS) {
    if (raw[key] !== undefined && typeof raw[key] !== "string") throw new ImportIdError(`import identity member ${key} must be a string`);
  }
  if (typeof raw.name !== "string" || raw.name === "") throw new ImportIdError("an import identity needs a name");
  const present = REF_MEMBERS.filter((m) => raw[m] !== undefined);
  if (present.length !== 0 && present.length !== REF_MEMBERS.length) {
    throw new ImportIdError("import identity must carry apiVersion, kind, definitionVersion, and schemaDigest together, or none of them");
  }
  if (raw.kind !== undefined && raw.kind !== kind) {
    throw new ImportIdError(`Import ID names another Form kind: ${String(raw.kind)}, but this resource is a ${kind}`);
  }
  const out: Record<string, string> = {};
  for (const key of MEMBERS) {
    const value = raw[key];
    if (typeof value === "string" && !(key === "space" && value === "")) out[key] = value;
  }
  return JSON.stringify(out);
}
