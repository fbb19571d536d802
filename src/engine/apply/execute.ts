// Applying a plan, as named phases: record what refresh found (drift) in state, prepare what the
// steps share, walk the step graph with bounded parallelism (walk.ts), account for the steps that
// never ran, then store the outputs. A failed step stops its dependents (reported as skipped)
// while independent branches finish; a lost lease stops everything at once.

import { randomBytes } from "node:crypto";
import { hasErrors, type Attributes, type Diagnostic, type KnownValue } from "../../core/index.ts";
import { sealedAttributePaths, sealSensitive } from "../../secrets/index.ts";
import { type ResourceRecord, StateUnavailableError } from "../../state/index.ts";
import { configEdges } from "../config/edges.ts";
import { SettleTracker } from "../cycles/settle.ts";
import { engineCode } from "../codes.ts";
import { evaluateOutputs } from "../evaluate.ts";
import { dependencyMap } from "../dependencies.ts";
import type { ResourceChange } from "../plan-data.ts";
import { containsUnknown } from "../values.ts";
import { knownValues } from "./known-values.ts";
import { carryOutMoves } from "./moves.ts";
import { stateInput } from "./records.ts";
import { sealedOutput } from "./sealed-outputs.ts";
import type { ApplyInput, ApplyResult, StepContext, StepOutcome } from "./types.ts";
import { internalError, LeaseGuard, walkSteps } from "./walk.ts";
import { isStateUnavailable, stateUnavailable } from "./unavailable.ts";

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
  // After the plan's moves, state is no longer the snapshot the plan read: it is listed again.
  const moved = (plan.moves?.length ?? 0) > 0;
  const records = new Map((moved || input.records === undefined ? await store.list() : input.records).map((r) => [r.address, r]));
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
        sensitivePaths: sealedAttributePaths(record.attributes),
        lineage: store.lineage,
      });
      await store.putResource(drift.address, input2);
      records.set(drift.address, { ...record, attributes: input2.attributes });
    }
  }
  return records;
}

export async function applyPlan(input: ApplyInput): Promise<ApplyResult> {
  const { plan } = input;
  // A plan with an error is never applied.
  if (hasErrors(plan.diagnostics)) return { ok: false, outcomes: [], diagnostics: [...plan.diagnostics], outputs: {} };
  const lease = new LeaseGuard();
  let records: Map<string, ResourceRecord>;
  try {
    const refused = await lease.guard(() => carryOutMoves(input.store, plan.moves ?? []));
    if (refused.length > 0) return { ok: false, outcomes: [], diagnostics: refused, outputs: {} };
    records = await lease.guard(() => persistRefresh(input));
  } catch (error) {
    const diagnostic = error instanceof StateUnavailableError ? stateUnavailable(error) : internalError("Recording the refreshed state failed", error);
    return { ok: false, outcomes: [], diagnostics: [diagnostic], outputs: {} };
  }
  const ctx = stepContext(input, records);
  const outcomes = await walkSteps(input, ctx, lease);
  const diagnostics = outcomes.flatMap((o) => o.diagnostics);
  diagnostics.push(...stopDiagnostics(outcomes, lease.lost, diagnostics));
  let outputs: ApplyResult["outputs"] = {};
  if (lease.lost === null) {
    try {
      outputs = await storeOutputs(input, ctx);
    } catch (error) {
      diagnostics.push(error instanceof StateUnavailableError ? stateUnavailable(error) : internalError("Storing the outputs failed", error));
    }
  }
  const ok = !hasErrors(diagnostics) && outcomes.every((o) => o.status === "ok");
  return { ok, outcomes, diagnostics, outputs };
}

/** What every step of the walk shares: state as refresh left it, the values configurations see. */
function stepContext(input: ApplyInput, records: ReadonlyMap<string, ResourceRecord>): StepContext {
  const { store, plan, stack } = input;
  const snapshot = [...records.values()];
  const current = new Map(snapshot.map((r) => [r.address, r.attributes as Attributes]));
  return {
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
    configDependencies: dependencyMap(stack, configEdges(stack)),
    hooks: input.hooks ?? {},
    counters: { intents: 0, writes: 0 },
    run: randomBytes(6).toString("hex"),
    cycles: new SettleTracker(plan.steps),
  };
}

