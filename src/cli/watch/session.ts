// `takoform dev --watch`: on every change to the app or to the content its stack names, deploy it
// to the host dev serves, in this process, and go on serving (docs/cli.md, `takoform dev`).
//
// A cycle does only what its changes need (watched.ts): an edit of a worker's code or an asset is
// a plan and an apply of the stack already loaded (the plan re-reads the content's digests); an
// edit of the app is first a typecheck (warm, in this process) and a synth (the app's own
// process, as `takoform synth` runs it, started ahead of the change). The apply goes to dev's own host through the in-process
// transport, as a `takoform apply` would through its HTTP server, under the same state lock. A
// failed cycle prints its diagnostics in full and changes nothing that is served: the host still
// holds the last good deployment. Changes that arrive during a cycle make up the next one.

import { hostname } from "node:os";
import { errorText, hasErrors } from "../console.ts";
import type { Diagnostic } from "../../automation/api.ts";
import { applyStack, loadStack, SharedEmbeddedHost, type LoadedStack } from "../../automation/index.ts";
import { WarmApp, WarmTypecheck } from "../../engine/config/index.ts";
import type { ApplyRun, RunTimings } from "../../engine/index.ts";
import type { LocalHost } from "../../host/index.ts";
import type { Console } from "../console.ts";
import { leaseMs } from "../lock-flags.ts";
import type { StackSource } from "../../automation/index.ts";
import { DirWatcher } from "./dirs.ts";
import { mostOf, Watched, type Need } from "./watched.ts";

/** How long a burst of file events (an editor's write, rename and chmod) is let settle. */
const SETTLE_MS = 15;

/** How long a cycle waits for another run's state lock (a `takoform apply` in another terminal). */
const LOCK_WAIT_MS = 30_000;

export interface WatchOptions {
  projectDir: string;
  /** How the stack is loaded (variables, the stack's name): the command's flags. */
  source: StackSource;
  host: LocalHost;
  io: Console;
}

export class DevWatch {
  private readonly watched: Watched;
  private readonly dirs: DirWatcher;
  private readonly typecheck: WarmTypecheck | undefined;
  private readonly shared = new SharedEmbeddedHost();
  /** The app's next process, started ahead (engine/config/warm-app.ts). */
  private readonly app = new WarmApp();
  private loaded: LoadedStack | undefined;
  /** Changed paths not yet deployed, each with what it needs. */
  private pending = new Map<string, Need>();
  private timer: NodeJS.Timeout | undefined;
  private cycle: Promise<void> | undefined;
  private stopping = false;

  constructor(private readonly options: WatchOptions) {
    this.watched = new Watched(options.projectDir);
    this.dirs = new DirWatcher((path) => this.changed(path));
    this.typecheck = WarmTypecheck.open(options.projectDir);
    // The connection of every cycle reaches dev's own host in process; it is dev's to close.
    this.shared.opened = Promise.resolve({ host: options.host });
  }

  /** Deploys the app as it is now, then watches it. */
  start(): void {
    this.dirs.set(this.watched.dirs());
    this.pending.set(this.options.projectDir, "typecheck");
    this.schedule(0);
  }

  /** Stops watching; a cycle under way stops starting steps and is waited for. */
  async close(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    this.dirs.close();
    await this.cycle;
    this.app.close();
  }

