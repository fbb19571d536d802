// The Form-family semantics extension point. A FormRules module is registered for one EXACT
// Form group and kind (never a kind alone); the host calls its hooks at fixed points:
//
//   canonicalizeSpec  at the materialization entry point (validate, prepare, apply, import),
//                     after defaults and before validation, digesting, storage and echo
//   validateSpec      host-side spec rules a schema cannot state (validate/prepare/apply/import)
//   validateWrite     spec-only semantic rules the protocol runs where it mutates: apply and
//                     import (sync, at 202 accept, and again at commit), right after validateSpec.
//                     prepare accepts what only these refuse; validate reports them as warnings
//                     (reference §2.6, §2.7 step 6, §11 Q20)
//   checkMutation     semantic/aggregate rules over resolved relation targets and the store,
//                     before any mutation on apply and import, and again when a 202 commits
//   applyEffects      the one hook that changes something outside the host's store: at the
//                     commit of an apply (sync, or when an accepted 202 commits), after every
//                     check passed and before the resource is written. It may still refuse
//                     (HostError), and then nothing of the resource is stored; what it changed
//                     outside the store is its own to keep consistent (the migration ledger)
//   checkDelete       before a delete removes a resource (and again at a 202 commit)
//   renderReady       the Ready rendering when no relation has drifted (a derived rendering)
//   renderDependents  other resources whose rendering reads this one (re-rendered after it moves)
//   outputs           the declared outputs of a Form with an outputSchema
//   supportProfile    adjustments to the Form's support profile
//
// `specLookups` is data, not a hook: the spec members the rules look resources up by, which the
// host indexes when it opens.
//
// Hooks throw HostError to refuse; they never write to the store (applyEffects writes only
// outside it).

import type { BindingRef, ConditionReason, ConditionStatus, FormRef, InterfaceRef, Lane, WireSupportProfile } from "../../core/index.ts";
import type {
  BindingDefinition,
  DesiredSpecValidator,
  FormDefinition,
  InterfaceDefinition,
  JsonObject,
  Relation,
  RelationInstance,
  Role,
} from "../../forms/index.ts";
import type { RelationPin, StoredResource } from "../store/index.ts";
import type { ArtifactPolicy } from "../artifacts/policy.ts";
import type { LedgerEntry } from "../sqlite/ledger.ts";
import type { SqliteDatabases } from "../sqlite/databases.ts";

/** Read-only access to the caller tenant's resources and artifacts. */
export interface RuleView {
  readonly tenant: string;
  resourceByUid(uid: string): StoredResource | undefined;
  resourceByAddress(space: string, apiVersion: string, kind: string, name: string): StoredResource | undefined;
  /** The parsed stored spec of a resource. */
  specOf(resource: StoredResource): JsonObject;
  pinsOf(uid: string): RelationPin[];
  /** Resources that hold a relation pinned to `uid`. */
  holdersOf(uid: string): StoredResource[];
  form(ref: FormRef): CatalogForm | undefined;
  /** A committed manifest the tenant holds (canonical JSON text), if any. */
  manifest(digest: string): string | undefined;
  /** Blob bytes, only when the tenant holds them. */
  blob(digest: string): Uint8Array | undefined;
  /** Uids that accepted-but-uncommitted deletes of this tenant are removing. */
  pendingDeletes(): ReadonlySet<string>;
  /** The migration ledger of a SQLiteDatabase incarnation of this tenant (empty when it has none). */
  migrationLedger(databaseUid: string): readonly LedgerEntry[];
  /**
   * Resources of one exact group and kind, in EVERY space of the tenant, whose top-level spec
   * member `member` is the string `value` (for claims that span a tenant's spaces). An index
   * lookup: `member` must be listed in the `specLookups` of some registered FormRules.
   */
  resourcesWithSpecValue(apiVersion: string, kind: string, member: string, value: string): StoredResource[];
}

