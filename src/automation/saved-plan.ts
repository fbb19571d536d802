// A saved plan file as a program reads it (`Workspace.readPlan(file)`): read and decoded once,
// it says whether it plans one stack or several, holds each stack's plan as a PlanHandle (which
// the CLI's renderers show through engine/plan-handles.ts), and is applied as read —
// `Workspace.apply({ planFile })` of one stack's, `AppWorkspace.apply({ planFile })` of several
// stacks' — without reading the file again. The decoded file stays behind a WeakMap, so nothing
// on the object shows the engine's types.

import { copyFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Diagnostic } from "../core/index.ts";
import { bindPlan, PlanFileError, readAnyPlanFile, type AnyPlanFile, type Plan } from "../engine/index.ts";
import type { PlanHandle } from "./plan-handle.ts";

/** A saved plan file as `Workspace.readPlan(file)` read it: of one stack (`plan`) or of several (`stacks`), or why it could not be read. */
export interface SavedPlanFile {
  /** The file, as named to readPlan (messages name it so). */
  file: string;
  /** False when the file could not be read or is no plan file; `diagnostics` says why. */
  ok: boolean;
  diagnostics: Diagnostic[];
  /** A plan of one stack: its plan (`write(file)` copies the saved file). Apply it with `Workspace.apply({ planFile })`. */
  plan?: PlanHandle;
  /**
   * A plan of several stacks: each stack's plan, in the order they apply. The file is applied
   * whole, with `AppWorkspace.apply({ planFile })`; one stack's plan is not written alone.
   */
  stacks?: ReadonlyMap<string, PlanHandle>;
}

const decoded = new WeakMap<SavedPlanFile, AnyPlanFile>();

/** Reads and decodes `file` (relative to the current directory). */
export async function readSavedPlan(file: string): Promise<SavedPlanFile> {
  let read: AnyPlanFile;
  try {
    read = await readAnyPlanFile(file);
  } catch (error) {
    if (error instanceof PlanFileError) return { file, ok: false, diagnostics: error.diagnostics };
    throw error;
  }
  const source = resolve(file);
  const result: SavedPlanFile =
    "one" in read
      ? { file, ok: true, diagnostics: [], plan: fileHandle(read.one.plan, (to) => copyFile(source, to)) }
      : {
          file,
          ok: true,
          diagnostics: [],
          stacks: new Map(read.several.order.map((name) => [name, fileHandle(read.several.stacks.get(name)!.saved.plan, () => partOfFile(file))])),
        };
  decoded.set(result, read);
  return result;
}

/** What a SavedPlanFile decoded; undefined for one that could not be read, or an object readPlan did not return. */
export function decodedFile(read: SavedPlanFile): AnyPlanFile | undefined {
  return decoded.get(read);
}

function fileHandle(plan: Plan, write: (file: string) => Promise<void>): PlanHandle {
  const handle: PlanHandle = { write };
  bindPlan(handle, plan);
  return handle;
}

function partOfFile(file: string): Promise<void> {
  return Promise.reject(new Error(`one stack's plan of ${file}, a saved plan of several stacks, is not written alone: copy the file`));
}
