// The engine's commands as functions, for the CLI and for embedding: plan (locks nothing,
// writes nothing), apply / destroy / refresh (lock, finish interrupted writes, plan or load the
// saved plan, apply), import, and state removal.

import { type Diagnostic, hasErrors } from "../core/index.ts";
import type { Provider } from "../provider/index.ts";
import { type HostBinding, StateConflictError, type StateReader, type StateStore, StateUnavailableError } from "../state/index.ts";
import type { StackConfig } from "./config/types.ts";
import type { ResolvedVariables } from "./config/variables/resolve.ts";
import { configEdges } from "./config/edges.ts";
import { engineCode } from "./codes.ts";
import { sensitiveAttributes } from "./evaluate.ts";
import { SensitiveFlow } from "./sensitivity.ts";
import { applyPlan } from "./apply/execute.ts";
import type { ApplyResult } from "./apply/types.ts";
import type { EngineEventSink } from "./events.ts";
import { stateInput } from "./apply/records.ts";
import { dropDuplicateDeposed, resolveInFlight } from "./apply/recover.ts";
import { withLock, type LockOptions, type LockSession } from "./apply/session.ts";
import { isStateUnavailable, stateUnavailable } from "./apply/unavailable.ts";
import type { ApplyHooks } from "./apply/types.ts";
import { importObject } from "./imports.ts";
import { alreadyManaged, conflictDiagnostic } from "./host-objects.ts";
import { createPlan, type PlanOptions, type PlanOutcome, type StateSnapshot } from "./plan/build.ts";
import { appliedChangesIncomplete } from "./plan/targets.ts";
import { runCounts, type RunCounts } from "./summary.ts";
import { contributionEdgesOf, dependencyMap } from "./dependencies.ts";
import type { SavedPlan } from "./plan/file.ts";
import { planHasChanges, type Plan } from "./plan-data.ts";
import { bindOrRefuse, compareBindings, hostMismatch } from "./host-binding.ts";

export interface EngineSetup {
  provider: Provider;
  stack: StackConfig;
  variables: ResolvedVariables;
  /**
   * The host the provider talks to (`hostBindingOf`, from discovery). With it, every command
   * refuses a state bound to another host before it reads or writes anything, and binds a state
   * that is not bound yet (docs/state.md §4). Without it, no host check is made.
   */
  host?: HostBinding;
}

export async function readSnapshot(reader: StateReader): Promise<StateSnapshot> {
  const document = await reader.pull();
  return { lineage: document.lineage, serial: document.serial, host: document.host, records: document.resources, outputs: document.outputs };
}

/** True when applying the plan changes anything: resources, outputs, or (refresh-only) recorded state. */
export function planChangesSomething(plan: Plan): boolean {
  return planHasChanges(plan) || (plan.refreshOnly && (plan.resourceDrift?.length ?? 0) > 0);
}

/** A plan: reads state and the host, writes nothing. */
export async function runPlan(setup: EngineSetup, reader: StateReader, options: PlanOptions = {}): Promise<PlanOutcome> {
  return createPlan({ ...setup, state: await readSnapshot(reader), options });
}

export type ApplyStatus =
  | "applied"
  | "no-changes"
  | "cancelled"
  | "plan-failed"
  | "locked"
  | "wrong-host"
  | "recovery-failed"
  | "stale-plan"
  /** The state store failed before the apply began (its server gone, its disk full): the diagnostic says what is recorded. */
  | "state-unavailable";

export interface ApplyRun {
  status: ApplyStatus;
  /** Applied (or nothing to change) and every step succeeded. */
  ok: boolean;
  plan?: Plan;
  result?: ApplyResult;
  /** Everything worth showing: interrupted-write resolution, plan and apply diagnostics. */
  diagnostics: Diagnostic[];
  /** How many interrupted writes were resolved first. */
  recovered: number;
  /** What the apply wrote: resources added, changed, destroyed, imported (steps that wrote only). */
  counts: RunCounts;
  /**
   * How long each phase took, in milliseconds: reading the host (refresh), the rest of the plan,
   * and the apply. A phase that did not run is absent (a saved plan is not refreshed or planned).
   */
  timings: RunTimings;
}

export interface RunTimings {
  /** Before the run, the command's own (a run the CLI started from the app): the project's typecheck and the app's synth. */
  typecheckMs?: number;
  synthMs?: number;
  refreshMs?: number;
  planMs?: number;
  applyMs?: number;
}

