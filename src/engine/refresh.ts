// Refresh: read every recorded resource back through the provider (the pending-operation resume
// table, the UID rule and relation-drift warnings live in provider.read), with bounded
// parallelism. The result lives in memory; only `takoform refresh` and apply persist it.

import { type Diagnostic, hasErrors, type KnownValue, located } from "../core/index.ts";
import type { Provider, ResourceState } from "../provider/index.ts";
import type { ResourceRecord } from "../state/index.ts";
import { holdsSeals, sameAsStored } from "../secrets/index.ts";
import { mapBounded, type Parallelism } from "./dag.ts";
import { engineCode } from "./codes.ts";

export interface RefreshResult {
  /** State address → refreshed state; null when the host says the resource is gone. */
  states: Map<string, ResourceState | null>;
  diagnostics: Diagnostic[];
  /** Addresses whose read failed (their recorded state is kept in `states`). */
  failed: Set<string>;
  /**
   * With `asRecorded`: addresses the host answered as recorded (sameAsRecorded, no sealed value),
   * whose entry in `states` is the record's own state, not the copy read.
   */
  unchanged: Set<string>;
}

export interface RefreshOptions {
  /**
   * The state lineage (the key of sealed values): a read that finds the record unchanged keeps
   * the record's state in place of what was read, compared as each read returns. The copy read
   * (and the response it was decoded from) is then garbage at once: at 100,000 resources, holding
   * every copy until the last read returned kept a second set of attributes alive through the
   * whole refresh, and made the collector copy it out of the young generation.
   */
  asRecorded?: { lineage: string };
}

export function recordState(record: ResourceRecord): ResourceState {
  return { type: record.type, attributes: record.attributes };
}

/** Reads `records` (settled ones; in-flight records are resolved by apply, not refreshed). */
export async function refreshRecords(
  provider: Provider,
  records: readonly ResourceRecord[],
  parallelism: Parallelism,
  options: RefreshOptions = {},
): Promise<RefreshResult> {
  const states = new Map<string, ResourceState | null>();
  const diagnostics: Diagnostic[] = [];
  const failed = new Set<string>();
  const unchanged = new Set<string>();
  const lineage = options.asRecorded?.lineage;
  const results = await mapBounded(records, parallelism, async (record) => {
    try {
      const read = await provider.read(recordState(record));
      if (lineage === undefined || read.state === null || hasErrors(read.diagnostics) || holdsSeals(record.attributes)) return read;
      if (!sameAsRecorded(record.attributes, read.state.attributes, lineage)) return read;
      unchanged.add(record.address);
      return { ...read, state: recordState(record) };
    } catch (error) {
      return {
        state: recordState(record),
        diagnostics: [
          {
            severity: "error" as const,
            code: engineCode("refresh-failed"),
            summary: `Refreshing ${record.address} failed`,
            cause: error instanceof Error ? error.message : String(error),
            repair: "Check that the host is reachable and run the command again; state is unchanged.",
          },
        ],
      };
    }
  });
  records.forEach((record, i) => {
    const result = results[i]!;
    const own = located(result.diagnostics, record.address, record.type);
    diagnostics.push(...own);
    if (hasErrors(own)) {
      failed.add(record.address);
      states.set(record.address, recordState(record));
    } else {
      states.set(record.address, result.state);
    }
  });
  return { states, diagnostics, failed, unchanged };
}

/**
 * Whether refreshed attributes say the same as the record, where a sealed stored value equals
 * the plain value it seals (a host may hand a secret back in the clear).
 */
export function sameAsRecorded(recorded: Record<string, KnownValue>, refreshed: Record<string, unknown>, lineage: string): boolean {
  for (const name in recorded) {
    if (!sameAsStored(recorded[name] ?? null, (refreshed[name] ?? null) as KnownValue, lineage)) return false;
  }
  // Names only the refreshed side has: equal only when null (absent and null are the same).
  for (const name in refreshed) if (!Object.hasOwn(recorded, name) && (refreshed[name] ?? null) !== null) return false;
  return true;
}
