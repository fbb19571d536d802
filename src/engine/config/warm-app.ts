// Running the app with its next process started ahead, for `takoform dev --watch`. Most of a
// synth is not the app's code: starting `npx tsx main.ts` (a shell, npx, tsx's launcher, then
// node) and loading cdktf, constructs and takoform-cdk is about nine tenths of it (1.3 s of
// 1.4 s here, the app's own construction and synth tens of milliseconds). So after each run the
// next run's process is started at once: node with tsx registered and those libraries imported,
// waiting. The next synth only tells it to import the app's entry, which it then runs exactly
// as `tsx main.ts` would (same cwd, same environment, its output and exit status the run's).
//
// Only for an app command of the form `[npx] tsx FILE` (the cdktf template's and takoform's);
// any other command runs as it is (runApp). A process started for one command and environment
// is never used for another. If the project cannot start tsx that way, the command runs as it is
// from then on.

import { spawn, type ChildProcess } from "node:child_process";
import { runApp, type AppRun, type AppRunner } from "./project.ts";

/** `npx tsx main.ts`, `tsx src/main.ts`: the entry file, or undefined for any other command. */
export function tsxEntry(command: string): string | undefined {
  return /^\s*(?:npx\s+)?tsx\s+([\w./@+-]+\.[cm]?[jt]sx?)\s*$/.exec(command)?.[1];
}

// The waiting process: tsx is registered (--import tsx, resolved from the project), the app's
// libraries are imported (what the app would import first); it says so on fd 3, then one line on
// stdin starts the app, naming the directory the app writes this run's synthesis into
// (CDKTF_OUTDIR: each run has its own, engine/config/synth-staging.ts, so it is not part of the
// environment the process was started with).
const SPARE = `
const entry = process.env.TAKOFORM_WARM_APP_ENTRY;
delete process.env.TAKOFORM_WARM_APP_ENTRY;
const { pathToFileURL } = await import("node:url");
const { resolve } = await import("node:path");
for (const name of ["constructs", "cdktf", "cdktn", "takoform-cdk"]) await import(name).catch(() => undefined);
(await import("node:fs")).writeSync(3, "ready\\n");
process.stdin.on("end", () => process.exit(0));
process.stdin.once("data", (line) => {
  process.stdin.removeAllListeners("end");
  process.stdin.destroy();
  const outdir = JSON.parse(String(line)).outdir;
  if (typeof outdir === "string") process.env.CDKTF_OUTDIR = outdir;
  import(pathToFileURL(resolve(entry)).href).catch((error) => setImmediate(() => { throw error; }));
});
`;

const KEEP = 65_536;

/** One app process started ahead, for one command, cwd and environment. */
class Spare {
  private readonly child: ChildProcess;
  private stdout = "";
  private stderr = "";
  private readonly ended: Promise<{ exitCode: number | null; signal: NodeJS.Signals | null }>;
  /** True once the process has loaded and waits; false when it ended before. */
  private readonly ready: Promise<boolean>;

  constructor(
    readonly key: string,
    entry: string,
    cwd: string,
    env: Record<string, string | undefined>,
  ) {
    this.child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "--eval", SPARE], {
      cwd,
      env: { ...env, TAKOFORM_WARM_APP_ENTRY: entry } as NodeJS.ProcessEnv,
      stdio: ["pipe", "pipe", "pipe", "pipe"],
    });
    const signals = this.child.stdio[3] as NodeJS.ReadableStream;
    this.ready = new Promise((resolve) => {
      signals.once("data", () => resolve(true));
      this.child.once("close", () => resolve(false));
    });
    this.child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (this.stdout = (this.stdout + chunk).slice(-KEEP)));
    this.child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (this.stderr = (this.stderr + chunk).slice(-KEEP)));
    this.child.stdin!.on("error", () => undefined);
    this.ended = new Promise((resolve) => {
      this.child.on("error", (error) => {
        this.stderr += error.message;
        resolve({ exitCode: null, signal: null });
      });
      this.child.on("close", (exitCode, signal) => resolve({ exitCode, signal }));
    });
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Runs the app in this process; undefined when the process could not start (tsx or the libraries did not load). */
  async run(timeoutMs: number, outdir: string | undefined): Promise<AppRun | undefined> {
    if (!(await this.ready) || !this.alive) return undefined;
    this.child.stdin!.end(`${JSON.stringify({ outdir })}\n`);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      this.child.kill("SIGKILL");
    }, timeoutMs);
    const { exitCode, signal } = await this.ended;
    clearTimeout(timer);
    return { exitCode, signal, timedOut, stdout: this.stdout, stderr: this.stderr };
  }

  /** Whether it ended before it was ready (tsx or the libraries could not load). */
  async failedEarly(): Promise<boolean> {
    return !(await this.ready);
  }

  kill(): void {
    if (this.alive) this.child.kill("SIGKILL");
  }
}

export class WarmApp {
  private spare: Spare | undefined;
  private unsupported = false;
  private closed = false;

  /** Runs the app (as an AppRunner), then starts the process of the next run. */
  readonly run: AppRunner = async (command, cwd, env, timeoutMs) => {
    const entry = tsxEntry(command);
    if (entry === undefined || this.unsupported || this.closed) return runApp(command, cwd, env, timeoutMs);
    // The run's output directory is given when it runs; the rest of the environment is the spare's.
    const { CDKTF_OUTDIR: outdir, ...started } = env;
    const key = JSON.stringify([command, cwd, started]);
    let spare = this.spare;
    this.spare = undefined;
    if (spare === undefined || spare.key !== key || !spare.alive) {
      spare?.kill();
      spare = new Spare(key, entry, cwd, started);
    }
    const ran = await spare.run(timeoutMs, outdir);
    if (ran === undefined) {
      this.unsupported = true;
      return runApp(command, cwd, env, timeoutMs);
    }
    if (!this.closed) this.startSpare(key, entry, cwd, started);
    return ran;
  };

  private startSpare(key: string, entry: string, cwd: string, env: Record<string, string | undefined>): void {
    const spare = new Spare(key, entry, cwd, env);
    this.spare = spare;
    // A spare that cannot start tsx says so before it is needed: the command runs as it is then.
    void spare.failedEarly().then((early) => {
      if (early && this.spare === spare) {
        this.spare = undefined;
        this.unsupported = true;
      }
    });
  }

  /** Stops the process started ahead. */
  close(): void {
    this.closed = true;
    this.spare?.kill();
    this.spare = undefined;
  }
}
