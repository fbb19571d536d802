// A definition the generator cannot turn into a codec, type or construct: which file, which
// JSON pointer inside it, and what is wrong. Nothing is written when any is raised.

export const GENERATE_ERROR_CODES = [
  /** The definition was refused by the definition model (loadDefinitions problems). */
  "definition-refused",
  /** A desired or output schema shape outside the supported field kinds. */
  "unsupported-shape",
  /** A field or output takes an attribute name the envelope or Terraform reserves, or two fields map to one name. */
  "attribute-name",
  /** Resource type names that collide, or an override that cannot be applied. */
  "type-name",
  /** Generated class names that collide with each other or with the runtime's own exports. */
  "class-name",
  /** A candidate set naming a definition that is not there, or two defaults for one line. */
  "candidate-set",
  /** Two definitions of one exact identity across --forms directories. */
  "duplicate-definition",
  /** A line's definitions cannot share one resource type (a breaking change). */
  "line-surface",
] as const;

export type GenerateErrorCode = (typeof GENERATE_ERROR_CODES)[number];

export class GenerateError extends Error {
  override name = "GenerateError";
  constructor(
    readonly code: GenerateErrorCode,
    /** File the problem is in (relative to its forms directory, or as given). */
    readonly file: string | undefined,
    /** JSON pointer inside the file's document. */
    readonly pointer: string,
    readonly detail: string,
  ) {
    super(`${file ?? "<generation set>"}#${pointer}: ${detail} [${code}]`);
  }
}
