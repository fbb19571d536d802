// The refresh phase (in memory): every record read back from the host, and what changed there
// since it was recorded (drift). Nothing is written; an apply records the drift.

import { parseStateAddress } from "../../../state/index.ts";
import { holdsSeals, sealedAttributePaths } from "../../../secrets/index.ts";
import { relationDependencies, unionDependencies } from "../../dependencies.ts";
import { recordState, refreshRecords, sameAsRecorded } from "../../refresh.ts";
import type { PlanContext } from "../context.ts";

export async function refresh(ctx: PlanContext): Promise<void> {
  const { state, provider } = ctx;
  for (const record of state.records) {
    const recorded = record.intent === null || Object.keys(record.attributes).length > 0 ? recordState(record) : null;
    ctx.priors.set(record.address, recorded);
  }
  const targeted = ctx.targetedState;
  const refreshable = state.records.filter((r) => r.intent === null && (targeted === null || targeted.has(r.address)));
  if (ctx.options.refresh === false || refreshable.length === 0) return;
  const refreshed = await refreshRecords(provider, refreshable, await ctx.parallelism(), { asRecorded: { lineage: state.lineage } });
  for (const d of refreshed.diagnostics) ctx.diagnostics.append([d], d.address);
  if (ctx.diagnostics.hasErrors()) return;
  for (const record of refreshable) {
    const now = refreshed.states.get(record.address) ?? null;
    // What refresh found unchanged is planned from the record itself, so the refreshed copy
    // (and the response it was read from) is garbage at once instead of living through the
    // plan and the apply; refreshRecords swapped it for the record's state as each read returned.
    // A record with sealed values keeps the refreshed copy, which may hold the value in the
    // clear that the plan compares configuration against.
    const unchanged = refreshed.unchanged.has(record.address) || (now !== null && sameAsRecorded(record.attributes, now.attributes, state.lineage));
    ctx.priors.set(record.address, unchanged && !holdsSeals(record.attributes) ? recordState(record) : now);
    if (unchanged) continue;
    // What state keeps sealed is a secret: the refreshed value there is hidden when drift is shown.
    const sensitivePaths = sealedAttributePaths(record.attributes);
    const base = {
      address: record.address,
      type: record.type,
      name: parseStateAddress(record.address).address.split(".").slice(1).join("."),
      replacePaths: [],
      replaceReasons: [],
      sensitivePaths,
    };
    if (now === null) ctx.drift.push({ ...base, actions: ["delete"], before: record.attributes, after: null });
    else ctx.drift.push({ ...base, actions: ["update"], before: record.attributes, after: now.attributes });
  }
  refreshed.states.clear(); // what is still needed is in `priors`
  // What the host reports now: relations that changed since they were recorded order deletes too.
  const moved = ctx.drift.filter((d) => d.after !== null).map((d) => ({ address: d.address, type: d.type, attributes: d.after! }));
  if (moved.length > 0) ctx.stateDependencies = unionDependencies(ctx.stateDependencies, relationDependencies(provider, moved, state.records));
}
