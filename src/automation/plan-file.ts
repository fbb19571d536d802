// A saved plan file of one stack, as `apply({ planFile })` applies it (and `takoform apply FILE`):
// read and decoded, its stack loaded from the document the file carries (the app is not run
// again), checked against the stack the Workspace names and the sensitive variables it is given
// now, and its state's password taken from the stack file it was made from (a plan file carries
// none).

import type { Diagnostic } from "../core/index.ts";
import { checkSensitiveVariables, engineCode, type SavedPlan } from "../engine/index.ts";
import type { LoadedStack } from "./project.ts";
import { decodedFile, readSavedPlan, type SavedPlanFile } from "./saved-plan.ts";
import { restoreConnStr } from "./state-access.ts";

/** The plan `file` holds (read now, or as `Workspace.readPlan` read it), when it is a plan of one stack; else why not, as diagnostics. */
export async function readOneStackPlan(file: string | SavedPlanFile): Promise<SavedPlan | { diagnostics: Diagnostic[] }> {
  const read = typeof file === "string" ? await readSavedPlan(file) : file;
  const decoded = decodedFile(read);
  if (decoded === undefined) return { diagnostics: read.ok ? [notRead(read.file)] : read.diagnostics };
  if ("one" in decoded) return decoded.one;
  return {
    diagnostics: [
      {
        severity: "error",
        code: engineCode("plan-file-stacks-mismatch"),
        summary: `${read.file} is a saved plan of several stacks (${decoded.several.order.join(", ")})`,
        detail: "A Workspace applies one stack. Nothing was applied.",
        repair: `Apply it with \`takoform apply ${read.file}\`, which applies each stack in dependency order.`,
      },
    ],
  };
}

/** `planFile` given as an object `Workspace.readPlan` did not return. */
export function notRead(file: string): Diagnostic {
  return {
    severity: "error",
    code: engineCode("plan-file-invalid"),
    summary: `The saved plan ${file} was not read by Workspace.readPlan`,
    detail: "`planFile` takes a file name, or what `Workspace.readPlan(file)` returned. Nothing was applied.",
    repair: "Pass the file name, or the result of `Workspace.readPlan(file)` itself.",
  };
}

/** `apply FILE` of one stack's saved plan with several stacks named: the file would be set aside. */
export function oneStackFileNamed(file: string, patterns: readonly string[]): Diagnostic {
  return {
    severity: "error",
    code: engineCode("plan-file-stacks-mismatch"),
    summary: `${file} is a saved plan of one stack, not of the stacks ${patterns.join(", ")}`,
    detail: "Nothing was applied.",
    repair: `Apply the file alone (takoform apply ${file}), or save a plan of those stacks (takoform plan ${patterns.join(" ")} --out FILE) and apply that.`,
  };
}

/** `apply FILE --stack NAME` with a saved plan of several stacks: a part of what was planned would apply. */
export function severalStacksFileNamed(file: string, order: readonly string[], patterns: readonly string[]): Diagnostic {
  return {
    severity: "error",
    code: engineCode("plan-file-stacks-mismatch"),
    summary: `${file} is a saved plan of several stacks (${order.join(", ")}), applied whole; ${patterns.join(", ")} cannot be picked from it`,
    detail: "Nothing was applied.",
    repair: `Apply the file alone (takoform apply ${file}), or plan the stacks you want into a file of their own (takoform plan ${patterns.join(" ")} --out FILE).`,
  };
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