  private changed(path: string): void {
    const need = this.watched.need(path);
    if (need === undefined || this.stopping) return;
    this.pending.set(path, mostOf([need, this.pending.get(path) ?? "plan"]));
    if (this.cycle === undefined) this.schedule(SETTLE_MS);
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.cycle !== undefined || this.pending.size === 0 || this.stopping) return;
      const changes = this.pending;
      this.pending = new Map();
      this.cycle = this.run(changes).finally(() => {
        this.cycle = undefined;
        if (this.pending.size > 0) this.schedule(SETTLE_MS);
      });
    }, ms);
  }

  /** One cycle: what the changes need, then the summary line (and every problem in full). */
  private async run(changes: Map<string, Need>): Promise<void> {
    const started = performance.now();
    const first = this.loaded === undefined;
    // What each change needs is judged now that it settled: a file an editor wrote and removed
    // again while saving (sed -i's, a swap file) was never an input.
    const judged = new Map<string, Need>();
    for (const [path, need] of changes) {
      const now = need === "typecheck" ? need : this.watched.need(path);
      if (now !== undefined) judged.set(path, now);
    }
    if (!first && judged.size === 0) return;
    const what = first ? "start" : `${this.watched.describe([...judged.keys()])} changed`;
    const steps: string[] = [];
    const line = (outcome: string): void => this.options.io.out(`watch: ${what}: ${[...steps, outcome].join(", ")} (${ms(performance.now() - started)} total)`);
    try {
      const loaded = await this.stack(first ? "typecheck" : mostOf(judged.values()), steps);
      if ("failed" in loaded) return line(`${loaded.failed}; still serving the last good deployment`);
      const ran = await this.apply(loaded);
      if (!("run" in ran)) {
        this.options.io.diagnostics(ran.diagnostics);
        return line("the apply could not start; still serving the last good deployment");
      }
      const { run } = ran;
      steps.push(...runSteps(run.timings));
      this.options.io.diagnostics(run.diagnostics);
      line(run.ok ? applied(run) : `the apply ${run.status === "locked" ? "found the state locked" : "failed"}; still serving what it left`);
    } catch (error) {
      this.options.io.diagnostics([
        {
          severity: "error",
          summary: "The watch cycle failed",
          cause: errorText(error),
          repair: "Save the file again to retry; stop dev and run `takoform apply` to see the run in full.",
        },
      ]);
      line("failed; still serving the last good deployment");
    }
  }

  /** The stack to apply: the one loaded, or typechecked and synthesized again as the changes need. */
  private async stack(need: Need, steps: string[]): Promise<LoadedStack | { failed: string }> {
    if (need === "plan" && this.loaded !== undefined) return this.loaded;
    if (need === "typecheck" && this.typecheck !== undefined) {
      const checked = this.typecheck.check();
      this.watched.setSources(checked.sources, checked.dirs);
      this.dirs.set(this.watched.dirs());
      steps.push(`typecheck ${ms(checked.ms)}`);
      if (checked.status === "failed") {
        this.options.io.diagnostics(checked.diagnostics);
        return { failed: `typecheck failed (${errorCount(checked.diagnostics)})` };
      }
    }
    const synthStarted = performance.now();
    const loaded = await loadStack({ ...this.options.source, typecheck: false, runApp: this.app.run });
    steps.push(`synth ${ms(performance.now() - synthStarted)}`);
    if (!("stack" in loaded)) {
      this.options.io.diagnostics(loaded.diagnostics);
      return { failed: `synth failed (${errorCount(loaded.diagnostics)})` };
    }
    this.options.io.diagnostics(loaded.diagnostics);
    this.watched.setContent(loaded.stackDocument);
    this.dirs.set(this.watched.dirs());
    this.loaded = loaded;
    return loaded;
  }

  private apply(loaded: LoadedStack): Promise<{ run: ApplyRun } | { diagnostics: Diagnostic[] }> {
    const io = this.options.io;
    return applyStack(
      loaded,
      {
        plan: { mode: "normal", refresh: true },
        lock: { holder: `takoform dev --watch (pid ${process.pid} on ${hostname()})`, leaseMs: leaseMs(process.env), timeoutMs: LOCK_WAIT_MS },
        stopped: () => this.stopping,
      },
      { shared: this.shared, onNotice: (notice) => io.err(notice) },
    ).then((ran) => ("run" in ran ? { run: ran.run } : ran));
  }
}

function ms(value: number): string {
  return `${Math.round(value)} ms`;
}

function errorCount(diagnostics: readonly Diagnostic[]): string {
  const n = diagnostics.filter((d) => d.severity === "error").length;
  return hasErrors(diagnostics) ? `${n} error${n === 1 ? "" : "s"}` : "no error";
}

function runSteps(timings: RunTimings): string[] {
  const plan = (timings.refreshMs ?? 0) + (timings.planMs ?? 0);
  return [...(timings.planMs !== undefined ? [`plan ${ms(plan)}`] : []), ...(timings.applyMs !== undefined ? [`apply ${ms(timings.applyMs)}`] : [])];
}

function applied(run: ApplyRun): string {
  if (run.status === "no-changes") return "no changes";
  const { added, changed, destroyed } = run.counts;
  return `${added} added, ${changed} changed, ${destroyed} destroyed`;
}
