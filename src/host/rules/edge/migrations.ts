// SQLiteMigrationApplication: one exact SQLiteMigrationSet applied to one exact SQLiteDatabase
// (reference v1beta1 §8.5, §8.7, §13 item 11). The database's ledger (src/host/sqlite/ledger.ts)
// is the durable history; the application is bookkeeping over it.
//
//   checkMutation     the set's manifest resolves in the caller's tenant as a MigrationBundle; the
//                     ledger is an exact prefix of its ordered files — a set that drops, reorders
//                     or re-digests applied history is refused and nothing changes
//                                                          migration_required (409)
//   applyEffects      (apply only) the unapplied suffix runs: first all of it in one transaction
//                     that is rolled back (a file that fails refuses the apply with nothing
//                     changed), then each file with its ledger row in a transaction of its own
//                                                          invalid_argument (migration_failed)
//   renderReady       True/Available exactly when the ledger equals the set's ordered files;
//                     False/Reconciling otherwise (an older, shorter application once a longer one
//                     ran; an imported one not yet applied); False/DependencyMissing when the set's
//                     manifest cannot be read
//   renderDependents  the other applications of the same database: they read the same ledger
//
// Deleting an application removes the attachment and its pins only: no down-migration, no ledger
// edit, no database change. The database and the set are held by its pins (dependency_in_use).
// Import proves the prefix like apply but runs no SQL: adopting an attachment changes nothing
// native; its Ready says how far the ledger is, and the next apply runs the suffix.

import { HostError, invalidArgument } from "../../errors.ts";
import type { WireArtifactManifest } from "../../../core/index.ts";
import { firstDivergence, isPrefix, type LedgerEntry } from "../../sqlite/ledger.ts";
import { MigrationFailure, type MigrationFile } from "../../sqlite/databases.ts";
import type { EffectContext, FormRules, MutationContext, ReadyRendering, RenderContext, ResolvedTarget, RuleHost, RuleView } from "../types.ts";
import type { StoredResource } from "../../store/index.ts";
import { requireManifest } from "./bundle.ts";
import { holdersVia, pinnedTarget } from "./aggregate.ts";
import { KIND, RELATION, describe, hostReason } from "./family.ts";

function ordered(manifest: WireArtifactManifest): LedgerEntry[] {
  return (manifest.files ?? []).map((f) => ({ path: f.path, digest: f.digest }));
}

interface Plan {
  database: StoredResource;
  set: StoredResource;
  manifest: WireArtifactManifest;
  desired: LedgerEntry[];
  applied: readonly LedgerEntry[];
}

function target(targets: readonly ResolvedTarget[], relation: string): StoredResource | undefined {
  return targets.find((t) => t.instance.relation.pointer === relation)?.resource;
}

/** Resolves the set's manifest and proves the ledger is a prefix of it (before any mutation). */
function plan(host: RuleHost, ctx: Pick<MutationContext, "view" | "name" | "targets">): Plan | undefined {
  const database = target(ctx.targets, RELATION.database);
  const set = target(ctx.targets, RELATION.migrationSet);
  if (database === undefined || set === undefined) return undefined;
  const subject = `SQLiteMigrationApplication "${ctx.name}": /migrationSet ${describe(set)}`;
  const digest = ctx.view.specOf(set).manifestDigest;
  if (typeof digest !== "string") throw invalidArgument(`${subject} names no manifest`, { hostCode: "migration_set_manifest_missing" });
  const manifest = requireManifest(ctx.view, host.artifacts, digest, KIND.migrationSet, subject);
  const desired = ordered(manifest);
  const applied = ctx.view.migrationLedger(database.uid);
  if (!isPrefix(applied, desired)) {
    const at = firstDivergence(applied, desired);
    const what =
      at < 0
        ? `drops applied history: the ledger holds ${applied.length} migrations, the set lists ${desired.length}`
        : `rewrites applied history at migration ${at + 1}: the ledger holds ${applied[at]!.path} ${applied[at]!.digest}, the set lists ${desired[at]!.path} ${desired[at]!.digest}`;
    throw new HostError(
      "migration_required",
      `${subject} ${what} of ${describe(database)} (uid ${database.uid}); a set may only append to what was applied, so nothing was changed — ` +
        `create a set whose files begin with the ${applied.length} applied ones, in order and byte for byte`,
      { hostCode: "migration_history_rewritten" },
    );
  }
  return { database, set, manifest, desired, applied };
}

