// Building a plan: refresh (in memory), then plan every resource in dependency order against
// the planned values of its dependencies, then the deletes (orphans, deposed objects, or all of
// them for a destroy), the outputs, the plan-time safety checks and the step graph.
//
// A plan is side-effect free: it reads the host (refresh, imports, the provider's plan-time
// support checks) and never writes state or the host. Any error diagnostic means the plan must
// not be applied; every error found is reported, not only the first.

import type { Diagnostic } from "../../core/diagnostic.ts";
import { hasErrors } from "../../core/diagnostic.ts";
import type { Attributes, KnownValue } from "../../core/values.ts";
import type { Provider, ResourceState } from "../../provider/types.ts";
import { parseStateAddress } from "../../state/records.ts";
import { isSealedSensitive } from "../../state/sensitive.ts";
import type { HostBinding, ResourceRecord, StoredHostBinding, StoredOutput } from "../../state/types.ts";
import { configEdges } from "../config/edges.ts";
import type { StackConfig } from "../config/types.ts";
import type { ResolvedVariables } from "../config/variables/resolve.ts";
import { buildDependencyGraph } from "../graph/build.ts";
import { stronglyConnectedComponents } from "../graph/scc.ts";
import { engineCode } from "../codes.ts";
import { walkDag } from "../dag.ts";
import { evaluateResource } from "../evaluate.ts";
import { SensitiveFlow } from "../sensitivity.ts";
import { recordState, refreshRecords, sameAsRecorded } from "../refresh.ts";
import { placeholderCycles } from "../cycles/resolver.ts";
import type { CycleResolution, CycleResolver } from "./cycles.ts";
import { configuredDependencies, dependencyMap, relationDependencies, unionDependencies } from "./dependencies.ts";
import { bindingRefusal, compareBindings } from "../host-binding.ts";
import { alreadyManaged, duplicateObjects, objectHandoverEdges } from "./host-objects.ts";
import { checkRevisionHolders } from "./holders.ts";
import { createBeforeDestroySet, preventDestroyDiagnostic, replaceTrigger } from "./lifecycle.ts";
import { planOutputs } from "./outputs.ts";
import { located, planResource } from "./resource.ts";
import { buildStepGraph } from "./steps.ts";
import { appendUnique } from "./unique.ts";
import { deleteTargeted, targetScope } from "./targets.ts";
import { readImportBlocks } from "./imports.ts";
import { relevantAttributes } from "./relevance.ts";
import type { Plan, ResourceChange } from "./types.ts";
import { validateConfiguration } from "./validate.ts";

export type PlanMode = "normal" | "destroy" | "refresh-only";

export interface PlanOptions {
  mode?: PlanMode;
  /** Read every resource back first (default true; `--refresh=false` turns it off). */
  refresh?: boolean;
  /** `--target`: restrict the plan to these addresses and their dependencies (dependents for destroy). */
  targets?: readonly string[];
  /** `--replace`: replace these resources even where nothing changed (a normal plan only). */
  replace?: readonly string[];
  /** Provider calls in flight at once (default 10). */
  parallelism?: number;
  /** RFC 0011 cycle resolution; the default resolves cycles with placeholders (`placeholderCycles`). */
  cycles?: CycleResolver;
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

export interface PlanOutcome {
  plan: Plan;
  /** No error diagnostic: the plan may be applied. */
  ok: boolean;
}

export const DEFAULT_PARALLELISM = 10;

class Diagnostics {
  private readonly global: Diagnostic[] = [];
  private readonly byAddress = new Map<string, Diagnostic[]>();
  /** Per address, a finding already reported (same severity, code, summary, detail, pointer) is not added again. */
  add(list: readonly Diagnostic[], address?: string): void {
    if (address === undefined) appendUnique(this.global, list);
    else if (list.length > 0) this.byAddress.set(address, appendUnique([...(this.byAddress.get(address) ?? [])], list));
  }
  /** Swaps the diagnostics an earlier planning of `address` reported for a new planning's. */
  replace(address: string, old: readonly Diagnostic[], list: readonly Diagnostic[]): void {
    if (old.length === 0 && list.length === 0) return;
    const kept = (this.byAddress.get(address) ?? []).filter((d) => !old.includes(d));
    this.byAddress.set(address, appendUnique(kept, list));
  }
  /** Global ones first, then per address in address order: stable whatever the parallelism. */
  all(): Diagnostic[] {
    const keys = [...this.byAddress.keys()].sort();
    return [...this.global, ...keys.flatMap((k) => this.byAddress.get(k)!)];
  }
  failed(): boolean {
    return hasErrors(this.global) || [...this.byAddress.values()].some(hasErrors);
  }
}

function emptyPlan(state: StateSnapshot, mode: PlanMode, diagnostics: Diagnostic[], targets?: readonly string[], host?: HostBinding): Plan {
  return {
    formatVersion: 1,
    stateLineage: state.lineage,
    stateSerial: state.serial,
    ...(host !== undefined ? { host } : {}),
    resourceChanges: [],
    outputChanges: [],
    steps: [],
    diagnostics,
    destroy: mode === "destroy",
    refreshOnly: mode === "refresh-only",
    ...(targets !== undefined ? { targets: [...targets] } : {}),
  };
}

function invert(map: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [from, tos] of map) for (const to of tos) out.set(to, [...(out.get(to) ?? []), from]);
  return out;
}

