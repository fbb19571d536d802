// Applying a plan: record what refresh found (drift) in state, walk the step graph with bounded
// parallelism, then store the outputs. A failed step stops its dependents (reported as skipped)
// while independent branches finish; a lost lease stops everything at once.

import { randomBytes } from "node:crypto";
import type { Diagnostic } from "../../core/diagnostic.ts";
import { hasErrors } from "../../core/diagnostic.ts";
import type { Attributes, KnownValue } from "../../core/values.ts";
import type { Provider } from "../../provider/types.ts";
import { LeaseLostError, StateConflictError } from "../../state/errors.ts";
import { parseStateAddress } from "../../state/records.ts";
import { isSealedSensitive, sealSensitive } from "../../state/sensitive.ts";
import type { ResourceRecord, StateStore } from "../../state/types.ts";
import { configEdges } from "../config/edges.ts";
import { SettleTracker } from "../cycles/settle.ts";
import type { StackConfig } from "../config/types.ts";
import type { ResolvedVariables } from "../config/variables/resolve.ts";
import { engineCode } from "../codes.ts";
import { walkDag } from "../dag.ts";
import { evaluateOutputs } from "../evaluate.ts";
import { dependencyMap } from "../plan/dependencies.ts";
import { conflictDiagnostic } from "../plan/host-objects.ts";
import type { Plan, PlanStep, ResourceChange, StepAction } from "../plan/types.ts";
import { containsUnknown } from "../values.ts";
import type { ProgressSink } from "./progress.ts";
import { ObjectClaims } from "./claims.ts";
import { knownValues } from "./known-values.ts";
import { stateInput } from "./records.ts";
import { runStep, stateAddressOf, type ApplyHooks, type StepContext } from "./step.ts";

export interface ApplyInput {
  provider: Provider;
  store: StateStore;
  stack: StackConfig;
  variables: ResolvedVariables;
  plan: Plan;
  parallelism?: number;
  progress?: ProgressSink;
  hooks?: ApplyHooks;
  /** Polled before each step starts; once true no further step starts (a lost lease, Ctrl-C). */
  stopped?: () => boolean;
  /** State as the plan read it (saves reading it again); read from the store when absent. */
  records?: readonly ResourceRecord[];
}

export interface StepOutcome {
  id: string;
  address: string;
  action: StepAction;
  status: "ok" | "failed" | "skipped";
  elapsedMs?: number;
  uid?: string;
  /** For a skipped step: the step that did not complete. */
  blockedBy?: string;
  /** The step found nothing to write (a settle pass with no change). */
  noop?: boolean;
  diagnostics: Diagnostic[];
}

export interface ApplyResult {
  ok: boolean;
  outcomes: StepOutcome[];
  diagnostics: Diagnostic[];
  /** The outputs stored at the end (sensitive ones flagged; their values never printed). */
  outputs: Record<string, { value: KnownValue; sensitive: boolean }>;
}

function sealedPaths(record: ResourceRecord): string[][] {
  return Object.keys(record.attributes)
    .filter((k) => isSealedSensitive(record.attributes[k]))
    .map((k) => [k]);
}

/**
 * Writes what refresh found into state: one write per record that changed on the host (the whole
 * state is never rewritten). Returns the records as they now are.
 *
 * Recorded dependencies are not touched here: they change only when the resource they belong to
 * is written by its own step. Rewriting those of records this apply does not write would let a
 * failed apply forget a dependency the host still enforces (a version's binding to a namespace),
 * and a later destroy would delete both at once.
 */
async function persistRefresh(input: ApplyInput): Promise<Map<string, ResourceRecord>> {
  const { store, plan } = input;
  const records = new Map((input.records ?? (await store.list())).map((r) => [r.address, r]));
  for (const drift of plan.resourceDrift ?? []) {
    const record = records.get(drift.address);
    if (record === undefined || record.intent !== null) continue;
    if (drift.after === null) {
      await store.removeResource(drift.address);
      records.delete(drift.address);
    } else {
      const input2 = stateInput({ type: record.type, attributes: drift.after }, record.status === "placeholder" ? "placeholder" : "ready", {
        dependencies: record.dependencies,
        contributions: record.contributions,
        sensitivePaths: sealedPaths(record),
        lineage: store.lineage,
      });
      await store.putResource(drift.address, input2);
      records.set(drift.address, { ...record, attributes: input2.attributes });
    }
  }
  return records;
}

