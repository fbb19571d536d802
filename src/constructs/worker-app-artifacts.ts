// The two optional members a WorkerApp adds for v1beta1 (reference v1beta1 §7, §8.7, §10.3;
// decision 0029): its static assets (a StaticAssetBundle the version serves) and its SQLite
// migrations (a SQLiteMigrationSet and the SQLiteMigrationApplication that applies it to a bound
// database). Both revisions have derived names and create_before_destroy, as the bundle and the
// version do; the application is named by prefix and created beside the old one. Mistakes are
// reported as the WorkerApp's problems, and the members are still built from what is usable.

import { Token, type TerraformProvider } from "./cdk.ts";
import type { Construct } from "constructs";
import { controlCharacterIn, controlCharacterProblem, isArtifactPath } from "../core/index.ts";
import { migrationFiles, staticAssetFiles } from "./artifact-files.ts";
import type { SQLiteDatabase } from "./generated/sqlite-database.gen.ts";
import { SQLiteMigrationApplication } from "./generated/sqlite-migration-application.gen.ts";
import { SQLiteMigrationSet } from "./generated/sqlite-migration-set.gen.ts";
import { StaticAssetBundle } from "./generated/static-asset-bundle.gen.ts";
import type { ArtifactFile } from "./resource.ts";

/** A WorkerApp's static assets: a directory of built files, served beside the worker. */
export interface WorkerAppAssets {
  /** The directory of built static files. */
  readonly directory: string;
  /**
   * Single-page application: a request for a path the bundle does not hold is answered with its
   * `index.html` (notFoundHandling `single_page_application`; the directory must hold
   * `index.html`). Default false (a miss stays a miss).
   */
  readonly spa?: boolean;
  /**
   * The worker's fetch handler answers first and the assets only when it answers 404. Default
   * false: the assets first, the worker for what they do not hold.
   */
  readonly runWorkerFirst?: boolean;
  /** Extension → media type overrides, merged over DEFAULT_ASSET_MEDIA_TYPES. */
  readonly mediaTypes?: Readonly<Record<string, string>>;
}

/** A WorkerApp's SQLite migrations: a directory of `.sql` files applied to a database in name order. */
export interface WorkerAppMigrations {
  /** The directory of `.sql` files; their name order is the order they run in (`0001_init.sql`, …). */
  readonly directory: string;
  /**
   * The SQLite binding (a name in `sqliteBindings`) whose database the migrations are applied
   * to. Default: the only SQLite binding.
   */
  readonly binding?: string;
}

/** What every member of a WorkerApp shares. */
export interface MemberCommon {
  readonly space: string | undefined;
  readonly createTimeout: string | undefined;
  readonly deleteTimeout: string | undefined;
  readonly provider: TerraformProvider | undefined;
}

type Report = (message: string) => void;

// The application's names are `<name>-migrations-<8 hex>`, inside the 63-character grammar.
const MIGRATING_NAME_MAX = 63 - "-migrations-".length - 8;

/** The app's static asset bundle: every file of the directory, owned by the app. */
export function assetBundleOf(scope: Construct, owner: string, assets: WorkerAppAssets, common: MemberCommon, report: Report): StaticAssetBundle {
  const files = artifactDirectory(assets, "assets", (dir) => staticAssetFiles(dir, { mediaTypes: assets.mediaTypes }), report);
  if (files !== undefined && assets.spa === true && !files.some((f) => f.path === "index.html")) {
    report(`assets.spa needs an index.html directly in ${JSON.stringify(assets.directory)} (the host refuses a single-page application bundle without one).`);
  }
  return new StaticAssetBundle(scope, "assets", {
    ...common,
    revisionOwner: owner,
    files: files ?? [],
    lifecycle: { createBeforeDestroy: true },
  });
}

