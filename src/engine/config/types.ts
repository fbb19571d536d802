// The typed model of a synthesized stack: what the engine plans from. Expressions are parsed once
// at load time; nothing here is evaluated until the engine supplies values (evaluate.ts).

import type { BackendConfig } from "../../state/index.ts";
import type { KnownValue, Value } from "../../core/index.ts";
import type { AttributePath } from "../../provider/index.ts";

// ---- expressions ----

/** A value with no interpolation anywhere inside it (after `$${` / `%%{` unescaping). */
export interface LiteralExpr {
  kind: "literal";
  value: KnownValue;
}

/** `${takoform_x.name.attr[0].field}`: an attribute (path may be empty: the whole resource). */
export interface ReferenceExpr {
  kind: "reference";
  /** `takoform_x.name` */
  address: string;
  path: AttributePath;
  /** The traversal as written, without `${ }`, for messages. */
  text: string;
}

/** `${var.name}` or `${var.name.field}`. */
export interface VariableExpr {
  kind: "variable";
  name: string;
  path: AttributePath;
  text: string;
}

/**
 * `${data.terraform_remote_state.NAME.outputs.X}`: a value of another stack's state, read before
 * the stack is planned (a cross-stack reference, docs/stacks.md). Like a variable it is an input of
 * the plan, not a resource of this stack: it adds no edge to the resource graph.
 */
export interface DataExpr {
  kind: "data";
  /** The data source's name (`NAME`). */
  name: string;
  /** `data.terraform_remote_state.NAME` */
  address: string;
  /** The path inside the data source's value: `["outputs", "X", …]`. */
  path: AttributePath;
  text: string;
}

export type InterpolationExpr = ReferenceExpr | VariableExpr | DataExpr;

/** A string mixing literal text and interpolations; evaluates to a string. */
export interface TemplateExpr {
  kind: "template";
  parts: (string | InterpolationExpr)[];
}

export interface ListExpr {
  kind: "list";
  items: Expression[];
}

export interface ObjectExpr {
  kind: "object";
  entries: Record<string, Expression>;
}

/**
 * A string that is exactly one interpolation is the interpolation itself (a reference or a
 * variable), so it evaluates to the referenced value with its own type — cdktf renders a number
 * reference as `"${type.name.replicas}"`.
 */
export type Expression = LiteralExpr | ReferenceExpr | VariableExpr | DataExpr | TemplateExpr | ListExpr | ObjectExpr;

// ---- blocks ----

export interface LifecycleConfig {
  createBeforeDestroy: boolean;
  preventDestroy: boolean;
  /** `"all"`, or the attribute paths whose configured changes are ignored. */
  ignoreChanges: "all" | AttributePath[];
  /** Replace this resource when any of these resources (path empty) or attributes change. */
  replaceTriggeredBy: ReferenceExpr[];
}

/**
 * Values another construct contributed to this resource (RFC 0011). Kept apart from
 * `attributes`: a placeholder is the resource's attributes without its contributions.
 */
export interface ContributionConfig {
  /** Address of the contributing construct's resource. */
  from: string;
  /** Contributed attribute name → value. */
  values: Record<string, Expression>;
}

export interface ResourceConfig {
  /** `takoform_module_worker.api` */
  address: string;
  type: string;
  name: string;
  /** The resource's own configuration (meta-arguments and `//` removed). */
  attributes: Record<string, Expression>;
  contributions: ContributionConfig[];
  /** Addresses from `depends_on`, sorted, without duplicates. */
  dependsOn: string[];
  lifecycle: LifecycleConfig;
  /** The construct path from `//.metadata.path` (e.g. `demo/api`), for messages. */
  constructPath?: string;
}

export interface OutputConfig {
  name: string;
  value: Expression;
  sensitive: boolean;
  description?: string;
  dependsOn: string[];
}

