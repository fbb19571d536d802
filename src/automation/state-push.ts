// `workspace.state.push()` (`takoform state push`): replace the whole state the stack's backend
// names with a document `state pull` wrote. The document is read and checked completely before
// the state is even found, so a bad document changes nothing and opens nothing; the engine's
// runStatePush then writes it under the lock, in one transaction, with Terraform's refusals.

import { readFile } from "node:fs/promises";
import type { Diagnostic } from "../core/index.ts";
import { engineCode, runStatePush } from "../engine/index.ts";
import { readStrictJson, STACK_MAX_DEPTH } from "../engine/config/index.ts";
import { checkStateDocument, StateWriteError, type StateDocument } from "../state/index.ts";
import { lockOptions, type LockSettings } from "./options.ts";
import { openStore, type StateTarget } from "./state-access.ts";

/** Where the document comes from: a file, or its bytes (`name` names it in messages; `-` is standard input). */
export type PushSource = { file: string } | { bytes: Uint8Array; name: string };

export interface PushOutcome {
  status: "copied" | "unchanged" | "refused" | "not-started";
  state: string;
  diagnostics: Diagnostic[];
  lineage: string | null;
  serial: number | null;
  resources: number;
}

const REPAIR = "Give a document written by `takoform state pull`.";

function refusal(summary: string, detail: string): Diagnostic {
  return { severity: "error", code: engineCode("push-refused"), summary, detail, repair: REPAIR };
}

/** The document of `source`, checked whole, or the diagnostic that says why it cannot be pushed. */
async function readDocument(source: PushSource): Promise<{ document: StateDocument; name: string } | { diagnostic: Diagnostic }> {
  const name = "file" in source ? source.file : source.name;
  let bytes: Uint8Array;
  try {
    bytes = "file" in source ? await readFile(source.file) : source.bytes;
  } catch (error) {
    return { diagnostic: refusal(`Cannot read ${name}`, (error as Error).message) };
  }
  const read = readStrictJson(bytes, { what: name === "-" ? "the document on stdin" : name, repair: REPAIR, maxDepth: STACK_MAX_DEPTH + 16 });
  if (!read.ok) return { diagnostic: read.diagnostic };
  try {
    return { document: checkStateDocument(read.value), name };
  } catch (error) {
    if (!(error instanceof StateWriteError)) throw error;
    return { diagnostic: refusal(`${name} is not a state document`, error.message) };
  }
}

/** Pushes `source` into the state `target()` finds (its notes first among the diagnostics). */
export async function pushState(
  source: PushSource,
  target: () => Promise<StateTarget | { diagnostics: Diagnostic[] }>,
  options: LockSettings & { force?: boolean },
): Promise<PushOutcome> {
  const none = { lineage: null, serial: null, resources: 0 };
  const read = await readDocument(source);
  if ("diagnostic" in read) return { status: "refused", state: "", diagnostics: [read.diagnostic], ...none };
  const placed = await target();
  if ("diagnostics" in placed) return { status: "not-started", state: "", diagnostics: placed.diagnostics, ...none };
  const state = placed.describe;
  const opened = await openStore(placed);
  if ("diagnostics" in opened) return { status: "not-started", state, diagnostics: [...placed.notes, ...opened.diagnostics], ...none };
  const { store } = opened;
  try {
    const outcome = await runStatePush(store, read.document, lockOptions(options, "state push"), { force: options.force === true, target: state });
    if (outcome.status === "refused") return { status: "refused", state, diagnostics: [...placed.notes, ...outcome.diagnostics], ...none };
    const { status, lineage, serial, resources } = outcome;
    return { status, state, diagnostics: [...placed.notes, ...outcome.notes], lineage, serial, resources };
  } catch (error) {
    // A record the document carries that no write could have stored (state/document.ts).
    if (!(error instanceof StateWriteError)) throw error;
    return { status: "refused", state, diagnostics: [...placed.notes, refusal(`${read.name} cannot be stored`, error.message)], ...none };
  } finally {
    await store.close();
  }
}
