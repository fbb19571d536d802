// The provider interface the plan engine drives, modelled on Terraform's resource protocol so
// the seeds' vocabulary maps one to one (ARCHITECTURE §4): validate, plan (ModifyPlan lives
// here), create, read, update, delete, importState — plus resumeWrite, which re-sends a write
// whose intent the engine recorded before a crash, so the host replays it by Idempotency-Key.

import type { ConcurrencyView } from "../client/index.ts";
import type { AttributePath, Attributes, Diagnostic, FormRef, LaneName, WriteIntent } from "../core/index.ts";

// A path into a value is the Value model's (core); the provider's interface names it too.
export type { AttributePath } from "../core/index.ts";

// The intent of a host write is recorded by the engine and persisted by the stores, below this
// layer (core/write-intent.ts); the provider builds it and names it in its interface.
export type { WriteIntent } from "../core/index.ts";

// A resource type's schema is derived from its Form line's codecs, in the registry
// (registry/type-schema.ts); the provider's interface names it.
import type { AttributeMode, AttributeSchema, AttributeType, ResourceTypeSchema } from "../registry/index.ts";

export type { AttributeMode, AttributeSchema, AttributeType, ResourceTypeSchema };

/** What the engine stores for one resource and hands back to the provider. */
export interface ResourceState {
  type: string;
  /** Every attribute in Terraform naming: envelope (name, space, uid, generation, revision, form_*, …) and desired fields. */
  attributes: Attributes;
}

export interface PlanRequest {
  type: string;
  address: string;
  /** null when the resource does not exist yet. */
  prior: ResourceState | null;
  /** The resource's configuration after reference evaluation; null plans its destruction. */
  config: Attributes | null;
  /**
   * When `prior` is null because this plans the NEW object of a replacement: the attributes of the
   * object it replaces (the replacement's `before`). Terraform core hands a provider nothing of the
   * kind; this engine does, so a revision replaced for relation drift can be named beside the one a
   * holder still pins (docs/provider.md, "Relation drift under a held revision"). Nothing else reads it.
   */
  replacing?: Attributes | null;
}

export interface PlanResponse {
  /** Proposed attributes after the change; null for a destroy. May contain unknowns. */
  planned: Attributes | null;
  /** Attribute paths whose change forces a replacement. Non-empty ⇒ the engine plans a replace. */
  requiresReplace: AttributePath[];
  diagnostics: Diagnostic[];
}

export interface WriteContext {
  /**
   * Extra scope mixed into the write's Idempotency-Key so that several writes of one resource in
   * one deploy get distinct keys (RFC 0011 settling: `settle:<n>`, placeholders: `placeholder`).
   */
  idempotencyScope?: string;
  /** Called with each mutating host request before it is sent; the engine persists it first. */
  recordIntent(intent: WriteIntent): Promise<void> | void;
  signal?: AbortSignal;
}

export interface WriteResult {
  /**
   * The state to record. A failed create that the host accepted still returns state (name,
   * space, exact ref, pending_operation_id) so the next run reconciles instead of duplicating.
   * null when nothing exists (a failed create before acceptance, or a completed delete).
   */
  state: ResourceState | null;
  diagnostics: Diagnostic[];
  /**
   * The request was sent but its outcome is unknown (no answer arrived). The engine must leave
   * the write's recorded intent in state, unsettled, for the next run to re-send under the same
   * Idempotency-Key (docs/state.md §2); `state` is then what state held before the write.
   */
  unresolved?: boolean;
}

export interface ReadResult {
  /** null: the resource is gone (only a structured resource_not_found concludes that). */
  state: ResourceState | null;
  diagnostics: Diagnostic[];
}

/** A host object a relation names; it lives in the holder's space (cross-space references are unrepresentable). */
export interface RelationTarget {
  apiVersion: string;
  kind: string;
  name: string;
}