function stepAddress(step: PlanStep): string {
  return parseStateAddress(step.address).address;
}

export async function applyPlan(input: ApplyInput): Promise<ApplyResult> {
  const { store, plan, stack } = input;
  const diagnostics: Diagnostic[] = [];
  if (hasErrors(plan.diagnostics)) {
    return { ok: false, outcomes: [], diagnostics: [...plan.diagnostics], outputs: {} };
  }
  const configDependencies = dependencyMap(stack, configEdges(stack));
  let leaseLost: Error | null = null;
  const guard = async <T>(body: () => Promise<T>): Promise<T> => {
    try {
      return await body();
    } catch (error) {
      if (error instanceof LeaseLostError) leaseLost = error;
      throw error;
    }
  };

  let records: Map<string, ResourceRecord>;
  try {
    records = await guard(() => persistRefresh(input));
  } catch (error) {
    diagnostics.push(internalError("Recording the refreshed state failed", error));
    return { ok: false, outcomes: [], diagnostics, outputs: {} };
  }

  const snapshot = [...records.values()];
  const current = new Map(snapshot.map((r) => [r.address, r.attributes as Attributes]));
  const claims = new ObjectClaims(input.provider, snapshot);
  const ctx: StepContext = {
    provider: input.provider,
    store,
    stack,
    variables: input.variables,
    lineage: store.lineage,
    changes: new Map(plan.resourceChanges.map((c) => [c.address, c] as [string, ResourceChange])),
    current,
    values: knownValues({ current, stack, variables: input.variables, lineage: store.lineage }),
    records: new Map(snapshot.map((r) => [r.address, r])),
    deposedOf: new Map(),
    configDependencies,
    hooks: input.hooks ?? {},
    counters: { intents: 0, writes: 0 },
    run: randomBytes(6).toString("hex"),
    cycles: new SettleTracker(plan.steps),
  };

  const outcomes = new Map<string, StepOutcome>();
  const started = new Map<string, number>();
  await walkDag(plan.steps, {
    parallelism: input.parallelism ?? 10,
    stopped: () => leaseLost !== null || (input.stopped?.() ?? false),
    run: async (step) => {
      started.set(step.id, Date.now());
      const change = ctx.changes.get(step.address);
      // Progress names the object the step writes (a deposed old object says so).
      const where = stateAddressOf(ctx, step) ?? step.address;
      const uid =
        step.action === "create" || step.action === "create-placeholder" || step.action === "import"
          ? undefined
          : (ctx.current.get(where)?.["uid"] as string | undefined);
      input.progress?.({
        kind: "start",
        stepId: step.id,
        address: where,
        action: step.action,
        ...(typeof uid === "string" && uid !== "" ? { uid } : {}),
        ...(step.action === "import" && change?.importingId !== undefined ? { importId: change.importingId } : {}),
      });
      // Each step gets a provider that knows its address (one create per host object, claims.ts).
      const result = await guard(() => runStep({ ...ctx, provider: claims.providerFor(where, ctx.provider) }, step));
      const elapsedMs = Date.now() - started.get(step.id)!;
      outcomes.set(step.id, {
        id: step.id,
        address: step.address,
        action: step.action,
        status: result.ok ? "ok" : "failed",
        elapsedMs,
        ...(result.uid ? { uid: result.uid } : {}),
        ...(result.noop ? { noop: true } : {}),
        diagnostics: result.diagnostics,
      });
      input.progress?.(
        result.ok
          ? {
              kind: "done",
              stepId: step.id,
              address: where,
              action: step.action,
              elapsedMs,
              ...(result.uid ? { uid: result.uid } : {}),
              ...(result.noop ? { noop: true } : {}),
            }
          : { kind: "failed", stepId: step.id, address: where, action: step.action, elapsedMs },
      );
      return result.ok;
    },
    crashed: (step, error) => {
      const elapsedMs = Date.now() - (started.get(step.id) ?? Date.now());
      const diagnostic =
        error instanceof StateConflictError
          ? conflictDiagnostic(error)
          : error instanceof LeaseLostError
            ? {
                severity: "error" as const,
                code: engineCode("lease-lost"),
                summary: "The state lock was taken over during the apply",
                detail: `${error.message}. No further step was started; the step that was running when it happened may have reached the host, and its intent stays in state for the next run to resolve.`,
                address: stepAddress(step),
                repair: "Find out who took the lock over; when no other run is active, run `takoform apply` again.",
              }
            : internalError(`Step ${step.id} failed unexpectedly`, error, stepAddress(step));
      outcomes.set(step.id, { id: step.id, address: step.address, action: step.action, status: "failed", elapsedMs, diagnostics: [diagnostic] });
      input.progress?.({ kind: "failed", stepId: step.id, address: stateAddressOf(ctx, step) ?? step.address, action: step.action, elapsedMs });
    },
    skipped: (step, blockedBy) => {
      outcomes.set(step.id, { id: step.id, address: step.address, action: step.action, status: "skipped", blockedBy: blockedBy.id, diagnostics: [] });
      input.progress?.({ kind: "skipped", stepId: step.id, address: step.address, action: step.action, blockedBy: blockedBy.address });
    },
  });

  const ordered: StepOutcome[] = plan.steps.map(
    (step) => outcomes.get(step.id) ?? { id: step.id, address: step.address, action: step.action, status: "skipped", diagnostics: [] },
  );
  for (const outcome of ordered) diagnostics.push(...outcome.diagnostics);
  const lost = leaseLost as Error | null;
  if (lost !== null && !diagnostics.some((d) => d.code === engineCode("lease-lost"))) {
    diagnostics.push({
      severity: "error",
      code: engineCode("lease-lost"),
      summary: "The state lock was taken over during the apply",
      detail: lost.message,
      repair: "Run `takoform apply` again once no other run is active.",
    });
  }
  const stoppedEarly = ordered.some((o) => o.status === "skipped" && o.blockedBy === undefined);
  if (stoppedEarly && lost === null) {
    diagnostics.push({
      severity: "error",
      code: engineCode("step-skipped"),
      summary: "The apply was stopped before every step ran",
      detail: "Steps not started are listed as skipped; state records every step that ran.",
      repair: "Run `takoform apply` again to finish.",
    });
  }

  let outputs: ApplyResult["outputs"] = {};
  if (lost === null) {
    try {
      outputs = await storeOutputs(input, ctx);
    } catch (error) {
      diagnostics.push(internalError("Storing the outputs failed", error));
    }
  }
  const ok = !hasErrors(diagnostics) && ordered.every((o) => o.status === "ok");
  return { ok, outcomes: ordered, diagnostics, outputs };
}

