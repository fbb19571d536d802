// Turning provider state into what the state store records: sensitive values sealed, the
// dependencies and contribution edges of the resource's configuration attached.

import type { Attributes, KnownValue } from "../../core/index.ts";
import type { AttributePath, ResourceState } from "../../provider/index.ts";
import { sealAttributes } from "../../secrets/index.ts";
import type { ContributionEdge, ResourceInput, ResourceRecord, SettledStatus } from "../../state/index.ts";

export interface RecordContext {
  dependencies: readonly string[];
  contributions: readonly ContributionEdge[];
  sensitivePaths: readonly AttributePath[];
  lineage: string;
}

export function stateInput(state: ResourceState, status: SettledStatus, context: RecordContext): ResourceInput {
  return {
    type: state.type,
    status,
    // The store refuses an unknown anywhere, naming the path: a provider must return known state.
    attributes: sealAttributes(state.attributes as Record<string, KnownValue>, context.sensitivePaths, context.lineage),
    dependencies: context.dependencies,
    contributions: context.contributions,
  };
}

/** A settled record written back as it was (e.g. moved to a deposed address). */
export function recordInput(record: ResourceRecord, attributes: Attributes = record.attributes): ResourceInput {
  return {
    type: record.type,
    status: record.status === "placeholder" ? "placeholder" : "ready",
    attributes: attributes as Record<string, KnownValue>,
    dependencies: record.dependencies,
    contributions: record.contributions,
  };
}