export interface ApplyRunOptions {
  /** How to plan (ignored with a saved plan). */
  plan?: PlanOptions;
  /** Apply exactly this saved plan (refused when state moved since). */
  saved?: SavedPlan;
  /**
   * Apply exactly this plan, as a saved one (refused when state moved since it was made): the plan
   * a run of several stacks showed before asking (engine/stacks/run.ts).
   */
  exact?: Plan;
  lock: LockOptions;
  parallelism?: number;
  /**
   * What happens as it happens: each note found before the plan (a lock taken over, a state bound
   * to this host), the plan before anything is applied, and each step of the apply. The notes are
   * in the run's diagnostics too.
   */
  events?: EngineEventSink;
  hooks?: ApplyHooks;
  /** Asked when the plan changes something (not for a saved plan); false cancels. */
  confirm?: (plan: Plan) => Promise<boolean>;
  stopped?: () => boolean;
}

type Unfinished = Omit<ApplyRun, "ok" | "counts" | "timings"> & { timings?: RunTimings };

/**
 * Lock → check the saved plan → check the host → finish interrupted writes and plan (or take the
 * saved plan) → confirm → apply → unlock. The run comes back with its outcome, counts and every
 * diagnostic; what happened along the way went to `events`.
 */
export async function runApply(setup: EngineSetup, store: StateStore, options: ApplyRunOptions): Promise<ApplyRun> {
  const run = await withLock(
    store,
    options.lock,
    (locked): Unfinished => ({ status: "locked", diagnostics: [locked], recovered: 0 }),
    (session) => applyUnlessUnavailable(setup, store, options, session),
    (unavailable): Unfinished => ({ status: "state-unavailable", diagnostics: [unavailable], recovered: 0 }),
  );
  // A lock that could not be released after the apply leaves the run's outcome as it was, but not ok.
  const ok = (run.status === "applied" || run.status === "no-changes") && (run.result?.ok ?? true) && !run.diagnostics.some(isStateUnavailable);
  return { ...run, ok, counts: runCounts(run.result), timings: run.timings ?? {} };
}

/**
 * The locked run, whose store may fail under it before the apply (its steps report their own
 * failures): the run then ends with what it found so far and the `state-unavailable` diagnostic.
 */
async function applyUnlessUnavailable(setup: EngineSetup, store: StateStore, options: ApplyRunOptions, session: LockSession): Promise<Unfinished> {
  const diagnostics: Diagnostic[] = [];
  try {
    return await applyLocked(setup, store, options, session, diagnostics);
  } catch (error) {
    if (!(error instanceof StateUnavailableError)) throw error;
    return { status: "state-unavailable", diagnostics: [...diagnostics, stateUnavailable(error)], recovered: 0 };
  }
}

