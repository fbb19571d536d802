// One apply step: its final plan (final-plan.ts: the configuration re-evaluated with the now-known
// values of its dependencies, re-planned through the provider, checked against the shown plan),
// then the provider call with an intent recorded in state BEFORE the host
// request and the result settled AFTER it — one state write each, never the whole state. A write
// whose answer never arrived is not settled at all: its intent survives, as after a kill -9.

import { randomBytes } from "node:crypto";
import { type Attributes, type Diagnostic, hasErrors, located } from "../../core/index.ts";
import type { ResourceState, WriteContext, WriteIntent, WriteResult } from "../../provider/index.ts";
import { intentSecrets, sealIntent } from "../../secrets/index.ts";
import { deposedAddress, type InFlightStatus, parseStateAddress, type SettledStatus } from "../../state/index.ts";
import { engineCode } from "../codes.ts";
import { contributionEdgesOf } from "../dependencies.ts";
import { sensitiveAttributes, type EvaluatedConfig } from "../evaluate.ts";
import { importObject } from "../imports.ts";
import type { PlanStep, ResourceChange } from "../plan-data.ts";
import { SensitiveFlow } from "../sensitivity.ts";
import { attributesEqual, compactAttributes } from "../values.ts";
import { fail, plannedFor } from "./final-plan.ts";
import { recordInput, stateInput } from "./records.ts";
import { sensitiveLookup } from "./sealed-intent.ts";
import type { StepContext, StepResult } from "./types.ts";

const SCOPES: Partial<Record<PlanStep["action"], (step: PlanStep) => string>> = {
  "create-placeholder": () => "placeholder",
  finalize: () => "finalize",
  settle: (step) => `settle:${step.pass ?? 1}`,
  revert: () => "revert",
};

function uidOf(attributes: Attributes | undefined | null): string | undefined {
  const uid = attributes?.["uid"];
  return typeof uid === "string" && uid !== "" ? uid : undefined;
}

/**
 * The `WriteContext` of a step: intent to state first, then (test hook) the count. When sensitive
 * variables flow into the resource's configuration, the stored intent is sealed with their values
 * (src/secrets/intent.ts), so its request body never reaches state in the clear.
 */
function writeContext(ctx: StepContext, step: PlanStep, stateAddress: string, status: InFlightStatus): WriteContext {
  const action = SCOPES[step.action]?.(step);
  const scope = action === undefined ? `run:${ctx.run}` : `run:${ctx.run}:${action}`;
  const names = SensitiveFlow.of(ctx.stack, ctx.variables).variables(parseStateAddress(stateAddress).address);
  const { secrets } = intentSecrets(names, sensitiveLookup(ctx.variables));
  return {
    idempotencyScope: scope,
    recordIntent: async (write: WriteIntent) => {
      await ctx.store.setIntent(stateAddress, status, { stepId: step.id, write: sealIntent(write, stateAddress, ctx.lineage, secrets) });
      ctx.hooks.afterIntent?.(++ctx.counters.intents);
    },
  };
}

function afterWrite(ctx: StepContext): void {
  ctx.hooks.afterWrite?.(++ctx.counters.writes);
}

function recordContext(ctx: StepContext, address: string, evaluated: EvaluatedConfig | null) {
  const resource = ctx.stack.resources.get(address);
  return {
    dependencies: [...(ctx.configDependencies.get(address) ?? [])],
    contributions: contributionEdgesOf(ctx.stack, address),
    sensitivePaths:
      evaluated?.sensitivePaths ?? (resource === undefined ? [] : sensitiveAttributes(resource, ctx.variables, SensitiveFlow.of(ctx.stack, ctx.variables))),
    lineage: ctx.lineage,
  };
}

/**
 * A write sent without an answer (the provider's `unresolved`): nothing is settled, so its intent
 * stays in state and the next apply or destroy re-sends it under the same Idempotency-Key before
 * planning (recover.ts). The step fails; its dependents are skipped.
 */
function unresolved(diagnostics: Diagnostic[]): StepResult {
  return {
    ok: false,
    diagnostics: hasErrors(diagnostics)
      ? diagnostics
      : [...diagnostics, { severity: "error", summary: "The outcome of this write is unknown", code: engineCode("in-flight-unresolved") }],
  };
}

async function callProvider(ctx: StepContext, call: () => Promise<WriteResult>): Promise<WriteResult> {
  try {
    return await call();
  } finally {
    afterWrite(ctx);
  }
}

