// The state model: one record per resource address, the in-flight intent written before every
// host call, the stack outputs, and the lease that keeps two applies from writing one state.
// The interfaces are storage-neutral (every call returns a Promise) so a PostgreSQL store can
// sit behind them later; the local SQLite store is the only implementation today.

import type { FormRef, KnownValue, WriteIntent } from "../core/index.ts";

/**
 * Where a record is in its lifecycle.
 * - `ready`: settled with its full configuration.
 * - `placeholder`: settled, but created (or reverted) without its RFC 0011 contributions.
 * - `creating` / `updating` / `deleting` / `reverting`: a host write is in flight; the record
 *   carries the intent that was persisted before the write was sent.
 */
export type ResourceStatus = "ready" | "placeholder" | "creating" | "updating" | "deleting" | "reverting";

export const SETTLED_STATUSES = ["ready", "placeholder"] as const;
export const IN_FLIGHT_STATUSES = ["creating", "updating", "deleting", "reverting"] as const;
export type SettledStatus = (typeof SETTLED_STATUSES)[number];
export type InFlightStatus = (typeof IN_FLIGHT_STATUSES)[number];

/**
 * A contribution edge (RFC 0011): this resource holds values contributed by the resource at
 * `from`, in the named attributes. Kept in state so that destroying a cycle that was removed
 * from code can still find which member refers to which.
 */
export interface ContributionEdge {
  from: string;
  fields: string[];
}

/** The intent persisted before a host write and cleared by `settle` once the result is known. */
export interface RecordedIntent {
  /** The engine's step id (e.g. `create:takoform_x.a`, `settle:2:takoform_x.a`). */
  stepId: string;
  /** ISO-8601 time the intent was recorded. */
  at: string;
  /** The exact request about to be sent (credential headers are stripped before storage). */
  write: WriteIntent;
  /** The record's settled status before this write; null when the record did not exist. */
  previousStatus: SettledStatus | null;
}

/** What the engine hands the store for a settled record. */
export interface ResourceInput {
  type: string;
  status: SettledStatus;
  /**
   * The provider's attribute document in Terraform naming (envelope + desired fields + outputs).
   * Known values only; sensitive values already sealed with `sealSensitive`.
   */
  attributes: Record<string, KnownValue>;
  /** Addresses this resource depended on when it was last applied. */
  dependencies?: readonly string[];
  contributions?: readonly ContributionEdge[];
}

/**
 * What every stored resource holds, whatever its lifecycle. The identity columns (`ref`, `space`,
 * `name`, `uid`, …) are derived by the store from the envelope attributes on every write, so they
 * can never disagree with the attribute document, and listing or looking them up needs no JSON parse.
 */
interface StoredRecord {
  address: string;
  type: string;
  /** The exact FormRef recorded (`form_api_version`, `form_kind`, `form_definition_version`, `form_schema_digest`). */
  ref: FormRef | null;
  packageDigest: string | null;
  space: string | null;
  name: string | null;
  uid: string | null;
  generation: string | null;
  revision: string | null;
  pendingOperationId: string | null;
  relationDriftReason: string | null;
  attributes: Record<string, KnownValue>;
  /** The host's `status.outputs`, decoded from `outputs_json`. */
  outputs: Record<string, KnownValue>;
  conditions: KnownValue[];
  dependencies: string[];
  contributions: ContributionEdge[];
  /** The state serial of the write that last changed this record. */
  serial: number;
}

/** A record with no host write in flight: it carries no intent. */
export interface SettledRecord extends StoredRecord {
  status: SettledStatus;
  intent: null;
}

/** A record whose host write is in flight: it carries exactly the intent persisted before the write was sent. */
export interface InFlightRecord extends StoredRecord {
  status: InFlightStatus;
  intent: RecordedIntent;
}

/**
 * One stored resource. The status decides whether an intent exists, so a settled record with an
 * intent, or an in-flight one without, cannot be written down (both stores enforce the same rule
 * in their tables too).
 */
export type ResourceRecord = SettledRecord | InFlightRecord;

/** A stack output (`output` block) as stored; sensitive values are sealed. */
export interface StoredOutput {
  value: KnownValue;
  sensitive: boolean;
}

/**
 * The host a state belongs to: every object it records was written to this host, in this space,
 * for this principal's tenant. A command against any other host is refused before it reads or
 * writes anything (docs/state.md §4), because an object missing there says nothing about the
 * host that holds it.
 */
