// Which of an app's stacks a `--stack NAME` picks, as every command that takes one picks them
// (engine/stacks/select.ts: a name, or a glob such as 'api-*'), with the same
// `takoform.config/stack-not-found` diagnostic when it picks none. `takoform synth --stack`
// reports through it, so a script meets one spelling of that problem whichever command it ran.
// synth imports it directly (views/index.ts would load the plan renderers too); the engine's
// facade it needs is one synth loads already, through the Workspace.

import type { Diagnostic } from "../core/index.ts";
import { selectStacks } from "../engine/index.ts";

/** The stacks of `names` that `pattern` picks, in name order; or why it picks none. */
export function chooseStacks(names: readonly string[], pattern: string): { selected: string[] } | { diagnostics: Diagnostic[] } {
  return selectStacks(names, [pattern]);
}
