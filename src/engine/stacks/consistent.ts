// Whether a stack's plan, made again once the stacks it reads from have applied, stays within the
// plan that was shown and approved (docs/stacks.md). The re-plan fills in what was only known
// after another stack's apply: a change may then turn out to be no change at all, but a change the
// shown plan did not have — another resource, another action — was never approved, and the
// stack is not applied.

import type { Diagnostic } from "../../core/index.ts";
import { engineCode } from "../codes.ts";
import type { Plan, ResourceChange } from "../plan-data.ts";

const key = (change: ResourceChange): string => change.address;
const changes = (change: ResourceChange): boolean => !(change.actions.length === 1 && (change.actions[0] === "no-op" || change.actions[0] === "read"));

/** The changes of `replanned` the `shown` plan did not have, as one refusal; empty when it stays within it. */
export function replanDifferences(stack: string, shown: Plan, replanned: Plan): Diagnostic[] {
  const before = new Map(shown.resourceChanges.map((c) => [key(c), c.actions.join(",")]));
  const differences: string[] = [];
  for (const change of replanned.resourceChanges) {
    if (!changes(change)) continue;
    const was = before.get(key(change));
    const now = change.actions.join(",");
    if (was === now) continue;
    differences.push(
      was === undefined || was === "no-op" ? `${key(change)}: ${now} (not in the plan shown)` : `${key(change)}: ${now} (the plan shown: ${was})`,
    );
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