/** Moves the current object of `address` to a deposed address before its successor is created. */
async function depose(ctx: StepContext, address: string): Promise<string | null> {
  const record = await ctx.store.get(address);
  if (record === undefined) return null;
  const deposed = deposedAddress(address, randomBytes(4).toString("hex"));
  await ctx.store.putResource(deposed, recordInput(record));
  await ctx.store.removeResource(address);
  ctx.deposedOf.set(address, deposed);
  ctx.current.set(deposed, record.attributes);
  ctx.current.delete(address);
  return deposed;
}

/** Puts a deposed object back when its successor was never created. */
async function restore(ctx: StepContext, address: string, deposed: string): Promise<void> {
  const record = await ctx.store.get(deposed);
  if (record === undefined) return;
  await ctx.store.putResource(address, recordInput(record));
  await ctx.store.removeResource(deposed);
  ctx.deposedOf.delete(address);
  ctx.current.set(address, record.attributes);
  ctx.current.delete(deposed);
}

async function runCreate(ctx: StepContext, step: PlanStep, change: ResourceChange): Promise<StepResult> {
  const address = step.address;
  const placeholder = step.action === "create-placeholder";
  const prepared = await plannedFor(ctx, step, change, null, placeholder);
  if (prepared.result) return prepared.result;
  const createFirst = step.instance === "replacement" && change.actions[0] === "create";
  const deposed = createFirst ? await depose(ctx, address) : null;
  const result = await callProvider(ctx, () => ctx.provider.create(change.type, prepared.planned!, writeContext(ctx, step, address, "creating")));
  const diagnostics = located(result.diagnostics, address, change.type);
  // Sent, but no answer: the intent stays in flight for the next run to re-send, as after a crash.
  // A deposed predecessor stays deposed: the new object may exist.
  if (result.unresolved === true) return unresolved(diagnostics);
  const status: SettledStatus = placeholder ? "placeholder" : "ready";
  // A failed create that the host accepted still returns state: it is recorded, so the next run reconciles.
  await ctx.store.settle(address, result.state === null ? null : stateInput(result.state, status, recordContext(ctx, address, prepared.evaluated!)));
  if (result.state !== null) {
    ctx.current.set(address, compactAttributes(result.state.attributes));
    ctx.cycles?.wrote(address, undefined, result.state.attributes);
  } else if (deposed !== null) await restore(ctx, address, deposed);
  return { ok: !hasErrors(diagnostics), diagnostics, ...(uidOf(result.state?.attributes) ? { uid: uidOf(result.state?.attributes)! } : {}) };
}

async function runUpdate(ctx: StepContext, step: PlanStep, change: ResourceChange): Promise<StepResult> {
  const address = step.address;
  const attributes = ctx.current.get(address);
  if (attributes === undefined) return fail(step, `${address} has no state to update`, "The object this step updates is not in state.", "Plan again.");
  const prior: ResourceState = { type: change.type, attributes };
  const placeholder = step.action === "revert";
  if (ctx.cycles?.quiet(step)) return { ok: true, diagnostics: [], noop: true };
  const prepared = await plannedFor(ctx, step, change, prior, placeholder);
  if (prepared.result) return prepared.result;
  if (step.action === "settle" && attributesEqual(prepared.planned!, attributes)) return { ok: true, diagnostics: [], noop: true };
  // The last settle pass only checks: a member still changing there never settles.
  if (step.action === "settle" && ctx.cycles?.isFinalPass(step)) {
    return {
      ok: false,
      diagnostics: [ctx.cycles.unsettled(step, ctx.stack.resources.get(parseStateAddress(address).address)!, attributes, prepared.planned!)],
    };
  }
  const status: InFlightStatus = placeholder ? "reverting" : "updating";
  // The provider sees the prior it planned against (sealed values it can match are unsealed).
  const result = await callProvider(ctx, () =>
    ctx.provider.update(change.type, prepared.prior ?? prior, prepared.planned!, writeContext(ctx, step, address, status)),
  );
  const diagnostics = located(result.diagnostics, address, change.type);
  if (result.unresolved === true) return unresolved(diagnostics);
  // A failed update keeps the prior object in state unless the provider returned what exists now.
  const settled = result.state ?? prior;
  const before: SettledStatus = ctx.records.get(address)?.status === "placeholder" ? "placeholder" : "ready";
  const after: SettledStatus = hasErrors(diagnostics) && result.state === null ? before : placeholder ? "placeholder" : "ready";
  await ctx.store.settle(address, stateInput(settled, after, recordContext(ctx, address, prepared.evaluated!)));
  ctx.current.set(address, settled === prior ? settled.attributes : compactAttributes(settled.attributes));
  ctx.cycles?.wrote(address, attributes, settled.attributes);
  if (step.action === "settle") ctx.cycles?.settled(step);
  return { ok: !hasErrors(diagnostics), diagnostics, ...(uidOf(settled.attributes) ? { uid: uidOf(settled.attributes)! } : {}) };
}