/** A variable's declared type (Terraform type constraint syntax, parsed). */
export type TypeConstraint =
  | { kind: "any" }
  | { kind: "string" }
  | { kind: "number" }
  | { kind: "bool" }
  | { kind: "list" | "set" | "map"; element: TypeConstraint }
  | { kind: "object"; attributes: Record<string, TypeConstraint>; optional: string[] }
  | { kind: "tuple"; elements: TypeConstraint[] };

export interface VariableConfig {
  name: string;
  type: TypeConstraint;
  /** The type as written (`list(string)`), for messages. */
  typeText: string;
  /** Absent: the variable is required. */
  default?: KnownValue;
  sensitive: boolean;
  nullable: boolean;
  description?: string;
}

/** The stack's `provider.takoform` block. Only literals and variables are allowed in it. */
export interface ProviderConfig {
  endpoint?: Expression;
  space?: Expression;
  /** Sensitive: never shown, never stored. */
  token?: Expression;
  /** The pinned Host API lane (`v1beta1`, `v1alpha3`, or its group version). */
  lane?: Expression;
}

export interface ImportConfig {
  /** Address of the resource to import into. */
  to: string;
  /** The import ID: `NAME`, `SPACE/NAME`, or JSON text of the canonical object. Literal or variables. */
  id: Expression;
}

/**
 * A `moved` block: state's object at `from` is now managed at `to` (Terraform's refactoring; cdktf's
 * moveTo, moveToId, moveFromId). Re-keys state only: nothing is written to the host.
 */
export interface MovedConfig {
  from: string;
  to: string;
  /** Its position in the stack's `moved` list, which names it in messages (`moved[2]`). */
  index: number;
}

/** A `removed` block: `from` is gone from the configuration on purpose; `destroy` false forgets it, true destroys it. */
export interface RemovedConfig {
  from: string;
  destroy: boolean;
  /** Its position in the stack's `removed` list (`removed[0]`). */
  index: number;
}

/**
 * A `data.terraform_remote_state` block: another stack's outputs, read from that stack's state
 * (cdktf writes one per producing stack of a cross-stack reference).
 */
export interface RemoteStateConfig {
  name: string;
  /** `data.terraform_remote_state.NAME` */
  address: string;
  /** The producer's backend, as its own `terraform.backend` names it (`local` or `pg`). */
  backend: BackendConfig;
  /**
   * The workspace read: a name, or null for the consumer's own (`${terraform.workspace}`, which cdktf
   * writes). Absent means `default`, as in Terraform.
   */
  workspace: string | null;
  /** Values for outputs the state does not record (Terraform's `defaults`). */
  defaults: Record<string, KnownValue>;
}

/** What a `terraform_remote_state` read: the producing stack's outputs (engine/remote-state.ts). */
export interface RemoteStateValue {
  /** The stack whose state it is, when known. */
  stack?: string;
  /** Where it was read, for messages (never with a password). */
  describe: string;
  /** Output name → value; an unknown (of the producing stack) where the producer's plan does not know it yet. */
  outputs: Record<string, Value>;
  /** Outputs the state keeps only as a seal (a secret flows into them): a reference to one is refused. */
  sealed: ReadonlySet<string>;
  /** The state does not exist yet: nothing was applied there. */
  missing: boolean;
}

export interface StackConfig {
  /** The file read, when loaded from disk. */
  file?: string;
  /** `//.metadata.stackName`, when cdktf wrote it. */
  stackName?: string;
  /** Every resource, keyed and iterated in address order. */
  resources: Map<string, ResourceConfig>;
  outputs: Map<string, OutputConfig>;
  variables: Map<string, VariableConfig>;
  provider: ProviderConfig | null;
  imports: ImportConfig[];
  /** `moved` blocks, in the order written; the rules between them are checked at load (refactoring-rules.ts). */
  moved: MovedConfig[];
  /** `removed` blocks, in the order written. */
  removed: RemovedConfig[];
  /** `terraform.backend`: where state lives; null when the stack names none (the default local file). */
  backend?: BackendConfig | null;
  /** `data.terraform_remote_state` blocks by name (absent: none). */
  remoteStates?: Map<string, RemoteStateConfig>;
}
