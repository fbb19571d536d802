// The plan engine's own diagnostic codes, `takoform.engine/<name>`. Provider and configuration
// problems keep their own codes (`takoform.provider/…`, `takoform.config/…`).

export const ENGINE_CODES = [
  "unknown-resource-type",
  "evaluation-failed",
  "invalid-reference",
  "contribution-conflict",
  "cycle",
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
  "internal",
] as const;

export type EngineCodeName = (typeof ENGINE_CODES)[number];

export function engineCode(name: EngineCodeName): `takoform.engine/${EngineCodeName}` {
  return `takoform.engine/${name}`;
}
