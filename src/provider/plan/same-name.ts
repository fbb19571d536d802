// ModifyPlan step 4: a revision replaced under the name it already holds can complete in neither
// order (decision 0029 rule 4; reference §3.5): destroy-then-create fails the destroy with
// dependency_in_use while a live relation holds the revision, and create-before-destroy fails the
// create with invalid_argument because the name is still taken. Nothing would be mutated and no
// later plan would repair it, so the plan refuses it. The relation-drift recovery replacement is
// exempt: it keeps the name by design and states its own remedy.

import { providerCode } from "../diagnostics/codes.ts";
import { planIdentity, type PlanPass } from "./state.ts";

export function planImmutableRevisionSafety(p: PlanPass): void {
  const codec = p.served.codec;
  if (codec.role !== "revision" || p.prior === null) return;
  if (!p.requiresReplace.some((a) => a !== "relation_drift_reason")) return;
  const name = p.planned["name"];
  if (typeof name !== "string" || name !== p.prior["name"]) return;
  const kind = codec.ref.kind;
  p.diagnostics.push({
    severity: "error",
    summary: "This immutable revision cannot be safely replaced under the same host name.",
    detail:
      `${kind} is a revision-role Form, so the host refuses every update to it and this change is a replacement. ` +
      `Replacing it under "${name}" completes in neither order: destroy-then-create fails the destroy with dependency_in_use (409) while a live relation still holds this revision, ` +
      "and create-before-destroy fails the create with invalid_argument (400) because the name is still taken. Nothing is mutated either way, and no later plan repairs it.",
    code: providerCode("immutable-revision-same-name"),
    ...planIdentity(p),
    name,
    pointer: "/metadata/name",
    repair: "Use a new revision name or the official worker-app module.",
  });
}