/**
 * The state address a step writes. The old half of a create-before-destroy lives at the deposed
 * address its create step chose; it never falls back to the configuration address, which then
 * holds the new object (undefined: there was no old object to delete).
 */
export function stateAddressOf(ctx: StepContext, step: PlanStep): string | undefined {
  const change = ctx.changes.get(step.address);
  if (step.action === "delete" && step.instance === "current" && change?.actions[0] === "create") {
    return ctx.deposedOf.get(parseStateAddress(step.address).address);
  }
  return step.address;
}

async function runDelete(ctx: StepContext, step: PlanStep, change: ResourceChange): Promise<StepResult> {
  const base = parseStateAddress(step.address).address;
  const stateAddress = stateAddressOf(ctx, step);
  if (stateAddress === undefined) return { ok: true, diagnostics: [], noop: true };
  const attributes = ctx.current.get(stateAddress);
  if (attributes === undefined) return { ok: true, diagnostics: [], noop: true }; // already gone
  const prior: ResourceState = { type: change.type, attributes };
  const result = await callProvider(ctx, () => ctx.provider.delete(change.type, prior, writeContext(ctx, step, stateAddress, "deleting")));
  const diagnostics = located(result.diagnostics, base, change.type);
  if (result.unresolved === true) return unresolved(diagnostics);
  const failed = hasErrors(diagnostics);
  // A failed delete keeps the object in state (a later refresh tells whether it is really gone).
  const remaining = failed ? (result.state ?? prior) : result.state;
  const record = ctx.records.get(stateAddress);
  await ctx.store.settle(
    stateAddress,
    remaining === null
      ? null
      : stateInput(remaining, record?.status === "placeholder" ? "placeholder" : "ready", {
          dependencies: record?.dependencies ?? [],
          contributions: record?.contributions ?? [],
          sensitivePaths: [],
          lineage: ctx.lineage,
        }),
  );
  if (remaining === null) ctx.current.delete(stateAddress);
  else ctx.current.set(stateAddress, remaining.attributes);
  return { ok: !failed, diagnostics, ...(uidOf(prior.attributes) ? { uid: uidOf(prior.attributes)! } : {}) };
}

async function runImport(ctx: StepContext, step: PlanStep, change: ResourceChange): Promise<StepResult> {
  const address = step.address;
  const imported = await importObject(ctx.provider, change.type, address, change.importingId!);
  if (imported.state === null) return { ok: false, diagnostics: imported.diagnostics };
  const shownUid = uidOf(change.before as Attributes | null);
  const uid = uidOf(imported.state.attributes);
  if (shownUid !== undefined && uid !== shownUid) {
    return fail(
      step,
      `${address} is no longer the object the plan imported`,
      `The plan imported uid ${shownUid}; the host now holds uid ${uid ?? "(none)"} under that id.`,
      "Plan again.",
    );
  }
  await ctx.store.putResource(address, stateInput(imported.state, "ready", recordContext(ctx, address, null)));
  ctx.current.set(address, imported.state.attributes);
  return { ok: true, diagnostics: imported.diagnostics, ...(uid ? { uid } : {}) };
}

/** A removed block's `destroy = false`: the record leaves state; the host object is not touched. */
async function runForget(ctx: StepContext, step: PlanStep): Promise<StepResult> {
  const uid = uidOf(ctx.current.get(step.address));
  if (!(await ctx.store.removeResource(step.address))) return { ok: true, diagnostics: [], noop: true };
  ctx.current.delete(step.address);
  return { ok: true, diagnostics: [], ...(uid !== undefined ? { uid } : {}) };
}

export async function runStep(ctx: StepContext, step: PlanStep): Promise<StepResult> {
  const change = ctx.changes.get(step.address);
  if (change === undefined)
    return fail(
      step,
      `The plan has no change for ${step.address}`,
      `Step ${step.id} names an address without a resource change.`,
      "The plan file is damaged; plan again.",
    );
  switch (step.action) {
    case "create":
    case "create-placeholder":
      return runCreate(ctx, step, change);
    case "update":
    case "finalize":
    case "settle":
    case "revert":
      return runUpdate(ctx, step, change);
    case "delete":
      return runDelete(ctx, step, change);
    case "import":
      return runImport(ctx, step, change);
    case "forget":
      return runForget(ctx, step);
    case "resume":
      return fail(step, "A resume step cannot be part of a plan", "Interrupted writes are resolved before planning.", "Plan again.");
  }
}
