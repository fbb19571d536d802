// `workspace.state.move()` and `remove()` (`takoform state mv`, `state rm`): edits of recorded
// addresses under the state lock, the host never contacted. A move within a stack's state is the
// engine's runStateMove; one into another stack of the app (`toStack`) its runCrossStackMove,
// under both states' locks, the other stack found among the app's stacks without running the app.

import type { Diagnostic } from "../core/index.ts";
import { runCrossStackMove, runStateMove, runStateRemove } from "../engine/index.ts";
import { configCode } from "../engine/config/index.ts";
import { lockOptions, type LockSettings } from "./options.ts";
import { loadStateTarget, openReader, openStore } from "./state-access.ts";

type Placed = Awaited<ReturnType<typeof loadStateTarget>>;
type Found = Exclude<Placed, { diagnostics: Diagnostic[] }>;

interface Early {
  status: "not-started" | "no-state";
  state: string;
  diagnostics: Diagnostic[];
}

export interface MoveOutcome {
  status: "moved" | "refused" | "not-started" | "no-state";
  state: string;
  diagnostics: Diagnostic[];
  moved: { from: string; to: string }[];
  edges: string[];
  fromStack: string | null;
  toStack: string | null;
}

export interface RemoveOutcome {
  status: "removed" | "refused" | "not-started" | "no-state";
  state: string;
  diagnostics: Diagnostic[];
  removed: string[];
  missing: string[];
}

/** The state found and known to exist (an edit needs something applied), or why not; its notes lead the diagnostics. */
async function existing(placed: Placed): Promise<Found | Early> {
  if ("diagnostics" in placed) return { status: "not-started", state: "", diagnostics: placed.diagnostics };
  const opened = await openReader(placed);
  if ("diagnostics" in opened) return { status: "not-started", state: placed.describe, diagnostics: [...placed.notes, ...opened.diagnostics] };
  if ("missing" in opened) return { status: "no-state", state: placed.describe, diagnostics: placed.notes };
  await opened.reader.close();
  return placed;
}

export async function removeState(target: () => Promise<Placed>, addresses: readonly string[], options: LockSettings): Promise<RemoveOutcome> {
  const found = await existing(await target());
  if ("status" in found) return { ...found, removed: [], missing: [] };
  const state = found.describe;
  const opened = await openStore(found);
  if ("diagnostics" in opened) return { status: "not-started", state, diagnostics: [...found.notes, ...opened.diagnostics], removed: [], missing: [] };
  try {
    const result = await runStateRemove(opened.store, addresses, lockOptions(options, "state rm"));
    const refused = result.diagnostics.some((d) => d.severity === "error");
    return {
      status: refused ? "refused" : "removed",
      state,
      diagnostics: [...found.notes, ...result.diagnostics],
      removed: result.removed,
      missing: result.missing,
    };
  } finally {
    await opened.store.close();
  }
}

export async function moveState(target: () => Promise<Placed>, from: string, to: string, options: LockSettings & { toStack?: string }): Promise<MoveOutcome> {
  const none = { moved: [], edges: [], fromStack: null, toStack: null };
  const placed = await target();
  if (options.toStack !== undefined && !("diagnostics" in placed)) return moveAcross(placed, from, to, options.toStack, options);
  const found = await existing(placed);
  if ("status" in found) return { ...found, ...none };
  const state = found.describe;
  const opened = await openStore(found);
  if ("diagnostics" in opened) return { status: "not-started", state, diagnostics: [...found.notes, ...opened.diagnostics], ...none };
  try {
    const result = await runStateMove(opened.store, from, to, lockOptions(options, "state mv"));
    const diagnostics = [...found.notes, ...result.diagnostics];
    if (!result.ok || result.move === undefined) return { status: "refused", state, diagnostics, ...none };
    return { status: "moved", state, diagnostics, ...none, moved: result.move.moved, edges: result.move.edges };
  } finally {
    await opened.store.close();
  }
}

/** Into stack `toStack`'s state: found among the stacks of the app the source stack was loaded from. */
async function moveAcross(source: Found, from: string, to: string, toStack: string, options: LockSettings): Promise<MoveOutcome> {
  const none = { moved: [], edges: [], fromStack: source.stack, toStack };
  const state = source.describe;
  const notStarted = (diagnostics: Diagnostic[]): MoveOutcome => ({ status: "not-started", state, diagnostics: [...source.notes, ...diagnostics], ...none });
  const file = source.app?.stacks.get(toStack);
  if (source.stack === null || file === undefined) {
    const known = source.app !== null ? [...source.app.stacks.keys()].map((n) => `"${n}"`).join(", ") : "none (no app of several stacks)";
    return notStarted([
      {
        severity: "error",
        code: configCode("stack-not-found"),
        summary: source.stack === null ? "--to-stack needs the stack the record is in: give --stack NAME" : `The app has no stack "${toStack}"`,
        detail: `The app's stacks: ${known}.`,
        repair: "Run `takoform state mv --stack A SOURCE --to-stack B DESTINATION` in the app's project, with two of its stacks.",
      },
    ]);
  }
  const fromStack = source.stack;
  const destination = await loadStateTarget(source.projectDir, { configFile: file });
  if ("diagnostics" in destination) return notStarted(destination.diagnostics);
  const found = await existing(source);
  if ("status" in found) return { ...found, ...none };
  const a = await openStore(source);
  if ("diagnostics" in a) return notStarted(a.diagnostics);
  try {
    const b = await openStore(destination);
    if ("diagnostics" in b) return notStarted(b.diagnostics);
    try {
      const result = await runCrossStackMove(
        { stack: fromStack, store: a.store },
        { stack: toStack, store: b.store },
        from,
        to,
        lockOptions(options, "state mv"),
      );
      const diagnostics = [...source.notes, ...result.diagnostics];
      if (!result.ok || result.move === undefined) return { status: "refused", state, diagnostics, ...none };
      return { status: "moved", state, diagnostics, ...none, moved: result.move.moved };
    } finally {
      await b.store.close();
    }
  } finally {
    await a.store.close();
  }
}