export async function createPlan(input: PlanInput): Promise<PlanOutcome> {
  const { provider, stack, variables, state } = input;
  const mode = input.options?.mode ?? "normal";
  const parallelism = input.options?.parallelism ?? DEFAULT_PARALLELISM;
  const targets = input.options?.targets;
  const diagnostics = new Diagnostics();
  const finish = (plan: Plan): PlanOutcome => ({ plan, ok: !hasErrors(plan.diagnostics) });
  const host = input.host;

  // ---- the host: a state bound to another one is not read there at all ----
  if (host !== undefined && state.host != null && state.records.length > 0) {
    const { differences } = compareBindings(state.host, host);
    if (differences.length > 0) return finish(emptyPlan(state, mode, [bindingRefusal(state.host, host, differences, state.records, "This plan")], targets, host));
  }

  // ---- configuration: types, graph, cycles ----
  let problems: ReadonlyMap<string, Diagnostic> | undefined;
  for (const resource of stack.resources.values()) {
    if (provider.schema(resource.type) === undefined) {
      // A type the provider knows but cannot serve (its registry line is broken) is reported with
      // the provider's own reason, which says what is wrong with the line and how to repair it.
      problems ??= lineProblems(provider);
      const problem = problems.get(resource.type);
      if (problem !== undefined) {
        diagnostics.add([{ ...problem, address: resource.address, resourceType: resource.type }], resource.address);
        continue;
      }
      diagnostics.add(
        [{
          severity: "error",
          code: engineCode("unknown-resource-type"),
          summary: `The provider serves no resource type ${resource.type}`,
          detail: `${resource.address} uses it${resource.constructPath ? ` (construct ${resource.constructPath})` : ""}.`,
          address: resource.address,
          resourceType: resource.type,
          repair: "Check the type name, or generate the project's registry with `takoform get --forms DIR` for the Forms it belongs to.",
        }],
        resource.address,
      );
    }
  }
  const edges = configEdges(stack);
  const graph = buildDependencyGraph(stack.resources.keys(), edges);
  let resolution: CycleResolution = { diagnostics: [], deferredEdges: new Set(), placeholders: new Set() };
  if (mode !== "refresh-only") {
    const components = stronglyConnectedComponents(graph);
    const cyclic: number[] = [];
    for (let c = 0; c < components.count; c++) if (components.cyclic[c]) cyclic.push(c);
    const resolver = input.options?.cycles ?? placeholderCycles;
    // A resolver that handles loops left only in state is asked even when the configuration has none.
    if (cyclic.length > 0 || resolver.resolvesStateCycles === true) {
      resolution = resolver.resolve({ stack, graph, components, cyclic, mode, records: state.records, schema: (type) => provider.schema(type) });
      // A destroy is ordered from state; a loop the configuration cannot deploy does not stop it.
      if (mode === "normal") diagnostics.add(resolution.diagnostics);
      else resolution = { ...resolution, diagnostics: [] };
    }
  }
  const deferred = resolution.deferredEdges;
  const edgeFilter = deferred.size > 0 ? (e: number) => !deferred.has(e) : undefined;
  const configDependencies = dependencyMap(stack, edges, (_, i) => deferred.has(i));

  // ---- state ----
  const records = new Map<string, ResourceRecord>();
  for (const record of state.records) records.set(record.address, record);
  const recordedDependencies = new Map<string, readonly string[]>();
  for (const record of state.records) recordedDependencies.set(record.address, record.dependencies);
  // Deletes follow more than what was recorded: the relations the host holds (as last read), and
  // for a destroy what the configuration says, so a dependency the last write could not record is
  // still deleted after its dependent.
  let stateDependencies = unionDependencies(
    recordedDependencies,
    relationDependencies(provider, state.records.filter((r) => r.intent === null), state.records),
    ...(mode === "destroy" ? [configuredDependencies(state.records, configDependencies)] : []),
  );
  const inFlight = state.records.filter((r) => r.intent !== null);
  if (inFlight.length > 0) {
    diagnostics.add([{
      severity: "warning",
      code: engineCode("in-flight-pending"),
      summary: `${inFlight.length} resource${inFlight.length === 1 ? " has" : "s have"} a write an interrupted apply never finished`,
      detail: `${inFlight.map((r) => `${r.address} (${r.status})`).join(", ")}. This plan shows them as last recorded; the next apply resolves each write through the provider first (the host replays it by its Idempotency-Key), then plans again.`,
      repair: "Run `takoform apply`; it finishes these writes before anything else.",
    }]);
  }

  // ---- targets ----
  // A cycle member needs its peers whichever edge the placeholders defer, so targets use every edge.
  const scopeRecords = targets !== undefined && targets.length > 0 ? state.records.map((r) => ({ ...r, dependencies: [...(stateDependencies.get(r.address) ?? [])] })) : state.records;
  const scope = targetScope(targets, mode === "destroy", stack, graph, scopeRecords);
  diagnostics.add(scope.diagnostics);
  const planSet = scope.planned;
  const targetedState = scope.state;
  if (diagnostics.failed()) return finish(emptyPlan(state, mode, diagnostics.all(), targets, host));

  // ---- -replace: an address the configuration does not declare matches nothing ----
  const replace = new Set(mode === "normal" ? input.options?.replace ?? [] : []);
  for (const address of replace) {
    if (!stack.resources.has(address)) diagnostics.add([replaceUnmatched(address)]);
  }

  // ---- configuration pass: every resource on its own, before the host is asked anything ----
  if (mode === "normal") {
    for (const d of validateConfiguration(provider, stack, variables, planSet)) diagnostics.add([d], d.address);
    if (diagnostics.failed()) return finish(emptyPlan(state, mode, diagnostics.all(), targets));
  }

  // ---- refresh (in memory) ----
  const priors = new Map<string, ResourceState | null>();
  for (const record of state.records) {
    const recorded = record.intent === null || Object.keys(record.attributes).length > 0 ? recordState(record) : null;
    priors.set(record.address, recorded);
  }
  const refreshable = state.records.filter((r) => r.intent === null && (targetedState === null || targetedState.has(r.address)));
  const drift: ResourceChange[] = [];
  if (input.options?.refresh !== false && refreshable.length > 0) {
    const refreshed = await refreshRecords(provider, refreshable, parallelism);
    for (const d of refreshed.diagnostics) diagnostics.add([d], d.address);
    if (diagnostics.failed()) return finish(emptyPlan(state, mode, diagnostics.all(), targets, host));
    for (const record of refreshable) {
      const now = refreshed.states.get(record.address) ?? null;
      // What refresh found unchanged is planned from the record itself, so the refreshed copy
      // (and the response it was read from) is garbage at once instead of living through the
      // plan and the apply. A record with sealed values keeps the refreshed copy, which may hold
      // the value in the clear that the plan compares configuration against.
      const unchanged = now !== null && sameAsRecorded(record.attributes, now.attributes, state.lineage);
      priors.set(record.address, unchanged && !hasSealed(record.attributes) ? recordState(record) : now);
      if (unchanged) continue;
      // What state keeps sealed is a secret: the refreshed value there is hidden when drift is shown.
      const sensitivePaths = Object.keys(record.attributes).filter((k) => isSealedSensitive(record.attributes[k])).map((k) => [k]);
      const base = { address: record.address, type: record.type, name: parseStateAddress(record.address).address.split(".").slice(1).join("."), replacePaths: [], replaceReasons: [], sensitivePaths };
      if (now === null) drift.push({ ...base, actions: ["delete"], before: record.attributes, after: null });
      else drift.push({ ...base, actions: ["update"], before: record.attributes, after: now.attributes });
    }
    refreshed.states.clear(); // what is still needed is in `priors`
    // What the host reports now: relations that changed since they were recorded order deletes too.
    const moved = drift.filter((d) => d.after !== null).map((d) => ({ address: d.address, type: d.type, attributes: d.after! }));
    if (moved.length > 0) stateDependencies = unionDependencies(stateDependencies, relationDependencies(provider, moved, state.records));
  }
  const valueOf = (address: string, changes: Map<string, ResourceChange>): Attributes | undefined => {
    const change = changes.get(address);
    if (change !== undefined && change.after !== null) return change.after;
    return priors.get(address)?.attributes;
  };

  const changes = new Map<string, ResourceChange>();
  const failed = new Set<string>();

  if (mode === "destroy") {
    for (const record of state.records) {
      if (targetedState !== null && !targetedState.has(record.address)) continue;
      const prior = priors.get(record.address);
      if (prior === null || prior === undefined) continue;
      const { address: base, deposed } = parseStateAddress(record.address);
      const resource = deposed === null ? stack.resources.get(base) : undefined;
      if (resource?.lifecycle.preventDestroy) diagnostics.add([preventDestroyDiagnostic(resource, "destroy")], record.address);
      changes.set(record.address, deleteChange(record, prior, resource === undefined && deposed === null));
    }
  } else if (mode === "normal") {
    // Imports: read the existing object now, so the plan shows it and plans its config against it.
    const imported = await readImportBlocks(provider, stack, variables, (a) => records.has(a), (a) => planSet === null || planSet.has(a));
    for (const d of imported.diagnostics) diagnostics.add([d], d.address);
    for (const [address, importedState] of imported.states) {
      // An object another record already manages is not imported a second time.
      const managed = alreadyManaged(provider, address, importedState, state.records);
      if (managed !== null) diagnostics.add([managed], address);
      priors.set(address, importedState);
    }
    const importing = imported.ids;
    if (diagnostics.failed()) return finish(emptyPlan(state, mode, diagnostics.all(), targets, host));

    const cbd = createBeforeDestroySet(stack, graph, edgeFilter);
    const planned = [...stack.resources.keys()].filter((a) => planSet === null || planSet.has(a));
    const inPlan = new Set(planned);
    const tasks = planned.map((address) => ({ id: address, dependsOn: configDependencies.get(address)!.filter((d) => inPlan.has(d)) }));
    const reported = new Map<string, Diagnostic[]>();
    const flow = SensitiveFlow.of(stack, variables);
    const planOne = async (address: string): Promise<ResourceChange | null> => {
      const resource = stack.resources.get(address)!;
      const schema = provider.schema(resource.type)!;
      const prior = priors.get(address) ?? null;
      const evaluated = evaluateResource(resource, variables, (a) => valueOf(a, changes), flow, (name) => {
        const kind = schema.attributes[name]?.type.kind;
        return kind === "list" || kind === "set";
      });
      // A placeholder (RFC 0011) is shown with its full configuration, its peers' values unknown
      // until they exist; the apply creates it from its own configuration, checked here too.
      const placeholder = prior === null && resolution.placeholders.has(address);
      const result = await planResource({
        provider,
        resource,
        schema,
        prior,
        ...(importing.has(address) ? { importingId: importing.get(address)! } : {}),
        evaluated,
        createBeforeDestroy: cbd.has(address),
        trigger: prior === null ? null : replaceTrigger(resource, (a) => changes.get(a)),
        requested: replace.has(address),
        lineage: state.lineage,
      });
      if (placeholder && result.change !== null) {
        result.change.placeholder = true;
        result.change.actionReason = "cycle_placeholder";
        result.diagnostics.push(...located(provider.validate(resource.type, evaluated.placeholder), address, resource.type));
      }
      if (result.change !== null && result.change.actions.length === 2 && resource.lifecycle.preventDestroy) result.diagnostics.push(preventDestroyDiagnostic(resource, "replace"));
      diagnostics.replace(address, reported.get(address) ?? [], result.diagnostics);
      reported.set(address, result.diagnostics);
      if (result.change === null) {
        failed.add(address);
        changes.delete(address);
        return null;
      }
      failed.delete(address);
      changes.set(address, result.change);
      return result.change;
    };
    await walkDag(tasks, {
      parallelism,
      run: async (task) => (await planOne(task.id)) !== null,
      crashed: (task, error) => {
        failed.add(task.id);
        diagnostics.add([{ severity: "error", code: engineCode("internal"), summary: `Planning ${task.id} failed unexpectedly`, cause: error instanceof Error ? error.message : String(error), address: task.id }], task.id);
      },
    });
    // Cycle members planned before a peer that changes saw its prior values: plan them again.
    if (resolution.replan !== undefined && !diagnostics.failed()) await resolution.replan(changes, planOne);

    // Orphans (no longer configured) and deposed objects (left by an interrupted replacement).
    for (const record of state.records) {
      const { address: base, deposed } = parseStateAddress(record.address);
      if (deposed === null && stack.resources.has(base)) continue;
      if (!deleteTargeted(scope, targets, record.address)) continue;
      const prior = priors.get(record.address);
      if (prior === null || prior === undefined) continue;
      changes.set(record.address, deleteChange(record, prior, deposed === null));
    }
  }

  // ---- outputs ----
  const values = (address: string) => valueOf(address, changes);
  const outputs = planOutputs(stack, variables, values, state.outputs, state.lineage, mode === "destroy");
  // With --target the outputs may refer to resources outside the plan; they are then left alone.
  if (targets === undefined || targets.length === 0) diagnostics.add(outputs.diagnostics);

  // ---- safety checks and the step graph ----
  const configDependents = invert(configDependencies);
  if (mode === "normal") {
    const existing = new Set([...priors].filter(([, s]) => s !== null).map(([a]) => a));
    const blocked = checkRevisionHolders({ provider, changes, configDependents, stateDependencies, existing, failed });
    for (const d of blocked) diagnostics.add([d], d.address);
  }

  // ---- one host object, one resource ----
  if (mode === "normal") {
    for (const d of duplicateObjects(provider, changes.values())) diagnostics.add([d], d.address);
  }

  const resourceChanges = [...changes.values()].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  let steps: Plan["steps"] = [];
  if (!diagnostics.failed()) {
    const stepGraph = (dependencies: ReadonlyMap<string, readonly string[]>) => {
      let out = buildStepGraph({ changes: resourceChanges, configDependencies, stateDependencies: dependencies });
      const handover = objectHandoverEdges(provider, resourceChanges, records, out.steps);
      if (resolution.extraSteps !== undefined || handover.length > 0) {
        const extra = resolution.extraSteps?.(resourceChanges, out.steps) ?? { steps: [] };
        diagnostics.add(extra.diagnostics ?? []);
        out = buildStepGraph({
          changes: resourceChanges,
          configDependencies: withoutPairs(configDependencies, extra.dropConfigDependencies),
          stateDependencies: withoutPairs(dependencies, extra.dropStateDependencies),
          extraSteps: extra.steps,
          extraEdges: [...(extra.edges ?? []), ...handover],
        });
      }
      return out;
    };
    let graphOut = stepGraph(stateDependencies);
    // What only the host's relations or the configuration add must never make the order
    // impossible: should it close a loop, the order falls back to what state recorded.
    if (graphOut.cyclic.length > 0 && stateDependencies !== recordedDependencies) graphOut = stepGraph(recordedDependencies);
    if (graphOut.cyclic.length > 0) {
      diagnostics.add([{
        severity: "error",
        code: engineCode("cycle"),
        summary: "The apply steps of this plan wait on each other",
        detail: `These steps form a loop: ${graphOut.cyclic.join(", ")}. The dependencies recorded in state and those of the configuration order them in opposite directions.`,
        repair: "Apply the change in two steps (first remove the reference that was reversed, then add the new one), or use --target.",
      }]);
    }
    steps = graphOut.steps;
  }

  const plan: Plan = {
    ...emptyPlan(state, mode, diagnostics.all(), targets, host),
    resourceChanges: mode === "refresh-only" ? [] : resourceChanges,
    outputChanges: outputs.changes,
    steps: diagnostics.failed() ? [] : steps,
    resourceDrift: drift,
    // What of the drift this plan reports; a refresh-only plan reports all of it.
    ...(mode === "refresh-only" ? {} : { relevantAttributes: relevantAttributes(stack, resourceChanges, outputs.changes, drift) }),
  };
  return finish(plan);
}

