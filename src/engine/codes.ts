// The plan engine's part of the one table of diagnostic codes (core/diagnostics/codes.ts),
// `takoform.engine/<name>`. Provider and configuration problems keep their own codes
// (`takoform.provider/…`, `takoform.config/…`).

import { defineCodes } from "../core/index.ts";

const engineCodes = defineCodes("engine", [
  "unknown-resource-type",
  "evaluation-failed",
  "invalid-reference",
  "contribution-conflict",
  "cycle",
  "cycle-unsettled",
  "cycle-member-unavailable",
  "prevent-destroy",
  "revision-replacement-blocked",
  "inconsistent-final-plan",
  "step-failed",
  "step-skipped",
  "refresh-failed",
  "in-flight-unresolved",
  "in-flight-pending",
  "in-flight-sealed",
  "import-target-undeclared",
  "import-already-managed",
  "import-failed",
  "target-unknown",
  "targeting-in-effect",
  "applied-changes-incomplete",
  "replace-unmatched",
  "move-source-missing",
  "move-target-exists",
  "move-in-flight",
  "move-invalid",
  "plan-file-invalid",
  "plan-file-stale",
  "plan-file-variable-mismatch",
  "state-locked",
  "lock-taken-over",
  "lease-lost",
  "host-mismatch",
  "host-bound",
  "lane-mismatch",
  "rebind-unverified",
  "rebind-in-flight",
  "upgrade-lane-in-flight",
  "upgrade-lane-unverified",
  "duplicate-host-object",
  "object-already-managed",
  "backend-changed",
  "backend-unavailable",
  "migrate-refused",
  "push-refused",
  "internal",
]);

export const ENGINE_CODES = engineCodes.names;
export type EngineCodeName = (typeof ENGINE_CODES)[number];
export const engineCode = engineCodes.code;