export interface HostBinding {
  /**
   * The endpoint origin the state was written through (`https://host.example`), or `embedded`
   * for the embedded local host reached in-process.
   */
  origin: string;
  /** The identity the host publishes about itself on discovery; null when it publishes none. */
  hostId: string | null;
  /** The provider's default space. */
  space: string;
  /** The caller's tenant, when the host tells it on discovery; null when it does not. */
  tenant: string | null;
  /**
   * Only while the tenant is unknown: a keyed digest of the bearer credential
   * (`hmac-sha256:<hex>`, keyed by the lineage), so another credential — possibly of another
   * tenant — is noticed. Never the credential itself; null without one or with a known tenant.
   */
  credential: string | null;
  /**
   * The Host API lane (its group version, `forms.takoform.com/v1beta1`) every record of the state
   * was written under (docs/state.md §4). Null only for a binding written before lanes were
   * recorded: such a state was written under the first lane, forms.takoform.com/v1alpha3.
   */
  lane: string | null;
}

/** A binding as stored: when it was last written. */
export interface StoredHostBinding extends HostBinding {
  /** ISO-8601 time of the write that bound (or re-bound) the state. */
  boundAt: string;
}

/** The whole state as one JSON document (`takoform state pull`). Sensitive values stay sealed. */
export interface StateDocument {
  version: 1;
  lineage: string;
  serial: number;
  /** The host the state is bound to; null for a state no command has bound yet. */
  host: StoredHostBinding | null;
  resources: ResourceRecord[];
  outputs: Record<string, StoredOutput>;
}

/** The lock row: who holds the lease, where, since when, until when, and under which token. */
export interface LockInfo {
  holder: string;
  pid: number;
  hostname: string;
  /**
   * The holder's PID namespace (`pid:[4026531836]`) where the platform tells it, else null. A
   * holder counts as gone only when it ran on this host AND in this PID namespace, so a container
   * sharing the hostname can never make a live holder look dead.
   */
  pidNamespace: string | null;
  /** Milliseconds since the epoch. */
  acquiredAt: number;
  renewedAt: number;
  expiresAt: number;
  /** Fencing token: strictly increasing across every acquisition of this state. */
  token: number;
}

export interface AcquireOptions {
  /** Who is asking, e.g. `apply:<run id>`; shown to anyone who finds the state locked. */
  holder: string;
  /** Lease length; the holder must `renew()` before it runs out. */
  leaseMs: number;
  /**
   * Wait for the lease, polling with backoff, for the whole of `timeoutMs`: a live lease may be
   * released, and an expired one may still be renewed or released by a holder that was only slow.
   */
  wait?: { timeoutMs: number };
  /** Take over a lease whose expiry has passed (`--force-unlock`). Refused while the lease is live. */
  takeover?: boolean;
}

/** A lease this acquisition took from another holder, and why that was allowed. */
export interface LockTakeover {
  /** The lock row as it was before. */
  previous: LockInfo;
  /**
   * `holder-gone`: the holder ran on this host and its process no longer exists, so it can never
   * renew or release (taken at once, live lease or not). `stale`: its lease had expired and the
   * caller asked for the takeover (`--force-unlock`). `expired`: its lease had expired and the store
   * takes such a lease over by itself (the PostgreSQL store, whose holders may run on any machine).
   */
  reason: "holder-gone" | "stale" | "expired";
}

/** What `acquire` hands back: the lease, and the one it took over, if any. */
export interface AcquiredLease extends LockInfo {
  takenOver: LockTakeover | null;
}

/** Read access: what `state list/show/pull` and plan need. Takes no lock. */
export interface StateReader {
  /**
   * Fixed when the state is created, and kept by every copy of it (`state migrate`, `state push`):
   * it identifies this state wherever it is stored, and keys its sealed values.
   */
  readonly lineage: string;
  /** Bumped by every data write (not by lock traffic), so a saved plan can detect that state moved. */
  serial(): Promise<number>;
  /** Every record, ordered by address. */
  list(): Promise<ResourceRecord[]>;
  get(address: string): Promise<ResourceRecord | undefined>;
  /** Records with an unsettled intent, ordered by address: the steps a crash interrupted. */
  inFlight(): Promise<InFlightRecord[]>;
  outputs(): Promise<Record<string, StoredOutput>>;
  /** The current lock row, if any (live or expired). */
  lockInfo(): Promise<LockInfo | null>;
  /** The host this state is bound to; null until a command binds it. */
  hostBinding(): Promise<StoredHostBinding | null>;
  /**
   * The stack of the app this state belongs to (docs/stacks.md); null until a stack claims it (a
   * state of a stack with no name, or one written before states recorded their stack).
   */
  stack(): Promise<string | null>;
  pull(): Promise<StateDocument>;
  close(): Promise<void>;
}