/** What a rules module may read about the host itself, for the lane it is registered in; usable once the host has opened. */
export interface RuleHost {
  /** The lane whose catalog these rules serve (its support-profile limits, its Edge groups). */
  readonly lane: Lane;
  /** Every installed Form (each exact identity). */
  forms(): readonly CatalogForm[];
  /** The Interface installed at exactly this identity. */
  interface(ref: InterfaceRef): CatalogInterface | undefined;
  /** The lane's artifact ceilings and media policy (what support profiles publish and the host enforces). */
  readonly artifacts: ArtifactPolicy;
}

export interface ResolvedTarget {
  instance: RelationInstance;
  resource: StoredResource;
  form: CatalogForm | undefined;
}

export type MutationPhase = "sync" | "accept" | "commit";

export interface MutationContext {
  view: RuleView;
  action: "apply" | "import";
  phase: MutationPhase;
  form: CatalogForm;
  space: string;
  name: string;
  /** The materialized, canonicalized spec. */
  spec: JsonObject;
  /** The incarnation being updated, when it exists under the same exact ref. */
  existing: StoredResource | undefined;
  targets: readonly ResolvedTarget[];
}

/** What a mutation's rules saw, once it is decided (no phase), and the data an effect acts on. */
export interface EffectContext extends Omit<MutationContext, "phase"> {
  /** The SQLite databases behind SQLiteDatabase resources. */
  databases: SqliteDatabases;
}

export interface DeleteContext {
  view: RuleView;
  phase: MutationPhase;
  form: CatalogForm | undefined;
  resource: StoredResource;
}

export interface RenderContext {
  view: RuleView;
  form: CatalogForm | undefined;
  resource: StoredResource;
  spec: JsonObject;
}

export interface ReadyRendering {
  status: ConditionStatus;
  reason: ConditionReason;
  hostReason?: string;
  message?: string;
}

export interface OutputContext {
  form: CatalogForm;
  uid: string;
  name: string;
  space: string;
  generation: number;
  spec: JsonObject;
}

export interface SpecProblem {
  /** JSON pointer into the spec. */
  pointer: string;
  message: string;
}

export interface FormRules {
  /**
   * Top-level spec members these rules find resources by (`RuleView.resourcesWithSpecValue`).
   * The host keeps an index for each, so those lookups never scan.
   */
  specLookups?: readonly string[];
  canonicalizeSpec?(spec: JsonObject, form: CatalogForm): JsonObject;
  validateSpec?(spec: JsonObject, form: CatalogForm): SpecProblem[];
  validateWrite?(spec: JsonObject, form: CatalogForm): SpecProblem[];
  checkMutation?(ctx: MutationContext): void;
  applyEffects?(ctx: EffectContext): void;
  checkDelete?(ctx: DeleteContext): void;
  renderReady?(ctx: RenderContext): ReadyRendering | undefined;
  renderDependents?(ctx: RenderContext): string[];
  outputs?(ctx: OutputContext): JsonObject;
  supportProfile?(profile: WireSupportProfile, form: CatalogForm): WireSupportProfile;
}

/**
 * A rules module registers its hooks; the host composes every module registered for one line.
 * `host` is bound after the catalog is installed: read it inside hooks, not at registration.
 */
export type RuleModule = (registry: { register(apiVersion: string, kind: string, rules: FormRules): void; readonly host: RuleHost }) => void;

// ---- the catalog's entries (catalog.ts keeps them; the rules above take them) ----

export interface CatalogForm {
  ref: FormRef;
  packageDigest: string | undefined;
  definition: FormDefinition;
  /** The installed Definition's own desiredSchema, exactly as its document carries it. */
  desiredSchema: JsonObject;
  role: Role;
  declaresUpdate: boolean;
  relations: readonly Relation[];
  validator: DesiredSpecValidator;
  outputValidator: DesiredSpecValidator | undefined;
  rules: FormRules;
  path: string | undefined;
}

export interface CatalogInterface {
  ref: InterfaceRef;
  definition: InterfaceDefinition;
}

export interface CatalogBinding {
  ref: BindingRef;
  definition: BindingDefinition;
}
