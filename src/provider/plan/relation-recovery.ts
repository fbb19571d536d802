// ModifyPlan step 1: relation-drift recovery (decision 0015 rule 9; reference §4.5). A refresh
// that found a drifted relation recorded `relation_drift_reason`. The plan predicts it cleared,
// which makes the plan non-empty, and picks the one apply that is reachable:
// - a Form that declares update gets a spec-identical in-place update; the host re-resolves and
//   re-pins every relation on any accepted mutation, even a byte-identical one;
// - a Form without update gets a REPLACEMENT, because a host refuses every apply to an existing
//   resource of such a Form. This holds even where a host would accept a spec-identical apply:
//   the seed states the rule from the Form's capability, and a replacement is its cost — a
//   WorkerEndpoint, for instance, comes back as a new resource with a new address.

import { addReplace, type PlanPass } from "./state.ts";

export function planRelationRecovery(p: PlanPass): void {
  if (p.prior === null) return;
  const reason = p.prior["relation_drift_reason"];
  if (typeof reason !== "string" || reason === "") return;
  p.planned["relation_drift_reason"] = null;
  if (p.served.codec.declaresUpdate) return;
  addReplace(p, "relation_drift_reason");
}