const decoder = new TextDecoder("utf-8", { fatal: true });

function suffixFiles(view: RuleView, p: Plan): MigrationFile[] {
  return (p.manifest.files ?? []).slice(p.applied.length).map((f, i) => {
    const bytes = view.blob(f.digest);
    if (bytes === undefined) throw new MigrationFailure(p.applied.length + i, f.path, `its bytes (${f.digest}) are not held by this tenant`);
    let sql: string;
    try {
      sql = decoder.decode(bytes);
    } catch {
      throw new MigrationFailure(p.applied.length + i, f.path, "its bytes are not UTF-8");
    }
    return { path: f.path, digest: f.digest, sql };
  });
}

function applySuffix(host: RuleHost, ctx: EffectContext): void {
  if (ctx.action !== "apply") return;
  const p = plan(host, ctx);
  if (p === undefined || p.applied.length === p.desired.length) return;
  try {
    ctx.databases.applyMigrations(p.database.uid, p.applied, suffixFiles(ctx.view, p));
  } catch (error) {
    if (!(error instanceof MigrationFailure)) throw error;
    const now = ctx.view.migrationLedger(p.database.uid).length;
    const kept =
      now === p.applied.length ? "nothing was changed" : `the ${now - p.applied.length} files before it were applied and stay recorded in the ledger`;
    throw invalidArgument(
      `SQLiteMigrationApplication "${ctx.name}": ${error.message}, on ${describe(p.database)} (uid ${p.database.uid}) from ${describe(p.set)}; ${kept}. ` +
        `Fix the file in a new set (the applied files unchanged before it) and apply an application of that set`,
      { hostCode: "migration_failed" },
    );
  }
}

function readiness(ctx: RenderContext): ReadyRendering | undefined {
  const { view, resource } = ctx;
  const databaseUid = pinnedTarget(view, resource.uid, RELATION.database);
  const setUid = pinnedTarget(view, resource.uid, RELATION.migrationSet);
  const set = setUid === undefined ? undefined : view.resourceByUid(setUid);
  if (databaseUid === undefined || set === undefined) return undefined;
  const digest = view.specOf(set).manifestDigest;
  let desired: LedgerEntry[];
  try {
    const manifest = JSON.parse((typeof digest === "string" ? view.manifest(digest) : undefined) ?? "null") as WireArtifactManifest | null;
    if (manifest === null || manifest.kind !== "MigrationBundle" || !Array.isArray(manifest.files)) throw new Error("not a MigrationBundle manifest");
    desired = ordered(manifest);
  } catch {
    return {
      status: "False",
      reason: "DependencyMissing",
      hostReason: hostReason(`the MigrationBundle manifest of ${describe(set)} is not held by this tenant`),
      message: `${describe(set)} names manifest ${String(digest)}, which this tenant does not hold as a MigrationBundle manifest`,
    };
  }
  const applied = view.migrationLedger(databaseUid);
  if (applied.length === desired.length && isPrefix(applied, desired)) return undefined;
  const counts = `the ledger of SQLiteDatabase uid ${databaseUid} holds ${applied.length} migrations; ${describe(set)} lists ${desired.length}`;
  return {
    status: "False",
    reason: "Reconciling",
    hostReason: hostReason(`${counts}; Ready requires the ledger to equal the set exactly`),
    message:
      applied.length < desired.length
        ? `${counts}: ${desired.length - applied.length} of its migrations have not run; apply this application to run them`
        : `${counts}: the database has moved past this set (another application applied a longer one); this application's set is no longer its whole history`,
  };
}

/** The other applications of the database this one applies to. */
function siblings(ctx: RenderContext): string[] {
  const databaseUid = pinnedTarget(ctx.view, ctx.resource.uid, RELATION.database);
  if (databaseUid === undefined) return [];
  return holdersVia(ctx.view, databaseUid, KIND.migrationApplication, RELATION.database)
    .map((a) => a.uid)
    .filter((uid) => uid !== ctx.resource.uid);
}

export function migrationApplicationRules(host: RuleHost): FormRules {
  return {
    checkMutation: (ctx) => void plan(host, ctx),
    applyEffects: (ctx) => applySuffix(host, ctx),
    renderReady: readiness,
    renderDependents: siblings,
  };
}
