// A saved plan file of one stack, as `apply({ planFile })` applies it (and `takoform apply FILE`):
// read and decoded, its stack loaded from the document the file carries (the app is not run
// again), checked against the stack the Workspace names and the sensitive variables it is given
// now, and its state's password taken from the stack file it was made from (a plan file carries
// none).

import type { Diagnostic } from "../core/index.ts";
import { checkSensitiveVariables, engineCode, PlanFileError, readAnyPlanFile, type SavedPlan } from "../engine/index.ts";
import type { LoadedStack } from "./project.ts";
import { restoreConnStr } from "./state-access.ts";

/** The plan `file` holds, when it is a plan of one stack; else why not, as diagnostics. */
export async function readOneStackPlan(file: string): Promise<SavedPlan | { diagnostics: Diagnostic[] }> {
  try {
    const read = await readAnyPlanFile(file);
    if ("one" in read) return read.one;
    return {
      diagnostics: [
        {
          severity: "error",
          code: engineCode("plan-file-stacks-mismatch"),
          summary: `${file} is a saved plan of several stacks (${read.several.order.join(", ")})`,
          detail: "A Workspace applies one stack. Nothing was applied.",
          repair: `Apply it with \`takoform apply ${file}\`, which applies each stack in dependency order.`,
        },
      ],
    };
  } catch (error) {
    if (error instanceof PlanFileError) return { diagnostics: error.diagnostics };
    throw error;
  }
}

/** Why the saved plan's stack is not the one the Workspace names (its `stack` option); undefined when it is, or when either is unnamed. */
export function otherStack(file: string, loaded: LoadedStack, named: string | undefined): Diagnostic | undefined {
  const planned = loaded.stack.stackName;
  if (named === undefined || planned === undefined || planned === named) return undefined;
  return {
    severity: "error",
    code: engineCode("plan-file-stacks-mismatch"),
    summary: `${file} is a saved plan of stack "${planned}", not of "${named}"`,
    detail: "Nothing was applied.",
    repair: `Apply it as it is (takoform apply ${file}), or save a plan of "${named}" (takoform plan ${named} --out FILE) and apply that.`,
  };
}

/** The sensitive variables given now against the seals the plan recorded; on a match, the stack ready to apply (its state's password restored). */
export function readyToApply(saved: SavedPlan, loaded: LoadedStack): Diagnostic[] {
  const mismatch = checkSensitiveVariables(saved, loaded.variables);
  if (mismatch.length > 0) return mismatch;
  loaded.state = restoreConnStr(loaded.state, saved.stackFile);
  return [];
}