/** A `-replace` address that names no configured resource: warned about, the plan goes on (as Terraform). */
function replaceUnmatched(address: string): Diagnostic {
  return {
    severity: "warning",
    code: engineCode("replace-unmatched"),
    summary: "Incompletely-matched force-replace resource instance",
    detail: `Your force-replace request for ${address} doesn't match any resource instances because the configuration does not declare it.`,
    repair: "Check the address against `takoform state list`; nothing is replaced for it.",
  };
}

/** The provider's diagnostics for resource types whose registry line it cannot serve, by type. */
function lineProblems(provider: Provider): Map<string, Diagnostic> {
  const out = new Map<string, Diagnostic>();
  for (const problem of provider.problems()) {
    if (problem.resourceType !== undefined && !out.has(problem.resourceType)) out.set(problem.resourceType, problem);
  }
  return out;
}

function hasSealed(attributes: Record<string, KnownValue>): boolean {
  for (const key in attributes) if (isSealedSensitive(attributes[key])) return true;
  return false;
}

/** A dependency map without the given `from → to` pairs (the map itself is left alone). */
function withoutPairs(map: ReadonlyMap<string, readonly string[]>, pairs: readonly { from: string; to: string }[] | undefined): ReadonlyMap<string, readonly string[]> {
  if (pairs === undefined || pairs.length === 0) return map;
  const drop = new Map<string, Set<string>>();
  for (const { from, to } of pairs) drop.set(from, (drop.get(from) ?? new Set()).add(to));
  const out = new Map(map);
  for (const [from, tos] of drop) {
    const list = map.get(from);
    if (list !== undefined) out.set(from, list.filter((to) => !tos.has(to)));
  }
  return out;
}

function deleteChange(record: ResourceRecord, prior: ResourceState, orphan: boolean): ResourceChange {
  const base = parseStateAddress(record.address).address;
  return {
    address: record.address,
    type: record.type,
    name: base.slice(base.indexOf(".") + 1),
    actions: ["delete"],
    ...(orphan ? { actionReason: "delete_because_no_resource_config" as const } : {}),
    before: prior.attributes as Record<string, KnownValue>,
    after: null,
    replacePaths: [],
    replaceReasons: [],
    // The refreshed `before` holds the host's plain values; what state keeps sealed stays hidden.
    sensitivePaths: Object.keys(record.attributes).filter((k) => isSealedSensitive(record.attributes[k])).map((k) => [k]),
  };
}