/** The app's migration set and its application to the bound database. */
export function migrationsOf(
  scope: Construct,
  owner: string,
  migrations: WorkerAppMigrations,
  sqliteBindings: Readonly<Record<string, string | SQLiteDatabase>> | undefined,
  common: MemberCommon,
  report: Report,
): { set: SQLiteMigrationSet; application: SQLiteMigrationApplication } {
  if (typeof owner === "string" && !Token.isUnresolved(owner) && owner.length > MIGRATING_NAME_MAX) {
    report(
      `name ${JSON.stringify(owner)} is too long for migrations: the migration application is named <name>-migrations-<8 hex>, so a WorkerApp with migrations takes a name of at most ${MIGRATING_NAME_MAX} characters.`,
    );
  }
  const database = migrationDatabase(migrations, sqliteBindings, report);
  const files = artifactDirectory(migrations, "migrations", migrationFiles, report);
  if (files !== undefined && files.length === 0) report(`migrations.directory ${JSON.stringify(migrations.directory)} holds no .sql file.`);
  const set = new SQLiteMigrationSet(scope, "migrations", {
    ...common,
    revisionOwner: owner,
    files: files ?? [],
    lifecycle: { createBeforeDestroy: true },
  });
  const application = new SQLiteMigrationApplication(scope, "migration-application", {
    ...common,
    namePrefix: `${owner}-migrations-`,
    database: database ?? "",
    migrationSet: set,
    lifecycle: { createBeforeDestroy: true },
  });
  return { set, application };
}

/** The files of an `assets` or `migrations` directory, or undefined (reported) when it cannot be read or names a path no manifest can carry. */
function artifactDirectory(
  option: { readonly directory: string },
  key: "assets" | "migrations",
  list: (dir: string) => ArtifactFile[],
  report: Report,
): ArtifactFile[] | undefined {
  if (option === null || typeof option !== "object" || typeof option.directory !== "string") {
    report(`${key}.directory must name a directory.`);
    return undefined;
  }
  const control = controlCharacterProblem(`${key}.directory`, option.directory);
  if (control !== undefined) {
    // Before anything is opened: a NUL would end the path the system is handed.
    report(`${control}; name the directory without control characters.`);
    return undefined;
  }
  let files: ArtifactFile[];
  try {
    files = list(option.directory);
  } catch (error) {
    report(`${key}.directory ${JSON.stringify(option.directory)} cannot be read (${(error as Error).message}).`);
    return undefined;
  }
  for (const f of files) {
    const named = controlCharacterProblem(`The file ${JSON.stringify(f.path)} under ${key}.directory`, f.path);
    if (named !== undefined) report(`${named}; rename the file.`);
  }
  const bad = files.filter((f) => !isArtifactPath(f.path) && controlCharacterIn(f.path) === undefined).map((f) => JSON.stringify(f.path));
  if (bad.length > 0) {
    report(
      `${key}.directory ${JSON.stringify(option.directory)} holds ${bad.join(", ")}, which an artifact manifest cannot name (letters, digits, "_", "." and "-" per segment, not starting with "." or "-").`,
    );
  }
  return files;
}

/** The database the migrations are applied to: the named SQLite binding's target, or the only one. */
function migrationDatabase(
  migrations: WorkerAppMigrations,
  sqliteBindings: Readonly<Record<string, string | SQLiteDatabase>> | undefined,
  report: Report,
): string | SQLiteDatabase | undefined {
  const bindings = sqliteBindings ?? {};
  const names = Object.keys(bindings);
  const binding = migrations.binding;
  if (binding !== undefined) {
    if (!Object.hasOwn(bindings, binding)) {
      report(`migrations.binding ${JSON.stringify(binding)} names no SQLite binding (sqliteBindings: ${names.join(", ") || "none"}).`);
      return undefined;
    }
    return bindings[binding];
  }
  if (names.length !== 1) {
    report(
      `migrations needs a binding: the database is one of sqliteBindings, and there ${names.length === 0 ? "are none" : `are ${names.length} (${names.join(", ")}); name one with migrations.binding`}.`,
    );
    return undefined;
  }
  return bindings[names[0]!];
}
