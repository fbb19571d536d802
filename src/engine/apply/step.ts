// One apply step: re-evaluate the resource's configuration with the now-known values of its
// dependencies, re-plan it through the provider, check the final plan keeps every value the
// shown plan knew, then make the provider call with an intent recorded in state BEFORE the host
// request and the result settled AFTER it — one state write each, never the whole state. A write
// whose answer never arrived is not settled at all: its intent survives, as after a kill -9.

import { randomBytes } from "node:crypto";
import { type Attributes, type Diagnostic, hasErrors, type KnownValue, located } from "../../core/index.ts";
import type { Provider, ResourceState, WriteContext, WriteIntent, WriteResult } from "../../provider/index.ts";
import { deposedAddress, type InFlightStatus, parseStateAddress, type ResourceRecord, type SettledStatus, type StateStore } from "../../state/index.ts";
import { formatPath } from "../config/expression/traversal.ts";
import type { ResourceConfig, StackConfig } from "../config/types.ts";
import type { ResolvedVariables } from "../config/variables/resolve.ts";
import { engineCode } from "../codes.ts";
import { evaluateResource, sensitiveAttributes, type EvaluatedConfig, type ResourceValues } from "../evaluate.ts";
import { SensitiveFlow } from "../sensitivity.ts";
import { holdsSealedValues, placeholderFromRecord, recordedFields } from "../cycles/placeholder-state.ts";
import type { SettleTracker } from "../cycles/settle.ts";
import { contributionEdgesOf } from "../dependencies.ts";
import { importObject } from "../imports.ts";
import type { PlanStep, ResourceChange } from "../plan-data.ts";
import { applyIgnoreChanges, attributesEqual, compactAttributes, firstContradiction } from "../values.ts";
import { intentSecrets, sealIntent, unsealPrior, unsealShown } from "../../secrets/index.ts";
import { sensitiveLookup } from "./sealed-intent.ts";
import { recordInput, stateInput } from "./records.ts";

export interface ApplyHooks {
  /** After the n-th intent of this run is durably recorded (before its host request). */
  afterIntent?(n: number): void;
  /** After the n-th provider write of this run returned (before its result is recorded). */
  afterWrite?(n: number): void;
}

export interface StepContext {
  provider: Provider;
  store: StateStore;
  stack: StackConfig;
  variables: ResolvedVariables;
  lineage: string;
  changes: ReadonlyMap<string, ResourceChange>;
  /** State address → the attributes known now (updated as steps settle). */
  current: Map<string, Attributes>;
  /** `current` as configurations see it: sealed secrets of untouched records opened (known-values.ts). */
  values: ResourceValues;
  /** State address → the record as it was when the walk began. */
  records: Map<string, ResourceRecord>;
  /** Configuration address → the deposed address its old object moved to (create-before-destroy). */
  deposedOf: Map<string, string>;
  configDependencies: ReadonlyMap<string, readonly string[]>;
  hooks: ApplyHooks;
  counters: { intents: number; writes: number };
  /**
   * This apply run's id, mixed into every write's Idempotency-Key (`run:<id>`). A retry inside the
   * run replays by key and a resumed write re-sends its recorded bytes; a later run must not replay
   * an earlier run's terminal failure (a failed 202 keeps replaying for the host's retention window).
   */
  run: string;
  /** RFC 0011 settling: which settle pass is a loop's last, and what each member's writes changed. */
  cycles?: SettleTracker;
}

export interface StepResult {
  ok: boolean;
  diagnostics: Diagnostic[];
  uid?: string;
  /** The step found nothing to do (a settle pass with no change). */
  noop?: boolean;
}

const SCOPES: Partial<Record<PlanStep["action"], (step: PlanStep) => string>> = {
  "create-placeholder": () => "placeholder",
  finalize: () => "finalize",
  settle: (step) => `settle:${step.pass ?? 1}`,
  revert: () => "revert",
};

