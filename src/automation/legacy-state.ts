// Which stack owns a project's state from before stacks had their own (docs/stacks.md, "A
// project from before"). Until then every stack of a project used `.takoform/state.db` (other
// workspaces: `.takoform/workspaces/<name>/state.db`) and `.takoform/backend.json`; that layout now
// belongs to one stack, which keeps using it, while every other stack gets its own under
// `.takoform/stacks/<stack>/`. The owner is, in this order:
//
// 1. the stack the legacy state file records (a stack claims it the first time it opens it for
//    writing; `takoform state adopt --stack NAME` claims it by hand);
// 2. the stack `.takoform/backend.json` records;
// 3. when neither records one and that layout holds anything (the state file's serial moved, or
//    the record exists): the app's only stack; of an app of several, the one stack that declares a
//    resource the legacy state file records, or — when it records none — the one stack whose
//    backend is the one `.takoform/backend.json` records.
//
// Several stacks declaring its resources is ambiguous: their commands are refused
// (`takoform.engine/legacy-state-ambiguous`) until one adopts it. No stack declaring any of them
// leaves it to nobody, with a warning that says so.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Diagnostic } from "../core/index.ts";
import { engineCode } from "../engine/index.ts";
import type { StackOutline } from "../engine/config/index.ts";
import { backendIdentity, openLocalStateReadOnly, parseStateAddress, resolveBackend, sameIdentity, type BackendConfig } from "../state/index.ts";
import { legacyRecordPath, readRecordAt } from "./backend-record.ts";

/** The stacks of the app a command runs in, as far as it knows them. */
export interface AppView {
  /** Every stack of the app, in name order (a `--config` stack outside an app: itself alone). */
  names: readonly string[];
  /** A stack's outline (its backend and the addresses it declares); null when its file does not read. */
  outline(name: string): Promise<StackOutline | null>;
}

export interface LegacyOwnership {
  /** The stack that owns the older layout; null when none does (or it cannot be told). */
  owner: string | null;
  /** The stacks that each declare resources of the legacy state, when there are several. */
  ambiguous: string[];
  /** How many resources the legacy state records that no stack declares, when no stack claims it. */
  unclaimed: number;
}

/** The legacy state file of a workspace. */
export function legacyStatePath(projectDir: string, workspace: string): string {
  return workspace === "default" ? join(projectDir, ".takoform", "state.db") : join(projectDir, ".takoform", "workspaces", workspace, "state.db");
}

/** Who owns the project's older layout, for the workspace a command uses. */
export async function legacyOwnership(projectDir: string, workspace: string, app: AppView): Promise<LegacyOwnership> {
  const none: LegacyOwnership = { owner: null, ambiguous: [], unclaimed: 0 };
  const file = legacyStatePath(projectDir, workspace);
  let addresses: string[] = [];
  let inUse = false;
  if (existsSync(file)) {
    const reader = openLocalStateReadOnly(file);
    try {
      const recorded = await reader.stack();
      if (recorded !== null) return { ...none, owner: recorded };
      inUse = (await reader.serial()) > 0;
      addresses = (await reader.list()).map((r) => parseStateAddress(r.address).address);
    } finally {
      await reader.close();
    }
  }
  const record = readRecordAt(legacyRecordPath(projectDir));
  if (record?.stack) return { ...none, owner: record.stack };
  if (record === null && !inUse) return none;
  if (app.names.length === 1) return { ...none, owner: app.names[0]! };
  if (addresses.length > 0) {
    const recorded = new Set(addresses);
    const candidates: string[] = [];
    for (const name of app.names) {
      const outline = await app.outline(name);
      if (outline !== null && [...outline.addresses].some((a) => recorded.has(a))) candidates.push(name);
    }
    if (candidates.length === 1) return { ...none, owner: candidates[0]! };
    return candidates.length > 1 ? { ...none, ambiguous: candidates } : { ...none, unclaimed: recorded.size };
  }
  if (record === null) return none;
  const matching: string[] = [];
  for (const name of app.names) {
    const outline = await app.outline(name);
    if (outline !== null && sameIdentity(identityOf(outline.backend, projectDir, name), record.backend)) matching.push(name);
  }
  return matching.length === 1 ? { ...none, owner: matching[0]! } : none;
}

function identityOf(config: BackendConfig | null, projectDir: string, stackName: string) {
  try {
    return backendIdentity(config, resolveBackend(config, { projectDir, stackName, legacy: true, env: process.env }));
  } catch {
    return { type: "local" as const, path: "(unusable)" };
  }
}

export function ambiguousDiagnostic(stack: string, ownership: LegacyOwnership, projectDir: string, workspace: string): Diagnostic {
  const file = legacyStatePath(projectDir, workspace);
  return {
    severity: "error",
    code: engineCode("legacy-state-ambiguous"),
    summary: `Which stack owns the project's state from before stacks had their own cannot be told`,
    detail: `${file} records no stack, and the stacks ${ownership.ambiguous.map((s) => `"${s}"`).join(" and ")} each declare resources it records. Nothing was read or written for stack "${stack}".`,
    repair: `Adopt it for the stack whose resources it holds with \`takoform state adopt --stack NAME\` (one of ${ownership.ambiguous.join(", ")}); the other stacks then get a state of their own. docs/stacks.md says how to move records between them.`,
  };
}

export function unclaimedDiagnostic(ownership: LegacyOwnership, projectDir: string, workspace: string): Diagnostic {
  const file = legacyStatePath(projectDir, workspace);
  return {
    severity: "warning",
    code: engineCode("legacy-state-unclaimed"),
    summary: `The project's state from before stacks had their own belongs to no stack of this app`,
    detail: `${file} records ${ownership.unclaimed} resource${ownership.unclaimed === 1 ? "" : "s"} that no stack of the app declares, so every stack uses a state of its own and that file is left as it is: its objects stay on the host, managed by nobody.`,
    repair: "If one stack owns them (its resources were renamed), adopt the file for it with `takoform state adopt --stack NAME`, then plan.",
  };
}
