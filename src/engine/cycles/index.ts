// src/engine/cycles — RFC 0011: deploying, settling, replacing and destroying resources that
// depend on each other through contributions. See docs/cycles.md.
//
//   CycleResolver       the seam where cycle resolution plugs into planning (seam.ts)
//   placeholderCycles   the CycleResolver the engine plans with by default (resolver.ts)
//   refuseCycles        the one that breaks no loop: every loop is a plan error (refusal.ts)
//   SettleTracker       apply-time: the last settle pass and the output that never settles
//   placeholderFromRecord / recordedFields   reverting a member the configuration no longer declares

export type { CycleRequest, CycleResolution, CycleResolver, CycleSteps } from "./seam.ts";
export { placeholderCycles } from "./resolver.ts";
export { refuseCycles, cycleDiagnostic } from "./refusal.ts";
export { SettleTracker } from "./settle.ts";
export { placeholderFromRecord, recordedFields } from "./placeholder-state.ts";
export { contributedFields, placeholderEligibility, fieldsMayBeDropped, type Eligibility } from "./eligibility.ts";
