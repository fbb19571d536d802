// The walk of an apply: every step of the plan's graph, `parallelism` (or the adaptive limit) at a time, each reported as
// it starts and ends (events.ts). A failed step skips its dependents while independent branches
// finish; a lost lease stops every step not yet started.

import { errorText, type Diagnostic } from "../../core/index.ts";
import { LeaseLostError, parseStateAddress, StateConflictError, type StateStore, StateUnavailableError } from "../../state/index.ts";
import { engineCode } from "../codes.ts";
import { parallelismOf, walkDag } from "../dag.ts";
import { conflictDiagnostic } from "../host-objects.ts";
import type { PlanStep } from "../plan-data.ts";
import { ObjectClaims } from "./claims.ts";
import type { ApplyInput, StepContext, StepOutcome } from "./types.ts";
import { runStep, stateAddressOf } from "./step.ts";
import { stateUnavailable } from "./unavailable.ts";

/**
 * Notices the state lock being taken over, or the store becoming unavailable, in any state write
 * it guards: either stops every step not yet started.
 */
export class LeaseGuard {
  lost: Error | null = null;

  async guard<T>(body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (error) {
      if (error instanceof LeaseLostError || error instanceof StateUnavailableError) this.lost ??= error;
      throw error;
    }
  }
}

/**
 * `store` with each StateUnavailableError of its calls handed to `noted` (then thrown on as it
 * was). A step's writes reach the store through the provider too (its intent, recorded before the
 * host request), which reports a failure there as its own diagnostic: this is how the step learns
 * that it was the store that failed.
 */
function watchedStore(store: StateStore, noted: (error: StateUnavailableError) => void): StateStore {
  return new Proxy(store, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key, object);
      if (typeof value !== "function") return value;
      return (...args: unknown[]): unknown => {
        const result: unknown = (value as (...a: unknown[]) => unknown).apply(object, args);
        if (!(result instanceof Promise)) return result;
        return result.catch((error: unknown) => {
          if (error instanceof StateUnavailableError) noted(error);
          throw error;
        });
      };
    },
  });
}

/** Runs the plan's steps; returns one outcome per step, in plan order (not started: skipped). */
export async function walkSteps(input: ApplyInput, ctx: StepContext, lease: LeaseGuard): Promise<StepOutcome[]> {
  const claims = new ObjectClaims(input.provider, [...ctx.records.values()]);
  const outcomes = new Map<string, StepOutcome>();
  const started = new Map<string, number>();
  const report = input.progress;
  await walkDag(input.plan.steps, {
    parallelism: input.plan.steps.length === 0 ? 1 : await parallelismOf(input.parallelism, input.provider),
    stopped: () => lease.lost !== null || (input.stopped?.() ?? false),
    run: async (step) => {
      started.set(step.id, Date.now());
      const change = ctx.changes.get(step.address);
      // Progress names the object the step writes (a deposed old object says so).
      const where = stateAddressOf(ctx, step) ?? step.address;
      const uid =
        step.action === "create" || step.action === "create-placeholder" || step.action === "import"
          ? undefined
          : (ctx.current.get(where)?.["uid"] as string | undefined);
      report?.({
        kind: "start",
        stepId: step.id,
        address: where,
        action: step.action,
        ...(typeof uid === "string" && uid !== "" ? { uid } : {}),
        ...(step.action === "import" && change?.importingId !== undefined ? { importId: change.importingId } : {}),
      });
      // Each step gets a provider that knows its address (one create per host object, claims.ts),
      // and a store that tells it when the store itself failed under it.
      let failure: StateUnavailableError | null = null;
      const store = watchedStore(ctx.store, (error) => {
        failure ??= error;
        lease.lost ??= error;
      });
      let result: Awaited<ReturnType<typeof runStep>>;
      try {
        result = await lease.guard(() => runStep({ ...ctx, store, provider: claims.providerFor(where, ctx.provider) }, step));
      } catch (error) {
        if (failure === null) throw error;
        result = { ok: false, diagnostics: [] };
      }
      if (failure !== null) result = { ok: false, diagnostics: [stateUnavailable(failure, parseStateAddress(where).address)] };
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
      report?.(
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
      outcomes.set(step.id, {
        id: step.id,
        address: step.address,
        action: step.action,
        status: "failed",
        elapsedMs,
        diagnostics: [crashDiagnostic(step, error)],
      });
      report?.({ kind: "failed", stepId: step.id, address: stateAddressOf(ctx, step) ?? step.address, action: step.action, elapsedMs });
    },
    skipped: (step, blockedBy) => {
      outcomes.set(step.id, { id: step.id, address: step.address, action: step.action, status: "skipped", blockedBy: blockedBy.id, diagnostics: [] });
      report?.({ kind: "skipped", stepId: step.id, address: step.address, action: step.action, blockedBy: blockedBy.address });
    },
  });
  return input.plan.steps.map(
    (step) => outcomes.get(step.id) ?? { id: step.id, address: step.address, action: step.action, status: "skipped", diagnostics: [] },
  );
}

/** A step that threw: another run recorded its object, the lease was lost, or something unforeseen. */
function crashDiagnostic(step: PlanStep, error: unknown) {
  const address = parseStateAddress(step.address).address;
  if (error instanceof StateConflictError) return conflictDiagnostic(error);
  if (error instanceof LeaseLostError) {
    return {
      severity: "error" as const,
      code: engineCode("lease-lost"),
      summary: "The state lock was taken over during the apply",
      detail: `${error.message}. No further step was started; the step that was running when it happened may have reached the host, and its intent stays in state for the next run to resolve.`,
      address,
      repair: "Find out who took the lock over; when no other run is active, run `takoform apply` again.",
    };
  }
  return internalError(`Step ${step.id} failed unexpectedly`, error, address);
}

export function internalError(summary: string, error: unknown, address?: string): Diagnostic {
  return {
    severity: "error",
    code: engineCode("internal"),
    summary,
    cause: errorText(error),
    ...(address !== undefined ? { address } : {}),
    repair: "State records every step that completed; run the command again, and report this if it repeats.",
  };
}
