// `workspace.state.adopt()` (`takoform state adopt --stack NAME`): the stack takes the project's
// state from before stacks had their own (`.takoform/state.db`, or
// `.takoform/workspaces/<workspace>/state.db`), when which stack owns it cannot be told by itself
// (docs/stacks.md, "A project from before"). The file records the stack from then on (it is
// claimed, not moved), and the project's `.takoform/backend.json` names it too. Nothing on the
// host is read or changed.

import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Diagnostic } from "../core/index.ts";
import { engineCode } from "../engine/index.ts";
import { loadProjectConfig } from "../engine/config/index.ts";
import { openLocalState, stackDir, workspaceOf } from "../state/index.ts";
import { legacyRecordPath, readRecordAt, stateFileInUse, writeBackendRecord } from "./backend-record.ts";
import { legacyStatePath } from "./legacy-state.ts";

export interface AdoptOutcome {
  status: "adopted" | "refused" | "not-started";
  /** The state file adopted (empty when none was found). */
  state: string;
  diagnostics: Diagnostic[];
}

function refusal(summary: string, detail: string | undefined, repair: string): Diagnostic {
  return { severity: "error", summary, ...(detail !== undefined ? { detail } : {}), repair };
}

export async function adoptState(dir: string, stack: string, how: { typecheck?: boolean; env: NodeJS.ProcessEnv }): Promise<AdoptOutcome> {
  const loaded = await loadProjectConfig(dir, { stack, ...(how.typecheck !== undefined ? { typecheck: how.typecheck } : {}) });
  if (loaded.config === null) return { status: "not-started", state: "", diagnostics: loaded.diagnostics };
  const refused = (diagnostic: Diagnostic, state = ""): AdoptOutcome => ({ status: "refused", state, diagnostics: [diagnostic] });
  let workspace: string;
  try {
    workspace = workspaceOf(how.env);
  } catch (error) {
    return refused(refusal("The workspace name cannot be used", (error as Error).message, "Fix TAKOFORM_WORKSPACE / TF_WORKSPACE."));
  }
  const file = legacyStatePath(dir, workspace);
  if (!existsSync(file))
    return refused(
      refusal(
        `There is no state from before stacks had their own: ${file} does not exist`,
        undefined,
        "Nothing to adopt: every stack uses a state of its own.",
      ),
    );
  const own = join(stackDir(dir, stack), workspace === "default" ? "state.db" : join("workspaces", workspace, "state.db"));
  if (await stateFileInUse(own))
    return refused(
      refusal(
        `Stack "${stack}" already has a state of its own (${own})`,
        `Adopting ${file} would hide it; nothing was changed.`,
        "Adopt it for the stack whose resources it holds, or move that stack's own state aside first.",
      ),
      file,
    );
  const store = openLocalState(file);
  let recorded: string;
  try {
    recorded = await store.claimStack(stack);
  } finally {
    await store.close();
  }
  if (recorded !== stack)
    return refused(
      {
        severity: "error",
        code: engineCode("stack-mismatch"),
        summary: `${file} already belongs to stack "${recorded}"`,
        detail: "A state records the one stack it belongs to; nothing was changed.",
        repair: `Run the commands of stack "${recorded}" against it; stack "${stack}" keeps a state of its own.`,
      },
      file,
    );
  // The project's record belongs to the adopting stack from now on.
  const record = readRecordAt(legacyRecordPath(dir));
  if (record !== null && record.stack === null) writeBackendRecord({ projectDir: dir, stack, legacy: true }, record.backend);
  return { status: "adopted", state: file, diagnostics: loaded.diagnostics };
}