async function applyLocked(
  setup: EngineSetup,
  store: StateStore,
  options: ApplyRunOptions,
  session: LockSession,
  diagnostics: Diagnostic[],
): Promise<Unfinished> {
  const events = options.events;
  const note = (found: readonly Diagnostic[]): void => {
    for (const d of found) {
      diagnostics.push(d);
      events?.({ kind: "note", diagnostic: d });
    }
  };
  note(session.notes);
  const fixed = options.saved?.plan ?? options.exact;
  // A saved plan is checked against state before anything is written, the host binding included
  // (a first binding bumps the serial the plan was made at).
  if (fixed !== undefined) {
    const refused = await checkSavedPlan(setup, store, fixed, options.exact !== undefined);
    if (refused !== null) return { ...refused, plan: fixed, diagnostics: [...diagnostics, ...refused.diagnostics], recovered: 0 };
  }
  // The host check comes before the first host call, the resumption of interrupted writes included.
  if (setup.host !== undefined) {
    const bound = await bindOrRefuse(store, setup.host);
    if (!bound.ok) return { status: "wrong-host", diagnostics: [...diagnostics, ...bound.diagnostics], recovered: 0 };
    note(bound.notes);
  }
  let plan: Plan;
  let recovered = 0;
  const timings: RunTimings = {};
  let snapshot: StateSnapshot | undefined;
  if (fixed !== undefined) {
    plan = fixed;
    events?.({ kind: "plan", plan });
  } else {
    const recovery = await resumeInterrupted(setup, store, options);
    recovered = recovery.resolved;
    diagnostics.push(...recovery.diagnostics);
    if (!recovery.ok) return { status: "recovery-failed", diagnostics, recovered };
    // One listing of state serves the duplicate check, the plan and the apply.
    snapshot = await readSnapshot(store);
    const dropped = await dropDuplicateDeposed(store, snapshot.records);
    if (dropped.length > 0) snapshot = await readSnapshot(store);
    const outcome = await createPlan({
      ...setup,
      state: snapshot,
      options: { ...(options.parallelism !== undefined ? { parallelism: options.parallelism } : {}), ...options.plan },
    });
    plan = outcome.plan;
    timings.refreshMs = outcome.timings.refreshMs;
    timings.planMs = outcome.timings.planMs;
    diagnostics.push(...plan.diagnostics);
    events?.({ kind: "plan", plan });
    if (!outcome.ok) return { status: "plan-failed", plan, diagnostics, recovered, timings };
    const changes = planChangesSomething(plan);
    if (changes && options.confirm !== undefined && !(await options.confirm(plan))) return { status: "cancelled", plan, diagnostics, recovered };
    if (!changes && (plan.resourceDrift?.length ?? 0) === 0) return { status: "no-changes", plan, diagnostics, recovered, timings };
  }
  const applyStarted = performance.now();
  const result = await applyPlan({
    ...setup,
    store,
    plan,
    ...(options.parallelism !== undefined ? { parallelism: options.parallelism } : {}),
    stopped: () => session.lost !== null || (options.stopped?.() ?? false),
    ...(snapshot !== undefined ? { records: snapshot.records } : {}),
    ...(events !== undefined ? { progress: events } : {}),
    ...(options.hooks ? { hooks: options.hooks } : {}),
  });
  timings.applyMs = performance.now() - applyStarted;
  diagnostics.push(...result.diagnostics.filter((d) => !plan.diagnostics.includes(d)));
  // The lease's renewal found the store unavailable: that is why the apply stopped.
  if (session.lost instanceof StateUnavailableError && !diagnostics.some(isStateUnavailable)) diagnostics.push(stateUnavailable(session.lost));
  // As Terraform: what a targeted plan applied may not be everything the configuration asks for.
  if ((plan.targets?.length ?? 0) > 0) diagnostics.push(appliedChangesIncomplete());
  const status: ApplyStatus = planChangesSomething(plan) ? "applied" : "no-changes";
  return { status, plan, result, diagnostics, recovered, timings };
}

/** A saved plan applies only to the state and host it was made against. */
async function checkSavedPlan(
  setup: EngineSetup,
  store: StateStore,
  plan: Plan,
  exact = false,
): Promise<{ status: ApplyStatus; diagnostics: Diagnostic[] } | null> {
  const serial = await store.serial();
  const inFlight = await store.inFlight();
  // An exact plan (a run of several stacks) made where no state existed yet applies to the state
  // created for it since, as long as nothing was written to it.
  const fresh = exact && plan.stateLineage === "" && plan.stateSerial === 0 && serial === 0;
  if ((store.lineage !== plan.stateLineage && !fresh) || serial !== plan.stateSerial || inFlight.length > 0) {
    return {
      status: "stale-plan",
      diagnostics: [
        {
          severity: "error",
          code: engineCode("plan-file-stale"),
          summary: "The saved plan is stale: state changed since it was made",
          detail:
            store.lineage !== plan.stateLineage
              ? `The plan was made against state lineage ${plan.stateLineage}; this state's lineage is ${store.lineage}.`
              : inFlight.length > 0
                ? `State holds ${inFlight.length} interrupted write(s) that must be resolved by a plain apply first.`
                : `The plan was made at state serial ${plan.stateSerial}; state is now at serial ${serial}.`,
          repair: "Run `takoform plan --out FILE` again and apply the new file.",
        },
      ],
    };
  }
  const made = plan.host;
  const differences = made !== undefined && setup.host !== undefined ? compareBindings(made, setup.host).differences : [];
  if (made === undefined || differences.length === 0) return null;
  return {
    status: "wrong-host",
    diagnostics: [
      {
        ...hostMismatch({ ...made, boundAt: "when the plan was made" }, setup.host!, differences, "This apply"),
        summary: "The saved plan was made against another host",
        repair: "Apply the file against the host it was planned against, or run `takoform plan --out FILE` against this host and apply that file.",
      },
    ],
  };
}