/**
 * An ordering the host enforces that no relation of the needing resource names: a resource of
 * `kind` (an attachment) needs, through the object its `attribute` names (a `targetKind`), the
 * resource of `activatorType` whose `activatorAttribute` names the same object (the object's
 * active deployment) — and that deployment must serve `handler`. The host refuses the attachment
 * before it, and refuses to delete the deployment while the attachment lives (host-needs.ts).
 */
export interface HostNeed {
  kind: string;
  attribute: string;
  targetKind: string;
  activatorType: string;
  activatorAttribute: string;
  activatorKind: string;
  /** The worker.runtime handler the activator's weighted versions must serve, when the provider knows it. */
  handler?: string;
}

export interface ImportResult {
  state: ResourceState | null;
  diagnostics: Diagnostic[];
}

export interface Provider {
  /** Every resource type this provider build serves (bundled plus any project registry). */
  schemas(): readonly ResourceTypeSchema[];
  schema(type: string): ResourceTypeSchema | undefined;

  /**
   * Resource types this build names but cannot serve (e.g. a registry line with no default
   * create), one error diagnostic each with its `resourceType`. Empty when every type is servable.
   */
  problems(): readonly Diagnostic[];

  /**
   * How many calls the host takes at once, when that adapts (docs/engine.md §9): the client's
   * concurrency limit for a host over the network (it connects to find out); undefined
   * otherwise, and the engine then keeps DEFAULT_PARALLELISM calls going. Optional: a provider
   * without it is run at the default.
   */
  concurrency?(): Promise<ConcurrencyView | undefined>;

  /** Static checks of configuration; unknown values are skipped, never guessed. */
  validate(type: string, config: Attributes): Diagnostic[];

  /** ModifyPlan: relation-drift recovery, bundle re-hash, revision names, same-name safety, host support. */
  plan(request: PlanRequest): Promise<PlanResponse>;

  create(type: string, planned: Attributes, context: WriteContext): Promise<WriteResult>;
  update(type: string, prior: ResourceState, planned: Attributes, context: WriteContext): Promise<WriteResult>;
  delete(type: string, prior: ResourceState, context: WriteContext): Promise<WriteResult>;

  /** Refresh: the pending-operation resume table, the UID rule, relation-drift warnings. */
  read(prior: ResourceState): Promise<ReadResult>;

  /**
   * The objects a resource's attributes reference — its relations, as the host resolves and pins
   * them and reports them back on read — from the codec of its recorded ref. Pure (no host call);
   * empty when the state names no codec this build serves.
   */
  relationTargets(state: ResourceState): RelationTarget[];

  /**
   * What the host enforces for a resource of `type` beyond its relations (HostNeed), derived
   * from the Forms' roles and relations. Pure; empty for a type that needs nothing.
   */
  hostNeeds(type: string): readonly HostNeed[];

  /** Parses an import ID (`NAME`, `SPACE/NAME` or the canonical JSON object) into state for a read. */
  /** Identity only: no resource call (a NAME import asks the host which lane it speaks). */
  importState(type: string, id: string): Promise<ImportResult>;

  /**
   * The state of a resource re-pointed at its identity under another Host API lane: the type's
   * line under `lane` at the recorded definitionVersion (`form_*` replaced, nothing else). Pure:
   * no host call; only a read under the new identity can prove the host holds it (state
   * upgrade-lane). `unchanged` for an identity `lane` already serves (its own, or lane-neutral).
   */
  laneSuccessor(state: ResourceState, lane: LaneName): LaneSuccessor;

  /**
   * Re-sends a write whose intent was recorded but whose outcome was never recorded (the process
   * died). The host replays it by Idempotency-Key when it committed, or executes it when it never
   * arrived; nothing is ever adopted by name.
   */
  resumeWrite(intent: WriteIntent, prior: ResourceState | null): Promise<WriteResult>;
}

/** What `laneSuccessor` answers. */
export type LaneSuccessor =
  | { state: ResourceState; from: FormRef; to: FormRef; unchanged?: undefined; diagnostic?: undefined }
  | { unchanged: true; state?: undefined; diagnostic?: undefined }
  | { diagnostic: Diagnostic; state?: undefined; unchanged?: undefined };
