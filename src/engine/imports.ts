// Imports: `importState` then `read` turns an import ID into the existing host object as state.
// Import blocks are read at plan time, so the plan shows the object as imported and plans its
// configuration against it.

import { type Diagnostic, hasErrors, located } from "../core/index.ts";
import type { Provider, ResourceState } from "../provider/index.ts";
import { evaluate, EvaluationError } from "./config/expression/evaluate.ts";
import type { StackConfig } from "./config/types.ts";
import type { ResolvedVariables } from "./config/variables/resolve.ts";
import { engineCode } from "./codes.ts";
import { resolverFor } from "./evaluate.ts";

/** `importState` then `read`: the existing host object as state, or diagnostics. */
export async function importObject(
  provider: Provider,
  type: string,
  address: string,
  id: string,
): Promise<{ state: ResourceState | null; diagnostics: Diagnostic[] }> {
  const parsed = await provider.importState(type, id);
  const diagnostics = located(parsed.diagnostics, address, type);
  if (hasErrors(diagnostics) || parsed.state === null) return { state: null, diagnostics };
  const read = await provider.read(parsed.state);
  diagnostics.push(...located(read.diagnostics, address, type));
  if (hasErrors(diagnostics)) return { state: null, diagnostics };
  if (read.state === null) {
    diagnostics.push({
      severity: "error",
      code: engineCode("import-failed"),
      summary: `Cannot import ${address}: the host has no such resource`,
      detail: `The import id ${id} names no existing ${type} resource.`,
      address,
      resourceType: type,
      repair: "Check the import id (NAME, SPACE/NAME, or the canonical JSON object with the exact FormRef).",
    });
    return { state: null, diagnostics };
  }
  return { state: read.state, diagnostics };
}

export interface ImportedBlocks {
  /** Address → the imported object's state. */
  states: Map<string, ResourceState>;
  /** Address → the import ID. */
  ids: Map<string, string>;
  diagnostics: Diagnostic[];
}

/** Reads the objects of the stack's import blocks whose target is not managed yet. */
export async function readImportBlocks(
  provider: Provider,
  stack: StackConfig,
  variables: ResolvedVariables,
  managed: (address: string) => boolean,
  inScope: (address: string) => boolean,
): Promise<ImportedBlocks> {
  const out: ImportedBlocks = { states: new Map(), ids: new Map(), diagnostics: [] };
  for (const block of stack.imports) {
    const resource = stack.resources.get(block.to);
    if (resource === undefined) {
      out.diagnostics.push({
        severity: "error",
        code: engineCode("import-target-undeclared"),
        summary: `The import block names ${block.to}, which the configuration does not declare`,
        repair: "Declare the resource in the app, or fix the import block's `to`.",
      });
      continue;
    }
    if (managed(block.to) || !inScope(block.to)) continue; // already managed: nothing to import
    let id: string;
    try {
      const value = evaluate(
        block.id,
        resolverFor(variables, () => undefined),
      );
      if (typeof value !== "string") throw new EvaluationError(null, "the import id must be a string known at plan time");
      id = value;
    } catch (error) {
      out.diagnostics.push({
        severity: "error",
        code: engineCode("import-failed"),
        summary: `The import id for ${block.to} cannot be evaluated`,
        detail: (error as Error).message,
        address: block.to,
        repair: "Give the import id as a literal or from variables.",
      });
      continue;
    }
    const imported = await importObject(provider, resource.type, block.to, id);
    out.diagnostics.push(...imported.diagnostics);
    if (imported.state !== null) {
      out.states.set(block.to, imported.state);
      out.ids.set(block.to, id);
    }
  }
  return out;
}
