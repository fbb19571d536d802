// The write's own checks at plan, for a Form that is not artifact-backed (an artifact-backed
// revision runs them in ModifyPlan step 2, bundle.ts, since its digest decides the rest of the
// plan). Run only for a planned write: a no-op sends nothing, so nothing of it can be refused.
// The checks are the apply's (write-checks.ts): the timeout and the spec's projection, in "plan"
// mode, where a value not yet known only leaves the spec unresolved.

import { checkWrite } from "../write-checks.ts";
import { planIdentity, type PlanPass } from "./state.ts";

export async function planWriteChecks(p: PlanPass): Promise<void> {
  const codec = p.served.codec;
  if (codec.artifactBacked) return;
  const { diagnostics } = await checkWrite(codec, p.planned, p.prior === null ? "create_timeout" : "update_timeout", "plan");
  if (diagnostics.length === 0) return;
  const identity = planIdentity(p);
  p.diagnostics.push(...diagnostics.map((d) => ({ ...identity, ...d })));
}
