// `takoform dev --watch`: on every change to the app or to the content its stack names, deploy it
// to the host dev serves, in this process, and go on serving (docs/cli.md, `takoform dev`).
//
// Built on the published Workspace (docs/automation.md, "Deploying on every edit"): a `warm` one
// over dev's own LocalHost (`host: { local }`). A cycle does only what its changes need
// (watched.ts): an edit of a worker's code or an asset is an `apply()` of the stack already loaded
// (the plan re-reads the content's digests); an edit of the app is first a `synth()`, typechecked
// (warm, in this process) and run (the app's own process, as `takoform synth` runs it, started
// ahead of the change); a file added to a content directory is a `synth({ typecheck: false })`.
// The apply goes to dev's own host through the in-process transport, as a `takoform apply` would
// through its HTTP server, under the same state lock. A failed cycle prints its diagnostics in
// full and changes nothing that is served: the host still holds the last good deployment (a
// failed synth keeps the Workspace's stack). Changes that arrive during a cycle make up the next one.

import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { errorText, hasErrors } from "../console.ts";
import { openWorkspace, type Diagnostic, type RunResult, type SynthResult, type Workspace, type WorkspaceOptions } from "../../automation/api.ts";
import type { LocalHost } from "../../host/api.ts";
import type { Console } from "../console.ts";
import { leaseMs } from "../lock-settings.ts";
import { DirWatcher } from "./dirs.ts";
import { mostOf, Watched, type Need } from "./watched.ts";

/** How long a burst of file events (an editor's write, rename and chmod) is let settle. */
const SETTLE_MS = 15;

/** How long a cycle waits for another run's state lock (a `takoform apply` in another terminal). */
const LOCK_WAIT_MS = 30_000;

export interface WatchOptions {
  projectDir: string;
  /** The stack and its variables, as the command's flags name them. */
  workspace: WorkspaceOptions;
  /** dev's own host, reached in process; dev closes it. */
  host: LocalHost;
  io: Console;
}

export class DevWatch {
  private readonly watched: Watched;
  private readonly dirs: DirWatcher;
  /** Warm: the typecheck, the app's next process and the stack loaded are kept between cycles. */
  private readonly workspace: Workspace;
  /** A synth succeeded: a content edit is an apply of the stack it loaded. */
  private synthesized = false;
  /** Aborted on close: a cycle under way starts no new step. */
  private readonly stop = new AbortController();
  /** Changed paths not yet deployed, each with what it needs. */
  private pending = new Map<string, Need>();
  private timer: NodeJS.Timeout | undefined;
  private cycle: Promise<void> | undefined;
  private stopping = false;

  constructor(private readonly options: WatchOptions) {
    this.watched = new Watched(options.projectDir);
    this.dirs = new DirWatcher((path) => this.changed(path));
    this.workspace = openWorkspace({ ...options.workspace, projectDir: options.projectDir, host: { local: options.host }, warm: true });
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
    this.stop.abort();
    clearTimeout(this.timer);
    this.dirs.close();
    await this.cycle;
    await this.workspace.close();
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
    const first = !this.synthesized;
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
      const failed = await this.synth(first ? "typecheck" : mostOf(judged.values()), steps);
      if (failed !== undefined) return line(`${failed}; still serving the last good deployment`);
      const run = await this.apply();
      if (run.status === "not-started") {
        this.options.io.diagnostics(run.diagnostics);
        return line("the apply could not start; still serving the last good deployment");
      }
      steps.push(...runSteps(run.timings ?? {}));
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

  /** The app synthesized again as the changes need (nothing for a content edit once a synth succeeded); why not, when it failed. */
  private async synth(need: Need, steps: string[]): Promise<string | undefined> {
    if (need === "plan" && this.synthesized) return undefined;
    const started = performance.now();
    const synth = await this.workspace.synth({ typecheck: need === "typecheck" });
    const checked = synth.typecheck;
    if (checked?.inputs !== undefined) {
      this.watched.setSources(checked.inputs.files, checked.inputs.dirs);
      this.dirs.set(this.watched.dirs());
    }
    if (checked !== undefined) steps.push(`typecheck ${ms(checked.ms)}`);
    this.options.io.diagnostics(synth.diagnostics);
    if (checked?.status === "failed") return `typecheck failed (${errorCount(synth.diagnostics)})`;
    steps.push(`synth ${ms(performance.now() - started - (checked?.ms ?? 0))}`);
    if (!synth.ok) return `synth failed (${errorCount(synth.diagnostics)})`;
    const document = this.stackDocument(synth);
    if (document !== undefined) this.watched.setContent(document);
    this.dirs.set(this.watched.dirs());
    this.synthesized = true;
    return undefined;
  }

  /** The synthesized document of the stack dev deploys (`--stack`, or the app's only one): what it names is watched. */
  private stackDocument(synth: SynthResult): string | undefined {
    const name = this.options.workspace.stack;
    const file = name !== undefined ? synth.stacks.get(name) : synth.stacks.size === 1 ? [...synth.stacks.values()][0] : undefined;
    try {
      return file !== undefined ? readFileSync(file, "utf8") : undefined;
    } catch {
      return undefined; // the apply reads it again and says what is wrong with it
    }
  }

  private apply(): Promise<RunResult> {
    const lease = leaseMs(process.env);
    return this.workspace.apply({
      lockHolder: `takoform dev --watch (pid ${process.pid} on ${hostname()})`,
      lockTimeoutMs: LOCK_WAIT_MS,
      ...(lease !== undefined ? { lockLeaseMs: lease } : {}),
      signal: this.stop.signal,
    });
  }
}

function ms(value: number): string {
  return `${Math.round(value)} ms`;
}

function errorCount(diagnostics: readonly Diagnostic[]): string {
  const n = diagnostics.filter((d) => d.severity === "error").length;
  return hasErrors(diagnostics) ? `${n} error${n === 1 ? "" : "s"}` : "no error";
}

function runSteps(timings: NonNullable<RunResult["timings"]>): string[] {
  const plan = (timings.refreshMs ?? 0) + (timings.planMs ?? 0);
  return [...(timings.planMs !== undefined ? [`plan ${ms(plan)}`] : []), ...(timings.applyMs !== undefined ? [`apply ${ms(timings.applyMs)}`] : [])];
}

function applied(run: RunResult): string {
  if (run.status === "no-changes") return "no changes";
  const { added, changed, destroyed } = run.counts;
  return `${added} added, ${changed} changed, ${destroyed} destroyed`;
}
