// src/engine/cycles — RFC 0011: deploying, settling, replacing and destroying resources that
// depend on each other through contributions. See docs/cycles.md.
//
//   placeholderCycles   the CycleResolver the engine plans with by default (resolver.ts)
//   SettleTracker       apply-time: the last settle pass and the output that never settles
//   placeholderFromRecord / recordedFields   reverting a member the configuration no longer declares

export { placeholderCycles } from "./resolver.ts";
export { SettleTracker } from "./settle.ts";
export { placeholderFromRecord, recordedFields } from "./placeholder-state.ts";
export { contributedFields, placeholderEligibility, fieldsMayBeDropped, type Eligibility } from "./eligibility.ts";
