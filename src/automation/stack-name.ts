// The name of a stack of a manifest app whose document carries none (docs/stacks.md, "One state
// per stack"). cdktf always writes `//.metadata.stackName`, but a hand-written or older-tool app
// may not: without a name, every such stack would fall back to the project's one
// `.takoform/state.db` and each would destroy the others' resources. So a stack the manifest lists
// takes its manifest key as its name; a document whose own name disagrees with that key is refused
// rather than silently choosing one of them.

import { resolve } from "node:path";
import type { Diagnostic } from "../core/index.ts";
import { configCode, type AppStacks, type StackConfig } from "../engine/config/index.ts";

/**
 * Names `stack` by the manifest key of `file` in `app` when its document names none; a refusal
 * when the document's name is another. Nothing happens for a file the manifest does not list (a
 * lone `--config` document keeps its behaviour).
 */
export function nameFromManifest(stack: StackConfig, file: string | undefined, app: AppStacks | null): Diagnostic | null {
  if (file === undefined || app === null) return null;
  const where = resolve(file);
  const key = [...app.stacks].find(([, path]) => resolve(path) === where)?.[0];
  if (key === undefined) return null;
  if (stack.stackName === undefined) {
    stack.stackName = key;
    return null;
  }
  if (stack.stackName === key) return null;
  return {
    severity: "error",
    code: configCode("stack-name-mismatch"),
    summary: `The stack "${key}" of the app's manifest names itself "${stack.stackName}"`,
    detail: `${file} records //.metadata.stackName "${stack.stackName}", but manifest.json lists it as stack "${key}". Its state would be chosen by one of the two names; nothing was read or written.`,
    repair: "Re-run the synthesis (`takoform synth`) so the manifest and the stack's document agree, or correct the one written by hand.",
  };
}
