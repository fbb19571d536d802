// Opening the stacks of one multi-stack run as the engine's orchestrator sees them
// (engine/stacks/run.ts, StackHandle): each stack loaded from the app's synthesized file, its own
// state placed as a run of that stack alone would place it, and its plan and apply made by
// run.ts's planStack and applyStack, as `plan` and `apply` of one stack make them — with what its
// remote states read handed in, and one embedded host shared by every stack of the run (connect.ts).

import { hostname } from "node:os";
import { readFile } from "node:fs/promises";
import type { Diagnostic } from "../core/index.ts";
import type { RemoteStateValue } from "../engine/config/index.ts";
import type { EngineEvent, PlanMode, StackHandle } from "../engine/index.ts";
import type { SharedEmbeddedHost } from "./connect.ts";
import { loadStack, type LoadedStack, type StackSource } from "./project.ts";
import { AppOutlines, readRemoteState, remoteReadsOf } from "./remote-reads.ts";
import { applyStack, planStack } from "./run.ts";
import { openReader, stateTarget } from "./state-access.ts";

export interface StackRunSettings {
  kind: "plan" | "apply" | "destroy";
  mode: PlanMode;
  refresh: boolean;
  parallelism: number | undefined;
  lockTimeout: number;
  forceUnlock: boolean;
  /** The state lock's lease length (undefined: the lock's default, 60 s). */
  leaseMs: number | undefined;
  /** Plan with the state created first when there is none (`plan --out`: a saved plan is bound to a state lineage). */
  createState?: boolean;
  shared: SharedEmbeddedHost;
  /** Who the state lock names while a stack's apply holds it (default `takoform <kind> (pid … on <host>)`). */
  lockHolder?: string;
  /** The environment the stacks' settings fall back to (TAKOFORM_*, TF_VAR_*): process.env by default. */
  env?: NodeJS.ProcessEnv;
  /** What the engine reports while a stack applies, by stack. */
  events(stack: string, event: EngineEvent): void;
  stopped(): boolean;
}

/**
 * Loads each stack of `files` (name → its synthesized cdk.tf.json) with the variables `source`
 * gives (each stack takes those it declares), or every problem found. `outlines`: the app's, read
 * once for all of them.
 */
export async function loadStacks(
  source: Omit<StackSource, "fromDocument" | "configFile" | "stackName" | "remote" | "declaredOnly" | "outlines">,
  files: ReadonlyMap<string, string>,
  outlines?: AppOutlines,
): Promise<Map<string, LoadedStack> | { diagnostics: Diagnostic[] }> {
  const out = new Map<string, LoadedStack>();
  const diagnostics: Diagnostic[] = [];
  for (const [name, file] of files) {
    const ws = await loadStack({
      ...source,
      fromDocument: { text: await readFile(file, "utf8"), file },
      remote: false,
      declaredOnly: true,
      ...(outlines !== undefined ? { outlines } : {}),
    });
    if ("stack" in ws) out.set(name, ws);
    else diagnostics.push(...ws.diagnostics);
  }
  return diagnostics.some((d) => d.severity === "error") ? { diagnostics } : out;
}

/** The orchestrator's view of one loaded stack. */
export async function stackHandle(name: string, ws: LoadedStack, outlines: AppOutlines, settings: StackRunSettings): Promise<StackHandle> {
  const reads = settings.mode === "destroy" ? [] : await remoteReadsOf(ws.projectDir, ws.stack, outlines);
  const options = { mode: settings.mode, refresh: settings.refresh, parallelism: settings.parallelism };
  /** What the shown plan read: an exact apply of it evaluates the outputs against the same values. */
  let planned: ReadonlyMap<string, RemoteStateValue> = new Map();
  const withRemote = (remote: ReadonlyMap<string, RemoteStateValue>) => ({ ...ws.variables, remote });
  return {
    name,
    reads,
    readState: (source) => readRemoteState(ws.projectDir, { source, producer: reads.find((r) => r.source === source)?.producer ?? null }, outlines),
    async plan(remote) {
      planned = remote;
      const made = await planStack(
        { ...ws, variables: withRemote(remote) },
        { ...options, createState: settings.createState === true },
        { shared: settings.shared, ...(settings.env !== undefined ? { env: settings.env } : {}) },
      );
      if ("diagnostics" in made) return { diagnostics: made.diagnostics };
      return { plan: made.plan, ok: made.ok };
    },
    async apply(how) {
      const remote = "exact" in how ? planned : how.remote;
      const ran = await applyStack(
        { ...ws, variables: withRemote(remote) },
        {
          plan: options,
          ...("exact" in how ? { exact: how.exact } : { confirm: async (plan) => how.accept(plan) }),
          lock: {
            holder: settings.lockHolder ?? `takoform ${settings.kind} (pid ${process.pid} on ${hostname()})`,
            leaseMs: settings.leaseMs,
            timeoutMs: settings.lockTimeout,
            forceUnlock: settings.forceUnlock,
          },
          parallelism: settings.parallelism,
          events: (event) => settings.events(name, event),
          stopped: settings.stopped,
        },
        { hostWaitMs: settings.lockTimeout, shared: settings.shared, ...(settings.env !== undefined ? { env: settings.env } : {}) },
      );
      if (!("run" in ran)) return { status: "plan-failed", ok: false, diagnostics: ran.diagnostics, recovered: 0, counts: NO_COUNTS, timings: {} };
      return ran.run;
    },
  };
}

/**
 * Whether a stack of the app (one a destroy leaves out) still holds resources in its state, found
 * as a command for it would find it. A state that cannot be read counts as holding some: a destroy
 * never takes away what a stack may still use.
 */
export async function holdsResources(projectDir: string, stack: string, outlines: AppOutlines): Promise<boolean> {
  const outline = await outlines.outline(stack);
  if (outline === null) return true;
  const target = await stateTarget(
    projectDir,
    { backend: outline.backend, stackName: stack, resources: new Map([...outline.addresses].map((a) => [a, null])) },
    outlines.app,
  );
  if ("diagnostics" in target) return true;
  const opened = await openReader(target);
  if ("missing" in opened) return false;
  if ("diagnostics" in opened) return true;
  try {
    return (await opened.reader.list()).length > 0;
  } finally {
    await opened.reader.close();
  }
}

const NO_COUNTS = { added: 0, changed: 0, destroyed: 0, imported: 0, forgotten: 0 };
