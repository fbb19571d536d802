// A plan is plain, serializable data (ARCHITECTURE §4): per resource address the Terraform action
// array, before/after values, what is unknown until apply, what forces replacement and why, the
// diagnostics, and the ordered step graph the apply walks — including the placeholder, settle and
// revert-to-placeholder steps of dependency cycles (RFC 0011).

import type { Attributes, Diagnostic, KnownValue } from "../core/index.ts";
import type { AttributePath } from "../provider/index.ts";
import type { HostBinding } from "../state/index.ts";

/** Terraform's action arrays, exactly as `terraform show -json` writes them. */
export type TerraformActions = ["no-op"] | ["create"] | ["read"] | ["update"] | ["delete", "create"] | ["create", "delete"] | ["delete"] | ["forget"];

/** Why an action was chosen when the configuration alone does not say (Terraform's `action_reason`). */
export type ActionReason =
  | "replace_because_cannot_update"
  | "replace_because_tainted"
  | "replace_by_request"
  | "replace_by_triggers"
  | "delete_because_no_resource_config"
  | "delete_because_no_move_target"
  | "relation_drift_recovery"
  | "cycle_placeholder";

export interface ReplaceReason {
  path: AttributePath;
  /** A short human reason, e.g. "derived revision name changed", "immutable field". */
  reason: string;
}

export interface ResourceChange {
  address: string;
  type: string;
  /** The resource name within its type (`app` of `takoform_worker_bundle.app`). */
  name: string;
  actions: TerraformActions;
  actionReason?: ActionReason;
  /** Prior state attributes (null when creating). */
  before: Record<string, KnownValue> | null;
  /** Planned attributes (null when deleting). May contain unknowns. */
  after: Attributes | null;
  replacePaths: AttributePath[];
  replaceReasons: ReplaceReason[];
  /** Attribute names whose values are sensitive (shown as `(sensitive value)`). */
  sensitivePaths: AttributePath[];
  /** The address state held the object at before a `moved` block moved it here (Terraform's `previous_address`). */
  previousAddress?: string;
  /** Set when the change adopts an existing host resource through an `import` block. */
  importingId?: string;
  /** This resource starts as a placeholder of a dependency cycle (RFC 0011). */
  placeholder?: boolean;
  /**
   * What a person is shown of this change (plan/shown.ts; the human plan only, never the JSON):
   * the attribute names its configuration sets, and those of its attributes the configuration
   * reads elsewhere (a reference from another resource or an output). Absent on drift and on a
   * plan saved before they existed, which then show every attribute.
   */
  configuredAttributes?: string[];
  readAttributes?: string[];
}

/** What one apply step does. `create`/`update`/`delete` are the ordinary provider calls. */
export type StepAction =
  | "create"
  | "update"
  | "delete"
  | "import" // read an existing host resource into state (import block)
  | "create-placeholder" // RFC 0011 rule 2: create with config minus contributions
  | "finalize" // RFC 0011 rule 4: update a placeholder to its full config
  | "settle" // RFC 0011 rule 5: update a member whose params changed because a peer's output changed
  | "revert" // RFC 0011 rule 6/7: update a member back to its placeholder, dropping references to peers
  | "resume" // re-send a write an interrupted apply recorded but never settled
  | "forget"; // remove a record from state, leaving its host object (a removed block with destroy = false)

export interface PlanStep {
  /** Unique within the plan, e.g. `create:takoform_worker_bundle.app`, `settle:1:mesh_service.a`. */
  id: string;
  address: string;
  action: StepAction;
  /** Step ids that must complete successfully before this one starts. */
  dependsOn: string[];
  /** For replacements: which instance the step addresses. */
  instance?: "current" | "replacement";
  /** For settle steps: the pass number (1-based). */
  pass?: number;
}

export interface OutputChange {
  name: string;
  actions: TerraformActions;
  before: KnownValue | undefined;
  after: KnownValue | undefined;
  afterUnknown: boolean;
  /** When the value is another stack's, not known until that stack applies: that stack (docs/stacks.md). */
  unknownFrom?: string;
  /** Never shown. */
  sensitive: boolean;
  /** Stored as a seal: a secret flows into it, or the configuration marks it sensitive (engine/evaluate.ts). */
  sealed?: true;
}

/** One attribute of a resource that a plan's changes read (`attribute` `[]`: the whole resource). */
export interface RelevantAttribute {
  resource: string;
  attribute: AttributePath;
}

export interface Plan {
  formatVersion: 1;
  /** State identity the plan was computed from; `apply FILE` refuses when either moved. */
  stateLineage: string;
  stateSerial: number;
  resourceChanges: ResourceChange[];
  outputChanges: OutputChange[];
  steps: PlanStep[];
  diagnostics: Diagnostic[];
  /** The plan is a destroy plan (`takoform destroy`, `plan --destroy`). */
  destroy: boolean;
  /** The plan only refreshes state (`takoform refresh`, `plan --refresh-only`). */
  refreshOnly: boolean;
  /**
   * What refresh found changed outside takoform since state was written (Terraform's
   * `resource_drift`): `update` with the refreshed attributes as `after`, or `delete` for an
   * object that is gone. Apply and `takoform refresh` write these to state; a plan never does.
   */
  resourceDrift?: ResourceChange[];
  /**
   * The attributes of drifted objects that this plan depends on or the configuration sets
   * (Terraform's `relevant_attributes`; see relevance.ts). A plan shows only these of its drift;
   * absent on a refresh-only plan, which shows all of it.
   */
  relevantAttributes?: RelevantAttribute[];
  /**
   * Records `moved` blocks move (plan/moves.ts): the apply re-keys them in state before its first
   * step, with no host call; every change of this plan is at the new address. Absent: none.
   */
  moves?: PlanMove[];
  /** `--target` addresses the plan was restricted to (absent: the whole stack). */
  targets?: string[];
  /** The host the plan was made against (`apply FILE` refuses another); absent when not known. */
  host?: HostBinding;
}

/** One record a plan moves: from its recorded address to the end of its chain of `moved` blocks. */
export interface PlanMove {
  from: string;
  to: string;
  /** The `moved` blocks of the chain, by their index in the stack. */
  blocks: number[];
}

/** True when applying the plan would change anything (resources, moves or imports in state, or outputs). */
export function planHasChanges(plan: Plan): boolean {
  return (
    (plan.moves?.length ?? 0) > 0 ||
    plan.resourceChanges.some((c) => c.actions[0] !== "no-op" || c.importingId !== undefined) ||
    plan.outputChanges.some((c) => c.actions[0] !== "no-op")
  );
}
