// Finishing what a killed apply left in flight. Every record with an unsettled intent is resolved
// through `provider.resumeWrite`, which re-sends the exact recorded request: the host replays it
// by Idempotency-Key when it had committed it, or executes it when it never arrived. The outcome
// is settled like any step's. Nothing is adopted by name and nothing is guessed.
//
// A resume that cannot reach a conclusion (the provider throws, or reports the re-send unresolved:
// the host is unreachable) leaves the intent in place and stops the apply: planning over an
// unresolved write could duplicate it. Writes an earlier apply sent without getting an answer are
// finished here the same way as writes a killed apply left.

import { type Diagnostic, hasErrors, located } from "../../core/index.ts";
import type { AttributePath, Provider, ResourceState } from "../../provider/index.ts";
import { parseStateAddress, type InFlightRecord, type ResourceRecord, type SettledStatus, type StateStore } from "../../state/index.ts";
import { engineCode } from "../codes.ts";
import { mapBounded, parallelismOf } from "../dag.ts";
import { openIntent, sealedAttributePaths } from "../../secrets/index.ts";
import type { ResolvedVariables } from "../config/variables/resolve.ts";
import { sealedIntentDiagnostic, sensitiveLookup } from "./sealed-intent.ts";
import type { ProgressSink } from "../events.ts";
import { stateInput } from "./records.ts";

export interface RecoverInput {
  provider: Provider;
  store: StateStore;
  /** `--parallelism N`; without it, the provider's adaptive limit or the default (dag.ts parallelismOf). */
  parallelism?: number;
  /**
   * What the configuration says about an address, to record with the settled result: its
   * dependencies and contribution edges, and the attributes to seal (empty when unconfigured).
   */
  dependenciesOf(address: string): { dependencies: string[]; contributions: { from: string; fields: string[] }[]; sensitivePaths: AttributePath[] };
  progress?: ProgressSink;
  /**
   * This run's variables: an intent sealed because sensitive variables flowed into its request is
   * opened with their values (src/secrets/intent.ts). Without them a sealed intent is not resumed.
   */
  variables?: ResolvedVariables;
}

export interface RecoverResult {
  resolved: number;
  /** Problems of the interrupted writes themselves; errors here are downgraded to warnings once settled. */
  diagnostics: Diagnostic[];
  /** True when every in-flight record was settled. */
  ok: boolean;
}

/** What the settled record's status is after the write the intent describes. */
function statusAfter(record: InFlightRecord): SettledStatus {
  const step = record.intent.stepId;
  if (step.startsWith("create-placeholder:") || step.startsWith("revert:")) return "placeholder";
  return "ready";
}

export async function resolveInFlight(input: RecoverInput): Promise<RecoverResult> {
  const records = await input.store.inFlight();
  const diagnostics: Diagnostic[] = [];
  let ok = true;
  await mapBounded(records, records.length === 0 ? 1 : await parallelismOf(input.parallelism, input.provider), async (record) => {
    const { intent } = record; // an in-flight record carries exactly one
    // A sealed intent opens only with the sensitive values it was sent with; otherwise it stays
    // in state untouched and the apply stops, naming the variables to supply.
    const opened = openIntent(intent.write, record.address, input.store.lineage, sensitiveLookup(input.variables));
    if ("refused" in opened) {
      ok = false;
      diagnostics.push(sealedIntentDiagnostic(opened.refused, intent.write, record.address));
      return;
    }
    const write = opened.write;
    input.progress?.({ kind: "resume", address: record.address, operation: write.operation });
    const prior: ResourceState | null = Object.keys(record.attributes).length > 0 ? { type: record.type, attributes: record.attributes } : null;
    const unresolved = (cause: string): void => {
      ok = false;
      diagnostics.push({
        severity: "error",
        code: engineCode("in-flight-unresolved"),
        summary: `The interrupted ${intent.write.operation} of ${record.address} could not be resolved`,
        detail: `The write was recorded (step ${intent.stepId}, ${intent.at}) but its outcome was not, and re-sending it did not conclude. State keeps the intent, so the next run tries again; nothing is planned until it is resolved.`,
        cause,
        address: record.address,
        resourceType: record.type,
        repair: "Check that the host is reachable with the same credentials, then run `takoform apply` again.",
      });
      input.progress?.({ kind: "resumed", address: record.address, ok: false });
    };
    let result;
    try {
      result = await input.provider.resumeWrite(write, prior);
    } catch (error) {
      unresolved(error instanceof Error ? error.message : String(error));
      return;
    }
    // The re-send got no answer either: the intent stays, exactly as it was.
    if (result.unresolved === true) {
      unresolved(result.diagnostics.map((d) => d.cause ?? d.summary).join("; "));
      return;
    }
    const own = located(result.diagnostics, record.address, record.type);
    const config = input.dependenciesOf(record.address);
    const keepPrior = result.state === null && hasErrors(own) && intent.write.operation !== "create" && prior !== null;
    const settledState = keepPrior ? prior : result.state;
    await input.store.settle(
      record.address,
      settledState === null
        ? null
        : stateInput(settledState, statusAfter(record), {
            dependencies: config.dependencies.length > 0 || prior === null ? config.dependencies : record.dependencies,
            contributions: config.contributions,
            // Sealed before: sealed again; fed by a sensitive variable now: sealed too.
            sensitivePaths: [...config.sensitivePaths, ...sealedAttributePaths(record.attributes)],
            lineage: input.store.lineage,
          }),
    );
    // Settled: the state is consistent again, so a failed write is reported, not fatal; the plan
    // that follows starts from what the host actually holds.
    diagnostics.push(...own.map((d) => (d.severity === "error" ? { ...d, severity: "warning" as const, summary: `Interrupted write: ${d.summary}` } : d)));
    input.progress?.({ kind: "resumed", address: record.address, ok: !hasErrors(own) });
  });
  return { resolved: records.length, diagnostics, ok };
}

/**
 * Moving an object to a deposed address is two writes (put the copy, remove the original), and
 * so is moving it back. A crash between them leaves the same incarnation (same uid) under both
 * addresses; the current address is the truth in both directions, so the copy is dropped.
 * `listed` is state as just read (saves listing it again); it must have no write in flight.
 */
export async function dropDuplicateDeposed(store: StateStore, listed?: readonly ResourceRecord[]): Promise<string[]> {
  const records = listed ?? (await store.list());
  const byAddress = new Map(records.map((r) => [r.address, r]));
  const dropped: string[] = [];
  for (const record of records) {
    const { address: base, deposed } = parseStateAddress(record.address);
    if (deposed === null || record.intent !== null || record.uid === null) continue;
    const current = byAddress.get(base);
    if (current !== undefined && current.uid === record.uid) {
      await store.removeResource(record.address);
      dropped.push(record.address);
    }
  }
  return dropped;
}