/** Why the walk ended before every step ran: the lease was taken over, or the run was stopped. */
function stopDiagnostics(outcomes: readonly StepOutcome[], lost: Error | null, found: readonly Diagnostic[]): Diagnostic[] {
  if (lost instanceof StateUnavailableError) return found.some(isStateUnavailable) ? [] : [stateUnavailable(lost)];
  if (lost !== null) {
    if (found.some((d) => d.code === engineCode("lease-lost"))) return [];
    return [
      {
        severity: "error",
        code: engineCode("lease-lost"),
        summary: "The state lock was taken over during the apply",
        detail: lost.message,
        repair: "Run `takoform apply` again once no other run is active.",
      },
    ];
  }
  if (!outcomes.some((o) => o.status === "skipped" && o.blockedBy === undefined)) return [];
  return [
    {
      severity: "error",
      code: engineCode("step-skipped"),
      summary: "The apply was stopped before every step ran",
      detail: "Steps not started are listed as skipped; state records every step that ran.",
      repair: "Run `takoform apply` again to finish.",
    },
  ];
}

async function storeOutputs(input: ApplyInput, ctx: StepContext): Promise<ApplyResult["outputs"]> {
  const { store, stack, plan } = input;
  const targeted = plan.targets !== undefined && plan.targets.length > 0;
  if (plan.destroy) {
    // A targeted destroy removes no output (plan/targets.ts).
    if (!targeted) await store.putOutputs({});
    return {};
  }
  const previous = await store.outputs();
  // A targeted plan planned only the outputs its targets cover (plan/targets.ts): this apply
  // changes those and keeps every other recorded output exactly as it was, as Terraform does.
  const planned = targeted ? new Set(plan.outputChanges.map((o) => o.name)) : null;
  const evaluated = evaluateOutputs(stack, input.variables, ctx.values, planned);
  const out: ApplyResult["outputs"] = {};
  // What the store keeps as a seal (shown or not, `sensitive` above is what people see).
  const sealed = new Set<string>();
  // Evaluated by this apply (the others are kept as stored).
  const fresh = new Set<string>();
  for (const name of stack.outputs.keys()) {
    const output = evaluated.get(name);
    const before = previous[name];
    if (output === undefined) {
      if (before === undefined) continue;
      out[name] = { value: before.value, sensitive: before.sensitive };
      if (before.sensitive) sealed.add(name);
    } else if (output.error === undefined && !containsUnknown(output.value)) {
      out[name] = { value: output.value as KnownValue, sensitive: output.sensitive };
      if (output.sealed) sealed.add(name);
      fresh.add(name);
    } else if (before !== undefined) {
      // Not known after this apply (a step failed or was skipped): keep what was stored. A
      // sealed one is stored as its seal, and sealing is idempotent, so the seal is kept as is.
      // An output that is to be sealed since is sealed now; a seal stays flagged as one.
      out[name] = { value: before.value, sensitive: before.sensitive || output.sensitive };
      if (before.sensitive || output.sealed) sealed.add(name);
    }
  }
  // An output the configuration no longer declares is deleted only by an untargeted apply.
  if (planned !== null)
    for (const [name, kept] of Object.entries(previous)) {
      if (Object.hasOwn(out, name)) continue;
      out[name] = { value: kept.value, sensitive: kept.sensitive };
      if (kept.sensitive) sealed.add(name);
    }
  // The store keeps outputs as opaque data: a sensitive one is handed over sealed (a seal kept
  // from before stays as it is, its encrypted value with it; sealing is idempotent), a value this
  // apply evaluated with its value encrypted when its secret is the variables' (sealed-outputs.ts).
  const stored: ApplyResult["outputs"] = {};
  for (const [name, o] of Object.entries(out)) {
    if (!sealed.has(name) || o.value === null) stored[name] = { value: o.value, sensitive: false };
    else if (fresh.has(name)) stored[name] = { value: await sealedOutput(name, o.value, stack, input.variables, store), sensitive: true };
    else stored[name] = { value: sealSensitive(o.value, store.lineage), sensitive: true };
  }
  await store.putOutputs(stored);
  return out;
}