function fail(step: PlanStep, summary: string, detail: string, repair?: string): StepResult {
  return {
    ok: false,
    diagnostics: [{ severity: "error", code: engineCode("inconsistent-final-plan"), summary, detail, address: parseStateAddress(step.address).address, ...(repair ? { repair } : {}) }],
  };
}

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
    sensitivePaths: evaluated?.sensitivePaths ?? (resource === undefined ? [] : sensitiveAttributes(resource, ctx.variables, SensitiveFlow.of(ctx.stack, ctx.variables))),
    lineage: ctx.lineage,
  };
}

async function plannedFor(
  ctx: StepContext,
  step: PlanStep,
  change: ResourceChange,
  prior: ResourceState | null,
  placeholder: boolean,
): Promise<{ planned?: Attributes; evaluated?: EvaluatedConfig; prior?: ResourceState | null; result?: StepResult }> {
  const { address, deposed } = parseStateAddress(step.address);
  const resource = ctx.stack.resources.get(address);
  // A cycle member being deleted — also one the configuration no longer declares, or an old deposed
  // object — is reverted from its record: what the host holds, without the fields its recorded
  // contributions filled. Never from the current configuration: a destroy must not write edits
  // made to the code since the last apply (an immutable one would even fail the revert).
  const deleting = change.actions.length === 1 && change.actions[0] === "delete";
  if (step.action === "revert" && prior !== null && (resource === undefined || deposed !== null || deleting)) {
    return revertFromRecord(ctx, step, change, prior, deposed === null ? resource : undefined);
  }
  if (resource === undefined) return { result: fail(step, `${address} is not in the configuration`, "The plan names a resource the configuration no longer declares.", "Plan again.") };
  const evaluated = evaluateResource(resource, ctx.variables, ctx.values, SensitiveFlow.of(ctx.stack, ctx.variables));
  if (hasErrors(evaluated.diagnostics)) return { result: { ok: false, diagnostics: evaluated.diagnostics } };
  let config = placeholder ? evaluated.placeholder : evaluated.attributes;
  let priorState = prior;
  if (priorState !== null) {
    const attributes = unsealPrior(priorState.attributes, config, ctx.lineage);
    if (attributes !== priorState.attributes) priorState = { ...priorState, attributes };
    const ignore = resource.lifecycle.ignoreChanges;
    if (step.action === "update" && (ignore === "all" || ignore.length > 0)) config = applyIgnoreChanges(config, priorState.attributes, ignore);
  }
  // A replacement's new object is planned as the plan planned it: a create that knows what it replaces.
  const replacing = priorState === null && step.instance === "replacement" ? { replacing: change.before } : {};
  const response = await ctx.provider.plan({ type: change.type, address, prior: priorState, config, ...replacing });
  const diagnostics = located(response.diagnostics, address, change.type);
  if (hasErrors(diagnostics)) return { result: { ok: false, diagnostics } };
  const planned = response.planned ?? {};
  if (step.action === "update" && response.requiresReplace.length > 0) {
    return {
      result: fail(
        step,
        `Provider produced an inconsistent final plan for ${address}`,
        `The plan shown updated ${address} in place, but with the values known now the provider requires replacing it (${response.requiresReplace.map((p) => formatPath(p)).join(", ")}).`,
        "Plan again and review the new plan.",
      ),
    };
  }
  // Cycle steps re-plan against values the shown plan could not know; only ordinary steps are checked.
  if (step.action === "create" || step.action === "update") {
    // A plan file carries sensitive values sealed; the value in hand is compared to the seal.
    const shown = change.after === null ? null : unsealShown(change.after, planned, change.sensitivePaths, ctx.lineage);
    if (shown !== null) {
      const at = firstContradiction(shown, planned);
      if (at !== null) {
        return {
          result: fail(
            step,
            `Provider produced an inconsistent final plan for ${address}`,
            `When applying, the planned value of ${at.length === 0 ? "the resource" : formatPath(at)} differs from the one the plan showed. Every value known in the shown plan must be unchanged at apply.`,
            "Plan again and review the new plan; if it keeps happening, report it as a provider bug.",
          ),
        };
      }
    }
  }
  return { planned, evaluated, prior: priorState };
}