async function storeOutputs(input: ApplyInput, ctx: StepContext): Promise<ApplyResult["outputs"]> {
  const { store, stack, plan } = input;
  if (plan.destroy) {
    if (plan.targets === undefined || plan.targets.length === 0) await store.putOutputs({});
    return {};
  }
  const previous = await store.outputs();
  const evaluated = evaluateOutputs(stack, input.variables, ctx.values);
  const out: ApplyResult["outputs"] = {};
  for (const [name, output] of evaluated) {
    if (output.error === undefined && !containsUnknown(output.value)) {
      out[name] = { value: output.value as KnownValue, sensitive: output.sensitive };
    } else if (previous[name] !== undefined) {
      // Not known after this apply (a step failed or was skipped): keep what was stored. A
      // sensitive one is stored as its seal, and sealing is idempotent, so the seal is kept as is.
      // An output that became sensitive since is sealed now; a seal stays flagged as one.
      out[name] = { value: previous[name]!.value, sensitive: previous[name]!.sensitive || output.sensitive };
    }
  }
  // The store keeps outputs as opaque data: a sensitive one is handed over sealed (a seal kept
  // from before stays as it is; sealing is idempotent).
  const stored: ApplyResult["outputs"] = {};
  for (const [name, o] of Object.entries(out))
    stored[name] = o.sensitive && o.value !== null ? { value: sealSensitive(o.value, store.lineage), sensitive: true } : o;
  await store.putOutputs(stored);
  return out;
}

function internalError(summary: string, error: unknown, address?: string): Diagnostic {
  return {
    severity: "error",
    code: engineCode("internal"),
    summary,
    cause: error instanceof Error ? error.message : String(error),
    ...(address !== undefined ? { address } : {}),
    repair: "State records every step that completed; run the command again, and report this if it repeats.",
  };
}