/** What one move changed (`moveResource`): each record moved (`from` → `to`), and the records whose edges were rewritten. */
export interface StateMove {
  moved: { from: string; to: string }[];
  /** Records (other than the moved ones) whose dependencies or contribution edges named a moved address. */
  edges: string[];
}

/**
 * Read-write access. Every write is atomic on one record (never a rewrite of the whole state) and
 * committed before it returns (the PostgreSQL store may commit the writes issued at the same
 * moment in one transaction), bumps the serial, and — when this handle holds the lease — verifies
 * inside the transaction that carries it that the fencing token is still ours, so a process that
 * lost its lease cannot write.
 */
export interface StateStore extends StateReader {
  acquire(options: AcquireOptions): Promise<AcquiredLease>;
  /** Extends the lease by the acquisition's `leaseMs`; fails with `LeaseLostError` if taken over. */
  renew(): Promise<LockInfo>;
  /** Gives the lease up. Returns false when it had already been taken over (nothing to release). */
  release(): Promise<boolean>;
  /** The lease this handle last acquired (it may since have been lost), or null after release. */
  readonly lease: LockInfo | null;

  /**
   * Records that this state belongs to `stack`, unless it records a stack already; returns the
   * stack it records afterwards (`stack` when this call or an earlier one by the same stack
   * claimed it, another name when another stack did). Atomic: of two stacks claiming one state at
   * once, one wins and the other is told the winner. It is not a data write: it takes no lease,
   * is not fenced and leaves the serial as it is, so a plan saved before the claim still applies.
   */
  claimStack(stack: string): Promise<string>;

  /**
   * Binds the state to a host (or re-binds it). One fenced write that bumps the serial, so a plan
   * saved before it no longer applies.
   */
  bindHost(binding: HostBinding): Promise<void>;

  /**
   * Writes a settled record (refresh, import). Refused while the record has an unsettled intent.
   *
   * Every write that names a host object (`putResource`, `settle`, and `setIntent` starting a
   * record) keeps one record per host object: it fails with `StateConflictError`, changing
   * nothing, when a record of another configuration address holds the same uid, or the same
   * space, Form group and kind, and name. A record and its own deposed copies (`ADDRESS#deposed:K`)
   * are one resource and never conflict.
   */
  putResource(address: string, input: ResourceInput): Promise<void>;
  /**
   * Persists the intent of a host write before it is sent and moves the record to an in-flight
   * status. For an address with no record, only `creating` is accepted and a record is started
   * from the intent (type, space, name, ref) with no attributes.
   */
  setIntent(address: string, status: InFlightStatus, intent: { stepId: string; write: WriteIntent }): Promise<void>;
  /** Records the result of the in-flight write and clears the intent; null removes the record. */
  settle(address: string, input: ResourceInput | null): Promise<void>;
  /** Forgets a record (e.g. `state rm`, or a refresh that proved the resource gone). */
  removeResource(address: string): Promise<boolean>;
  /**
   * Moves the record at `from` to `to` (`state mv`): the resource and each of its deposed objects
   * (`from#deposed:K` → `to#deposed:K`), and every dependency and contribution edge of other
   * records that names one of them (move.ts says how). One fenced write that bumps the serial
   * once. Refused with StateMoveError, changing nothing, when `from` has no record, when `to` or a
   * deposed object under it has one, or while any record has an unsettled intent (an intent's
   * recorded step names its address, and resuming it must find the record where it was).
   */
  moveResource(from: string, to: string): Promise<StateMove>;
  /**
   * Replaces the stack outputs. A sensitive value must arrive sealed (`sealSensitive(value,
   * lineage)`, which the engine does); the store keeps values as opaque data and refuses a
   * sensitive one that is not a seal, so no secret reaches state in the clear.
   */
  putOutputs(outputs: Record<string, { value: KnownValue; sensitive: boolean }>): Promise<void>;
  /**
   * Replaces the whole state with `document` (`state push`, `state migrate`) in one fenced
   * transaction: lineage, records with their intents, outputs and host binding, checked as every
   * single write is checked (document.ts). The serial becomes the document's when this state was
   * never written (serial 0: a copy keeps lineage and serial exactly), else the higher of the
   * document's and this state's serial + 1, so a plan saved against this state before is refused.
   * Whether this document may replace this state (lineage, serial, intents in flight) is the
   * caller's decision; the rules differ between push and migrate.
   */
  replaceState(document: StateDocument): Promise<void>;
}