/** Finishes the writes an interrupted apply left in flight, recording each with what the configuration says now. */
function resumeInterrupted(setup: EngineSetup, store: StateStore, options: ApplyRunOptions) {
  const dependencies = dependencyMap(setup.stack, configEdges(setup.stack));
  return resolveInFlight({
    provider: setup.provider,
    store,
    ...(options.parallelism !== undefined ? { parallelism: options.parallelism } : {}),
    dependenciesOf: (address) => {
      const resource = setup.stack.resources.get(address);
      return {
        dependencies: dependencies.get(address) ?? [],
        contributions: contributionEdgesOf(setup.stack, address),
        sensitivePaths: resource === undefined ? [] : sensitiveAttributes(resource, setup.variables, SensitiveFlow.of(setup.stack, setup.variables)),
      };
    },
    ...(options.events ? { progress: options.events } : {}),
    variables: setup.variables,
  });
}

/** `takoform import ADDRESS ID`: bind state to an existing host object (config must declare it). */
export async function runImport(
  setup: EngineSetup,
  store: StateStore,
  address: string,
  id: string,
  lock: LockOptions,
): Promise<{ ok: boolean; diagnostics: Diagnostic[]; uid?: string }> {
  const resource = setup.stack.resources.get(address);
  if (resource === undefined) {
    return {
      ok: false,
      diagnostics: [
        {
          severity: "error",
          code: engineCode("import-target-undeclared"),
          summary: `${address} is not declared in the configuration`,
          detail: "An import binds state to a resource the configuration declares, so the next plan can compare the two.",
          repair: "Add the resource to the app first (its type and construct id give the address), then import.",
        },
      ],
    };
  }
  return withLock(
    store,
    lock,
    (locked) => ({ ok: false, diagnostics: [locked] }),
    async (session) => {
      const notes: Diagnostic[] = [...session.notes];
      if (setup.host !== undefined) {
        const bound = await bindOrRefuse(store, setup.host, "This import");
        if (!bound.ok) return { ok: false, diagnostics: [...notes, ...bound.diagnostics] };
        notes.push(...bound.notes);
      }
      if ((await store.get(address)) !== undefined) {
        return {
          ok: false,
          diagnostics: [
            ...notes,
            {
              severity: "error",
              code: engineCode("import-already-managed"),
              summary: `${address} is already managed`,
              detail: "State already binds this address to a host object.",
              repair: `To bind it to another object, first forget the current one with \`takoform state rm ${address}\` (the host object is untouched).`,
            },
          ],
        };
      }
      const imported = await importObject(setup.provider, resource.type, address, id);
      if (imported.state === null || hasErrors(imported.diagnostics)) return { ok: false, diagnostics: [...notes, ...imported.diagnostics] };
      // One host object, one record: an object another address manages is refused, by uid or name.
      const managed = alreadyManaged(setup.provider, address, imported.state, await store.list());
      if (managed !== null) return { ok: false, diagnostics: [...notes, managed] };
      const dependencies = dependencyMap(setup.stack, configEdges(setup.stack)).get(address) ?? [];
      try {
        await store.putResource(
          address,
          stateInput(imported.state, "ready", {
            dependencies,
            contributions: contributionEdgesOf(setup.stack, address),
            sensitivePaths: sensitiveAttributes(resource, setup.variables, SensitiveFlow.of(setup.stack, setup.variables)),
            lineage: store.lineage,
          }),
        );
      } catch (error) {
        // The store's own guard, should another run have recorded the object meanwhile.
        if (error instanceof StateConflictError) return { ok: false, diagnostics: [...notes, conflictDiagnostic(error)] };
        throw error;
      }
      const uid = imported.state.attributes["uid"];
      return { ok: true, diagnostics: [...notes, ...imported.diagnostics], ...(typeof uid === "string" ? { uid } : {}) };
    },
  );
}

/** `takoform state rm ADDRESS`: forget a record; the host object is untouched. */
export async function runStateRemove(
  store: StateStore,
  addresses: readonly string[],
  lock: LockOptions,
): Promise<{ removed: string[]; missing: string[]; diagnostics: Diagnostic[] }> {
  return withLock(
    store,
    lock,
    (locked) => ({ removed: [], missing: [], diagnostics: [locked] }),
    async (session) => {
      const removed: string[] = [];
      const missing: string[] = [];
      for (const address of addresses) ((await store.removeResource(address)) ? removed : missing).push(address);
      return { removed, missing, diagnostics: session.notes };
    },
  );
}
