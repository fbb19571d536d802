// What a plan is made from, and what its phases (./phases/) build up in turn. One PlanContext
// per createPlan call; each phase reads what earlier phases set and sets its own part.

import { type Diagnostic, Diagnostics, type Attributes } from "../../core/index.ts";
import type { Provider, ResourceState } from "../../provider/index.ts";
import type { HostBinding, ResourceRecord, StoredHostBinding, StoredOutput } from "../../state/index.ts";
import { configEdges } from "../config/edges.ts";
import type { StackConfig } from "../config/types.ts";
import type { ResolvedVariables } from "../config/variables/resolve.ts";
import type { CycleResolution, CycleResolver } from "../cycles/seam.ts";
import { type Parallelism, parallelismOf } from "../dag.ts";
import { dependencyMap } from "../dependencies.ts";
import { buildDependencyGraph } from "../graph/build.ts";
import type { DependencyGraph, EdgeInput } from "../graph/types.ts";
import type { HostNeedEdge } from "../host-needs.ts";
import type { PlanMove, PlanStep, ResourceChange } from "../plan-data.ts";
import type { OutputPlan } from "./outputs.ts";
import type { TargetScope } from "./targets.ts";

export type PlanMode = "normal" | "destroy" | "refresh-only";

/** What the configuration check (check.ts) found for a run it let through: the plan's validate phase starts from it. */
export interface CheckedConfiguration {
  /** Configuration address → the attributes the provider validated. */
  readonly validated: ReadonlyMap<string, Attributes>;
  /** The validate pass's findings (warnings: a run with an error is refused). */
  readonly diagnostics: readonly Diagnostic[];
}

export interface PlanOptions {
  mode?: PlanMode;
  /** Read every resource back first (default true; `--refresh=false` turns it off). */
  refresh?: boolean;
  /** `--target`: restrict the plan to these addresses and their dependencies (dependents for destroy). */
  targets?: readonly string[];
  /** `--replace`: replace these resources even where nothing changed (a normal plan only). */
  replace?: readonly string[];
  /**
   * Provider calls in flight at once (`--parallelism N`); without it, the provider's adaptive
   * limit when it has one, else DEFAULT_PARALLELISM (dag.ts parallelismOf).
   */
  parallelism?: number;
  /** RFC 0011 cycle resolution; the default resolves cycles with placeholders (`placeholderCycles`). */
  cycles?: CycleResolver;
  /** What checkConfiguration validated before the run opened state (untargeted plans reuse it). */
  checked?: CheckedConfiguration;
}

/** What the planner reads from state: one consistent snapshot. */
export interface StateSnapshot {
  lineage: string;
  serial: number;
  /** The host the state is bound to (null: not bound yet; absent: not read). */
  host?: StoredHostBinding | null;
  records: readonly ResourceRecord[];
  outputs: Readonly<Record<string, StoredOutput>>;
}

export interface PlanInput {
  provider: Provider;
  stack: StackConfig;
  variables: ResolvedVariables;
  state: StateSnapshot;
  /** The host the provider talks to; a state bound to another host is refused before any read. */
  host?: HostBinding;
  options?: PlanOptions;
}

const NO_RESOLUTION: CycleResolution = { diagnostics: [], deferredEdges: new Set(), placeholders: new Set() };
const ALL: TargetScope = { planned: null, state: null, outputs: null, diagnostics: [] };

export class PlanContext {
  readonly provider: Provider;
  readonly stack: StackConfig;
  readonly variables: ResolvedVariables;
  /** State as read, until the moved blocks phase replaces it with state re-keyed by the moves. */
  state: StateSnapshot;
  readonly host: HostBinding | undefined;
  readonly options: PlanOptions;
  readonly mode: PlanMode;
  #parallelism: Promise<Parallelism> | undefined;
  /** `--target`, each address a moved block moves from read as where it moves to. */
  targets: readonly string[] | undefined;
  /** `-replace`: configuration addresses replaced even where nothing changed (normal mode only). */
  readonly replace: ReadonlySet<string>;
  /** Every finding: per resource address, or of the plan as a whole. */
  readonly diagnostics = new Diagnostics();

