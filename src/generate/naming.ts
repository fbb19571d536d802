// Word splitting and case conversion for generated names.
//
// A field name is split mechanically: before an upper-case letter that follows a lower-case
// letter or digit, and before the last capital of an acronym run followed by a lower-case
// letter (`kvBindings` → kv_bindings, `maxTTLSeconds` → max_ttl_seconds).
//
// A kind is split the same way unless its package directory spells it (the directory name with
// hyphens removed equals the kind, ignoring case): then the directory's words are used, so the
// author decides where `SQLiteDatabase` breaks (`sqlite-database` → sqlite_database, where the
// mechanical rule would give sq_lite_database). A trailing `-<definitionVersion>` on the
// directory (`module-worker-0.2.0`) is ignored.

export function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== "")
    .map((w) => w.toLowerCase());
}

export function snakeCase(name: string): string {
  return words(name).join("_");
}

export function kebabCase(name: string): string {
  return words(name).join("-");
}

/** `vars_json` → varsJson; `target_name` → targetName. */
export function camelFromSnake(snake: string): string {
  return snake.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** `other` → Other; `my-group` → MyGroup. */
export function pascalFromWords(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== "")
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");
}

/**
 * The kebab-case slug of a kind, preferring the package directory's word breaks when the
 * directory spells the kind.
 */
export function kindSlug(kind: string, directoryName: string | undefined, definitionVersion: string): string {
  if (directoryName !== undefined) {
    let dir = directoryName.toLowerCase();
    for (const suffix of [`-${definitionVersion}`, `@${definitionVersion}`, `-v${definitionVersion}`]) {
      if (dir.endsWith(suffix)) dir = dir.slice(0, -suffix.length);
    }
    if (/^[a-z0-9]+(?:[-_][a-z0-9]+)*$/.test(dir) && dir.replace(/[-_]/g, "") === kind.toLowerCase()) return dir.replace(/_/g, "-");
  }
  return kebabCase(kind);
}

/** A Terraform attribute name: lowercase words joined by `_`. */
export const ATTRIBUTE_NAME = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/** The first DNS label of a Form group: `mesh.takoform-cdk.dev/v1alpha1` → mesh. */
export function groupLabel(apiVersion: string): string {
  return apiVersion.split("/")[0]!.split(".")[0]!;
}

/** The group host: `mesh.takoform-cdk.dev/v1alpha1` → mesh.takoform-cdk.dev. */
export function groupHost(apiVersion: string): string {
  return apiVersion.split("/")[0]!;
}

/** The group version: `mesh.takoform-cdk.dev/v1alpha1` → v1alpha1. */
export function groupVersion(apiVersion: string): string {
  return apiVersion.split("/")[1] ?? "";
}
