// Whether a stack's plan, made again once the stacks it reads from have applied, stays within the
// plan that was shown and approved (docs/stacks.md). The re-plan fills in what was only known
// after another stack's apply: a change may then turn out to be no change at all, but a change the
// shown plan did not have — another resource, another action, or a planned value other than the
// one shown — was never approved, and the stack is not applied.
//
// "Within" for values: where the shown plan had a value only known after apply, the re-plan may
// put anything; everywhere else it must plan exactly the value shown. A saved plan keeps the
// values at sensitive paths as seals (plan/file.ts), so there the re-planned value is compared with
// the seal, never the other way round: nothing secret is unsealed to compare it.

import { type AttributePath, isUnknown, type Diagnostic, type Value } from "../../core/index.ts";
import { isSealedSensitive, sensitiveValuesEqual } from "../../secrets/index.ts";
import { engineCode } from "../codes.ts";
import type { Plan, ResourceChange } from "../plan-data.ts";

const key = (change: ResourceChange): string => change.address;
const changes = (change: ResourceChange): boolean => !(change.actions.length === 1 && (change.actions[0] === "no-op" || change.actions[0] === "read"));

/** The first path at which `now` is not within `shown` (null: it is), comparing seals by their salt. */
function divergence(shown: Value, now: Value, salt: string, path: AttributePath = []): AttributePath | null {
  if (isUnknown(shown)) return null;
  if (isSealedSensitive(shown)) return sensitiveValuesEqual(shown, now, salt) ? null : path;
  if (Array.isArray(shown)) {
    if (!Array.isArray(now) || now.length !== shown.length) return path;
    for (let i = 0; i < shown.length; i++) {
      const at = divergence(shown[i]!, now[i]!, salt, [...path, i]);
      if (at !== null) return at;
    }
    return null;
  }
  if (shown !== null && typeof shown === "object") {
    if (now === null || typeof now !== "object" || Array.isArray(now) || isUnknown(now)) return path;
    const keys = new Set([...Object.keys(shown), ...Object.keys(now)]);
    for (const k of keys) {
      if (!Object.hasOwn(shown, k) || !Object.hasOwn(now, k)) return [...path, k];
      const at = divergence(shown[k]!, now[k]!, salt, [...path, k]);
      if (at !== null) return at;
    }
    return null;
  }
  return shown === now ? null : path;
}

const spelled = (path: AttributePath): string => path.map((step, i) => (typeof step === "number" ? `[${step}]` : i === 0 ? step : `.${step}`)).join("");

/** How `change` leaves the shown one (`was`, undefined: not in the plan shown); null when it stays within it. */
function difference(was: ResourceChange | undefined, change: ResourceChange, salt: string): string | null {
  const now = change.actions.join(",");
  if (was === undefined || !changes(was)) return `${key(change)}: ${now} (not in the plan shown)`;
  const then = was.actions.join(",");
  if (then !== now) return `${key(change)}: ${now} (the plan shown: ${then})`;
  if (was.after === null || change.after === null) return was.after === change.after ? null : `${key(change)}: ${now} with other planned values`;
  const at = divergence(was.after, change.after, salt);
  // The attribute is named, never its value: it may be sensitive.
  return at === null ? null : `${key(change)}: ${now}, planning ${at.length === 0 ? "other values" : `another ${spelled(at)}`} than the plan shown`;
}

/** The changes of `replanned` the `shown` plan did not have, as one refusal; empty when it stays within it. */
export function replanDifferences(stack: string, shown: Plan, replanned: Plan): Diagnostic[] {
  const before = new Map(shown.resourceChanges.map((c) => [key(c), c]));
  const differences: string[] = [];
  for (const change of replanned.resourceChanges) {
    if (!changes(change)) continue;
    const found = difference(before.get(key(change)), change, shown.stateLineage);
    if (found !== null) differences.push(found);
  }
  if (differences.length === 0) return [];
  return [
    {
      severity: "error",
      code: engineCode("stack-plan-changed"),
      summary: `The plan of stack "${stack}" changed once the stacks it reads from had applied`,
      detail: `Planned again with their applied values, it holds changes the plan shown did not: ${differences.join("; ")}. Nothing of this stack was applied.`,
      repair: `Review the new plan: run \`takoform plan ${stack}\`, then apply it.`,
    },
  ];
}