  // ---- configuration ----
  readonly edges: EdgeInput[];
  readonly graph: DependencyGraph;
  /** What the cycle resolver decided (placeholders, deferred edges, extra steps). */
  resolution: CycleResolution = NO_RESOLUTION;
  /** Configuration address → what it depends on, without the edges placeholders defer. */
  configDependencies: Map<string, string[]>;

  /**
   * Configuration address → the attributes the validate phase had the provider validate. Planning
   * a resource whose evaluated configuration is the same values validates nothing again (its
   * findings were reported once already); one whose references now resolve to values is validated.
   */
  readonly validated = new Map<string, Attributes>();

  // ---- state ----
  /** The records the moved blocks move, with where they go (plan/moves.ts). */
  moves: PlanMove[] = [];
  readonly records = new Map<string, ResourceRecord>();
  readonly recordedDependencies = new Map<string, readonly string[]>();
  /** What the host enforces between recorded objects beyond their relations (../host-needs.ts). */
  hostNeeds: readonly HostNeedEdge[] = [];
  /** What deletes are ordered by: recorded, the host's relations and needs, and (destroy) the configuration. */
  stateDependencies: ReadonlyMap<string, readonly string[]> = new Map();
  /** What `--target` puts in the plan. */
  scope: TargetScope = ALL;

  // ---- refresh ----
  /** State address → the object as refreshed (or recorded); null when it is gone. */
  readonly priors = new Map<string, ResourceState | null>();
  /** What refresh found changed on the host. */
  readonly drift: ResourceChange[] = [];

  // ---- changes ----
  readonly changes = new Map<string, ResourceChange>();
  /** Addresses whose planning failed. */
  readonly failed = new Set<string>();
  /** Configuration address → the import ID its import block names. */
  importing: ReadonlyMap<string, string> = new Map();
  outputs: OutputPlan = { changes: [], values: new Map(), diagnostics: [] };
  steps: PlanStep[] = [];

  constructor(input: PlanInput) {
    this.provider = input.provider;
    this.stack = input.stack;
    this.variables = input.variables;
    this.state = input.state;
    this.host = input.host;
    this.options = input.options ?? {};
    this.mode = this.options.mode ?? "normal";
    this.targets = this.options.targets;
    this.replace = new Set(this.mode === "normal" ? (this.options.replace ?? []) : []);
    this.edges = configEdges(this.stack);
    this.graph = buildDependencyGraph(this.stack.resources.keys(), this.edges);
    this.configDependencies = dependencyMap(this.stack, this.edges);
  }
  /** How many provider calls a walk keeps going (dag.ts parallelismOf), found once per plan. */
  parallelism(): Promise<Parallelism> {
    return (this.#parallelism ??= parallelismOf(this.options.parallelism, this.provider));
  }

  /** A `--target` list was given. */
  get targeted(): boolean {
    return this.targets !== undefined && this.targets.length > 0;
  }

  /** The configuration addresses planned (null: all). */
  get planSet(): ReadonlySet<string> | null {
    return this.scope.planned;
  }

  /** The state addresses refreshed and considered (null: all). */
  get targetedState(): ReadonlySet<string> | null {
    return this.scope.state;
  }

  /** The root outputs planned (null: all); targets.ts says which --target keeps. */
  get targetedOutputs(): ReadonlySet<string> | null {
    return this.scope.outputs;
  }

  /** The attributes of an address as this plan sees them: planned, else refreshed or recorded. */
  valueOf(address: string): Attributes | undefined {
    const change = this.changes.get(address);
    if (change !== undefined && change.after !== null) return change.after;
    return this.priors.get(address)?.attributes;
  }
}
