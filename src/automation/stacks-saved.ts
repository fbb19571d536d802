// Applying a saved plan of several stacks (`takoform apply FILE`; docs/stacks.md, "Saved plans of
// several stacks"): each stack loaded from the document its saved plan carries, as `apply FILE`
// of one stack loads it, and opened behind the engine's StackHandle so that the orchestrator
// (engine/stacks/run.ts, `saved`) applies them in order. A stack applies exactly its saved plan
// (refused as stale when its state, or what it read from another stack, moved since); one whose
// plan read values unknown until another stack applied is planned again after it, and applied
// only when the new plan stays within the saved one and its own state did not move.

import { hostname } from "node:os";
import type { Diagnostic } from "../core/index.ts";
import { readLastSynth, type RemoteStateValue } from "../engine/config/index.ts";
import {
  checkSensitiveVariables,
  engineCode,
  staleReads,
  type ApplyRun,
  type EngineEvent,
  type Plan,
  type SavedStack,
  type SavedStacks,
  type StackHandle,
} from "../engine/index.ts";
import { loadStack, type LoadedStack, type StackSource } from "./project.ts";
import { AppOutlines, readRemoteState, readRemoteStates, remoteReadsOf } from "./remote-reads.ts";
import { applyStack } from "./run.ts";
import { appBeside, openReader, restoreConnStr } from "./state-access.ts";
import type { StackRunSettings } from "./stacks-open.ts";

/**
 * The app the saved plans' stack files belong to (their manifest, where cdktf wrote it), read once
 * for every stack, as `apply FILE` of one stack finds it.
 */
export async function savedOutlines(saved: SavedStacks): Promise<AppOutlines> {
  for (const { saved: plan } of saved.stacks.values()) {
    if (plan.stackFile === undefined) continue;
    const app = await appBeside(plan.stackFile);
    if (app !== null) return new AppOutlines(app);
  }
  return new AppOutlines(null);
}

/**
 * A file planned for another app: stacks of the file that this project's app (its last synthesis)
 * or the app its stack files were synthesized in does not have. Checked before anything is opened,
 * so such a file creates no state here.
 */
async function foreignStacks(projectDir: string, file: string, saved: SavedStacks, outlines: AppOutlines): Promise<Diagnostic | null> {
  const project = await readLastSynth(projectDir);
  for (const [app, where] of [
    [project, "this project's app"],
    [outlines.app, "the app its stack files were synthesized in"],
  ] as const) {
    if (app === null) continue;
    const missing = saved.order.filter((name) => !app.stacks.has(name));
    if (missing.length === 0) continue;
    return {
      severity: "error",
      code: engineCode("plan-file-stacks-mismatch"),
      summary: `${file} is a saved plan of another app: ${where} has no stack ${missing.map((n) => `"${n}"`).join(", ")}`,
      detail: `The file's stacks are ${saved.order.join(", ")}; ${where}'s are ${[...app.stacks.keys()].join(", ")}. Nothing was applied.`,
      repair: "Apply the file in the project it was planned in, or plan this project's stacks (takoform plan '*' --out FILE) and apply that file.",
    };
  }
  return null;
}

/**
 * Each stack of the file, loaded from its saved document with its saved variables; or every
 * problem found (a file of another app: nothing else is looked at).
 */
export async function loadSavedStacks(
  source: Omit<StackSource, "fromDocument" | "configFile" | "stackName" | "remote" | "declaredOnly" | "outlines">,
  saved: SavedStacks,
  outlines: AppOutlines,
  file = "the plan file",
): Promise<Map<string, LoadedStack> | { diagnostics: Diagnostic[] }> {
  const foreign = await foreignStacks(source.projectDir, file, saved, outlines);
  if (foreign !== null) return { diagnostics: [foreign] };
  const out = new Map<string, LoadedStack>();
  const diagnostics: Diagnostic[] = [];
  for (const [name, { saved: plan }] of saved.stacks) {
    const ws = await loadStack({
      ...source,
      fromDocument: { text: plan.stackDocument, ...(plan.stackFile !== undefined ? { file: plan.stackFile } : {}), variables: plan.variables },
      remote: false,
      declaredOnly: true,
      outlines,
    });
    if (!("stack" in ws)) {
      diagnostics.push(...ws.diagnostics);
      continue;
    }
    const mismatch = checkSensitiveVariables(plan, ws.variables);
    if (mismatch.length > 0) diagnostics.push(...mismatch);
    // A saved plan's stack carries no backend password; it is taken from the stack file it was made from.
    out.set(name, { ...ws, state: restoreConnStr(ws.state, plan.stackFile) });
  }
  return diagnostics.some((d) => d.severity === "error") ? { diagnostics } : out;
}

