// The one error type for a refused definition: which file, which JSON pointer inside it, a
// stable code, and what is wrong. Nothing is generated or installed from a refused definition.

export const DEFINITION_ERROR_CODES = [
  // reading
  "json-invalid",
  "file-unreadable",
  // document shape (the published meta-schemas' structural rules)
  "member-missing",
  "member-unknown",
  "member-invalid",
  // definition-level rules
  "revision-declares-update",
  "lifecycle-base-set",
  "lifecycle-update-mismatch",
  "binding-list-not-revision",
  "optional-field-undocumented",
  "top-level-name",
  "immutable-field-unknown",
  "default-invalid",
  "schema-not-portable",
  "schema-invalid",
  "fixture-path-invalid",
  // relation derivation (decisions 0015, 0022)
  "relation-at-root",
  "relation-too-deep",
  "relation-annotation-missing",
  "relation-annotation-conflict",
  "relation-annotation-invalid",
  "relation-annotation-misplaced",
  "relation-target-invalid",
  "relation-target-formref-mismatch",
  "relation-pointer-ambiguous",
  "binding-annotation-invalid",
  "binding-annotation-unused",
  // catalog-level checks
  "binding-not-accepted",
  "binding-interface-mismatch",
  "binding-source-role-mismatch",
  "binding-target-form-not-allowed",
  "form-identity-conflict",
  "form-duplicate",
  // packages
  "package-definition-missing",
  "package-formref-mismatch",
  "package-file-missing",
  "package-file-mismatch",
  "package-file-unlisted",
  "package-file-media-type",
  "package-fixture-unlisted",
] as const;

export type DefinitionErrorCode = (typeof DEFINITION_ERROR_CODES)[number];

export class DefinitionError extends Error {
  override name = "DefinitionError";
  readonly file?: string;

  constructor(
    readonly code: DefinitionErrorCode,
    /** JSON pointer into the file's document (`""` is the whole document). */
    readonly pointer: string,
    /** What is wrong, without the location. */
    readonly detail: string,
    options: { file?: string; cause?: unknown } = {},
  ) {
    super(`${options.file ?? "<definition>"}#${pointer}: ${detail} [${code}]`, { cause: options.cause });
    if (options.file !== undefined) this.file = options.file;
  }

  /** The same error located in `file`, with its pointer prefixed by `basePointer`. */
  relocate(file: string | undefined, basePointer = ""): DefinitionError {
    const located = new DefinitionError(this.code, basePointer + this.pointer, this.detail, {
      file: file ?? this.file,
      cause: this.cause,
    });
    return located;
  }
}