async function revertFromRecord(
  ctx: StepContext,
  step: PlanStep,
  change: ResourceChange,
  prior: ResourceState,
  configured: ResourceConfig | undefined,
): Promise<{ planned?: Attributes; prior?: ResourceState; result?: StepResult }> {
  const address = parseStateAddress(step.address).address;
  const schema = ctx.provider.schema(change.type);
  const record = ctx.records.get(step.address);
  if (schema === undefined || record === undefined) return { result: fail(step, `${step.address} cannot be reverted`, "Its record or its resource type is gone.", "Plan again.") };
  const drop = recordedFields(record.contributions);
  let attributes: Attributes = record.attributes;
  if (configured !== undefined) {
    // State keeps secrets only as seals; the configuration still holding the same secret gives it back.
    const evaluated = evaluateResource(configured, ctx.variables, ctx.values, SensitiveFlow.of(ctx.stack, ctx.variables));
    attributes = unsealPrior(attributes, evaluated.attributes, ctx.lineage);
    if (attributes !== record.attributes) prior = { ...prior, attributes: unsealPrior(prior.attributes, evaluated.attributes, ctx.lineage) };
  }
  if (holdsSealedValues(attributes as Record<string, KnownValue>, schema, drop)) {
    return {
      result: fail(
        step,
        `${step.address} cannot be reverted to its placeholder`,
        "A sensitive value it holds is kept in state only as a seal, and the configuration no longer holds the same value, so the revert could not send it back unchanged.",
        "Restore the sensitive value the object was last applied with, or delete the object's references by an ordinary apply first.",
      ),
    };
  }
  const config = placeholderFromRecord(attributes as Record<string, KnownValue>, schema, drop);
  const response = await ctx.provider.plan({ type: change.type, address, prior, config });
  const diagnostics = located(response.diagnostics, address, change.type);
  if (hasErrors(diagnostics)) return { result: { ok: false, diagnostics } };
  return { planned: response.planned ?? {}, prior };
}

/**
 * A write sent without an answer (the provider's `unresolved`): nothing is settled, so its intent
 * stays in state and the next apply or destroy re-sends it under the same Idempotency-Key before
 * planning (recover.ts). The step fails; its dependents are skipped.
 */
function unresolved(diagnostics: Diagnostic[]): StepResult {
  return { ok: false, diagnostics: hasErrors(diagnostics) ? diagnostics : [...diagnostics, { severity: "error", summary: "The outcome of this write is unknown", code: engineCode("in-flight-unresolved") }] };
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
  }
  else if (deposed !== null) await restore(ctx, address, deposed);
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
    return { ok: false, diagnostics: [ctx.cycles.unsettled(step, ctx.stack.resources.get(parseStateAddress(address).address)!, attributes, prepared.planned!)] };
  }
  const status: InFlightStatus = placeholder ? "reverting" : "updating";
  // The provider sees the prior it planned against (sealed values it can match are unsealed).
  const result = await callProvider(ctx, () => ctx.provider.update(change.type, prepared.prior ?? prior, prepared.planned!, writeContext(ctx, step, address, status)));
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
  const remaining = failed ? result.state ?? prior : result.state;
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
    return fail(step, `${address} is no longer the object the plan imported`, `The plan imported uid ${shownUid}; the host now holds uid ${uid ?? "(none)"} under that id.`, "Plan again.");
  }
  await ctx.store.putResource(address, stateInput(imported.state, "ready", recordContext(ctx, address, null)));
  ctx.current.set(address, imported.state.attributes);
  return { ok: true, diagnostics: imported.diagnostics, ...(uid ? { uid } : {}) };
}

export async function runStep(ctx: StepContext, step: PlanStep): Promise<StepResult> {
  const change = ctx.changes.get(step.address);
  if (change === undefined) return fail(step, `The plan has no change for ${step.address}`, `Step ${step.id} names an address without a resource change.`, "The plan file is damaged; plan again.");
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
    case "resume":
      return fail(step, "A resume step cannot be part of a plan", "Interrupted writes are resolved before planning.", "Plan again.");
  }
}