/** The orchestrator's view of one stack of a saved plan. */
export async function savedStackHandle(
  name: string,
  ws: LoadedStack,
  saved: SavedStack,
  outlines: AppOutlines,
  settings: StackRunSettings,
): Promise<StackHandle> {
  const reads = await remoteReadsOf(ws.projectDir, ws.stack, outlines);
  const withRemote = (remote: ReadonlyMap<string, RemoteStateValue>) => ({ ...ws.variables, remote });
  const lock = {
    holder: settings.lockHolder ?? `takoform apply (pid ${process.pid} on ${hostname()})`,
    leaseMs: settings.leaseMs,
    timeoutMs: settings.lockTimeout,
    forceUnlock: settings.forceUnlock,
  };
  const common = { lock, parallelism: settings.parallelism, events: (event: EngineEvent) => settings.events(name, event), stopped: settings.stopped };
  const wiring = { hostWaitMs: settings.lockTimeout, shared: settings.shared, ...(settings.env !== undefined ? { env: settings.env } : {}) };
  const run = async (remote: ReadonlyMap<string, RemoteStateValue>, how: { saved: typeof saved.saved } | { confirm(plan: Plan): Promise<boolean> }) => {
    const ran = await applyStack(
      { ...ws, variables: withRemote(remote) },
      { ...common, ...how, plan: { mode: saved.saved.mode, refresh: saved.saved.refresh } },
      wiring,
    );
    return "run" in ran ? ran.run : refused("plan-failed", ran.diagnostics);
  };
  return {
    name,
    reads,
    readState: (source) => readRemoteState(ws.projectDir, { source, producer: reads.find((r) => r.source === source)?.producer ?? null }, outlines),
    plan: async () => ({ plan: saved.saved.plan, ok: true, readsUnknown: saved.readsUnknown }),
    async replanRefusal() {
      const now = await stateNow(ws);
      if ("diagnostics" in now) return now.diagnostics;
      const moved = stateMoved(name, saved.saved.plan, now);
      return moved !== null ? [moved] : [];
    },
    async apply(how) {
      // What it reads is read again from the producers' states (they applied their saved plans first).
      const remote = "exact" in how ? await readRemoteStates(ws.projectDir, reads, outlines) : how.remote;
      if ("diagnostics" in remote) return refused("plan-failed", remote.diagnostics as Diagnostic[]);
      const moved = staleReads(name, saved, remote);
      if (moved.length > 0) return refused("stale-plan", moved);
      if ("exact" in how) return run(remote, { saved: saved.saved });
      // Planned again: its own state must be the one the saved plan was made at, checked before
      // (so it is never planned again when it moved) and under the lock, where a first host
      // binding of the state (its only write before the plan) may have bumped the serial once.
      const before = await stateNow(ws);
      if ("diagnostics" in before) return refused("plan-failed", before.diagnostics);
      const early = stateMoved(name, saved.saved.plan, before);
      if (early !== null) return refused("stale-plan", [early]);
      let stale: Diagnostic | null = null;
      const ran = await run(remote, {
        confirm: async (plan) => {
          const binding = before.unbound && plan.stateSerial === before.stateSerial + 1 ? 1 : 0;
          stale = stateMoved(name, saved.saved.plan, { stateLineage: plan.stateLineage, stateSerial: plan.stateSerial - binding });
          return stale === null && how.accept(plan);
        },
      });
      return stale !== null && ran.status === "cancelled" ? { ...ran, status: "stale-plan", ok: false, diagnostics: [...ran.diagnostics, stale] } : ran;
    },
  };
}

/** The stack's state as it is now (no lock): its lineage and serial, and whether it is bound to a host yet. */
async function stateNow(
  ws: LoadedStack,
): Promise<{ stateLineage: string; stateSerial: number; inFlight: number; unbound: boolean } | { diagnostics: Diagnostic[] }> {
  const opened = await openReader(ws.state);
  if ("diagnostics" in opened) return opened;
  if ("missing" in opened) return { stateLineage: "", stateSerial: 0, inFlight: 0, unbound: true };
  try {
    const { reader } = opened;
    return {
      stateLineage: reader.lineage,
      stateSerial: await reader.serial(),
      inFlight: (await reader.inFlight()).length,
      unbound: (await reader.hostBinding()) === null,
    };
  } finally {
    await opened.reader.close();
  }
}

/** Whether the stack's state moved since its saved plan was made (an interrupted write counts: a plain apply resolves it first). */
function stateMoved(stack: string, saved: Plan, now: Pick<Plan, "stateLineage" | "stateSerial"> & { inFlight?: number }): Diagnostic | null {
  const inFlight = now.inFlight ?? 0;
  if (now.stateLineage === saved.stateLineage && now.stateSerial === saved.stateSerial && inFlight === 0) return null;
  return {
    severity: "error",
    code: engineCode("plan-file-stale"),
    summary: `The saved plan of stack "${stack}" is stale: its state changed since it was made`,
    detail:
      now.stateLineage !== saved.stateLineage
        ? `The plan was made against state lineage ${saved.stateLineage}; this state's lineage is ${now.stateLineage}.`
        : inFlight > 0
          ? `State holds ${inFlight} interrupted write(s) that must be resolved by a plain apply first. Nothing of this stack was applied.`
          : `The plan was made at state serial ${saved.stateSerial}; state is now at serial ${now.stateSerial}. Nothing of this stack was applied.`,
    repair: "Run `takoform plan --out FILE` for these stacks again and apply the new file.",
  };
}

function refused(status: ApplyRun["status"], diagnostics: Diagnostic[]): ApplyRun {
  return { status, ok: false, diagnostics, recovered: 0, counts: { added: 0, changed: 0, destroyed: 0, imported: 0, forgotten: 0 }, timings: {} };
}
