// The conditions projection (reference §8.1): the host's conditions in host order as a computed
// list, and `ready` derived from the first Ready condition. Both are written together, always —
// an absent status is an empty list, never null.

import type { KnownValue, WireResource } from "../../core/index.ts";

export interface ConditionsProjection {
  conditions: KnownValue[];
  ready: boolean;
}

function orNull(value: string | undefined): string | null {
  return value === undefined || value === "" ? null : value;
}

export function projectConditions(status: WireResource["status"] | undefined): ConditionsProjection {
  if (status === undefined || !Array.isArray(status.conditions)) return { conditions: [], ready: false };
  const observed = orNull(status.observedGeneration);
  const conditions = status.conditions.map((c) => ({
    type: c.type,
    status: c.status,
    reason: c.reason,
    message: orNull(c.message),
    host_reason: orNull(c.hostReason),
    observed_generation: observed,
    last_transition_time: orNull(c.lastTransitionTime),
  }));
  const firstReady = status.conditions.find((c) => c.type === "Ready");
  return { conditions, ready: firstReady?.status === "True" };
}
