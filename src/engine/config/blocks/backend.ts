// `terraform.backend`: where state lives. Read as Terraform reads it: one backend, its settings
// literal (a backend is configured before anything is evaluated, so no references or variables),
// and only the backends takoform has: `local` (the default) and `pg`. Anything else is refused
// here, so no command ever runs against state somewhere the stack did not mean. A `conn_str` may
// hold a password: no message shows its value.

import { controlCharacterProblem } from "../../../core/index.ts";
import { BACKEND_MEMBERS, SECRET_MEMBERS, SUPPORTED_BACKENDS, type BackendConfig } from "../../../state/index.ts";
import { configCode, isPlainObject, type Problems } from "../diagnostics.ts";

const CAMEL: Record<string, string> = {
  path: "path",
  workspace_dir: "workspaceDir",
  conn_str: "connStr",
  schema_name: "schemaName",
  skip_schema_creation: "skipSchemaCreation",
  skip_table_creation: "skipTableCreation",
  skip_index_creation: "skipIndexCreation",
};

/**
 * `{ TYPE: { settings } }` → the backend's configuration; null (after reporting) when it cannot be
 * used. `settingsAt` names where the settings are written, for messages (a `terraform_remote_state`
 * repeats a producer's backend in its `config`).
 */
export function readBackend(
  block: unknown,
  problems: Problems,
  settingsAt: (type: string) => string = (type) => `terraform.backend.${type}`,
): BackendConfig | null {
  const supported = SUPPORTED_BACKENDS.map((t) => `"${t}"`).join(" and ");
  if (!isPlainObject(block) || Object.keys(block).length !== 1) {
    problems.error({
      code: configCode("backend-invalid"),
      summary: "terraform.backend must name exactly one backend",
      detail: `It is an object with one member, the backend type (${supported}), whose value holds its settings.`,
      repair: "Configure one backend in the stack: new LocalBackend(stack, {...}) or new PgBackend(stack, {...}).",
      attribute: "terraform.backend",
    });
    return null;
  }
  const [type, settings] = Object.entries(block)[0]!;
  if (!(SUPPORTED_BACKENDS as readonly string[]).includes(type)) {
    problems.error({
      code: configCode("backend-unsupported"),
      summary: `The "${type}" backend is not supported`,
      detail: `takoform keeps state in the backends ${supported}: a local SQLite file (the default), or PostgreSQL for a team. Nothing is read or written until the stack names one of them.`,
      repair: "Use new LocalBackend(stack, {...}) or new PgBackend(stack, {...}), or remove the backend to keep state in .takoform/state.db.",
      attribute: `terraform.backend.${type}`,
    });
    return null;
  }
  const members = BACKEND_MEMBERS[type as keyof typeof BACKEND_MEMBERS] as Record<string, "string" | "boolean">;
  if (!isPlainObject(settings)) {
    problems.error({
      code: configCode("backend-invalid"),
      summary: `${settingsAt(type)} must be an object of settings`,
      repair: "Synthesize the stack with cdktf.",
      attribute: settingsAt(type),
    });
    return null;
  }
  const config: Record<string, unknown> = { type };
  let ok = true;
  for (const [key, value] of Object.entries(settings)) {
    const attribute = `${settingsAt(type)}.${key}`;
    const kind = members[key];
    if (kind === undefined) {
      problems.error({
        code: configCode("backend-invalid"),
        summary: `The ${type} backend has no setting "${key}"`,
        detail: `It takes ${Object.keys(members).join(", ")}.`,
        repair: `Remove ${key} from the backend configuration.`,
        attribute,
      });
      ok = false;
      continue;
    }
    const shown = SECRET_MEMBERS.has(key) ? "" : ` (${JSON.stringify(value)})`;
    if (kind === "string" && typeof value === "string" && (value.includes("${") || value.includes("%{"))) {
      problems.error({
        code: configCode("backend-invalid"),
        summary: `The ${type} backend's ${key} refers to something to evaluate`,
        detail: "A backend is configured before anything else, so its settings are literal, as in Terraform: no references, variables or templates.",
        repair:
          key === "conn_str"
            ? "Write the URL literally, or leave conn_str out and set PG_CONN_STR (and PGPASSWORD for the password)."
            : `Write ${key} literally.`,
        attribute,
      });
      ok = false;
      continue;
    }
    if (typeof value !== kind) {
      problems.error({
        code: configCode("backend-invalid"),
        summary: `The ${type} backend's ${key} must be a ${kind}${shown}`,
        repair: `Set ${key} to a ${kind}.`,
        attribute,
      });
      ok = false;
      continue;
    }
    // conn_str is read piece by piece where it is resolved (state/pg/conn-str.ts), which also
    // covers PG_CONN_STR; a file path or schema name takes no control character at all.
    const control = kind === "string" && !SECRET_MEMBERS.has(key) ? controlCharacterProblem(attribute, value as string) : undefined;
    if (control !== undefined) {
      problems.error({
        code: configCode("backend-invalid"),
        summary: `The ${type} backend's ${key} holds a control character`,
        detail: `${control}. A control character means nothing in a ${key === "schema_name" ? "schema name" : "file path"}, and a NUL would end the path the state file is opened by, so state would be written somewhere the stack does not name. Nothing was opened.`,
        repair: `Write ${key} without control characters.`,
        attribute,
      });
      ok = false;
      continue;
    }
    config[CAMEL[key]!] = value;
  }
  return ok ? (config as unknown as BackendConfig) : null;
}
