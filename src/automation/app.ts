// An AppWorkspace: the stacks of a project's app, planned, applied and destroyed together from a
// program, as `takoform plan|apply|destroy a b` does it (docs/stacks.md, "Several stacks in one
// command"): the app is run once, the stacks named (names or globs) are selected, each is opened
// with its own state (stacks-open.ts), and the engine's orchestrator (engine/stacks/run.ts) runs
// them in dependency order — a destroy the other way round — asking once before anything is
// applied. A stack that fails stops the stacks that depend on it; independent ones go on. The run
// itself is app-run.ts.

import { resolve } from "node:path";
import { runApp } from "./app-run.ts";
import type { AppResult, AppRunOptions } from "./app-results.ts";
import type { WorkspaceOptions } from "./options.ts";

export type { AppRunOptions } from "./app-results.ts";

/**
 * The stacks of a project's app, and the host and states they deploy to. Nothing is loaded or
 * connected until the first call; each call runs the app afresh.
 */
export class AppWorkspace {
  /** The project directory, absolute. */
  readonly projectDir: string;
  private readonly options: Omit<WorkspaceOptions, "stack" | "configFile">;

  /** `options`: a Workspace's, but for the stack: each run names its stacks (`stacks`). */
  constructor(options: Omit<WorkspaceOptions, "stack" | "configFile"> = {}) {
    this.options = options;
    this.projectDir = resolve(options.projectDir ?? process.cwd());
  }

  /** Plans the stacks, each against what the stacks it reads from plan; writes nothing (unless `createState`). */
  plan(options: AppRunOptions = {}): Promise<AppResult> {
    return this.run("plan", options);
  }

  /** Plans every stack, asks `confirm` once, then applies them stack by stack in dependency order. */
  apply(options: AppRunOptions = {}): Promise<AppResult> {
    return this.run("apply", options);
  }

  /** Destroys the stacks' resources, the stacks that depend on others first. */
  destroy(options: AppRunOptions = {}): Promise<AppResult> {
    return this.run("destroy", options);
  }

  private run(kind: "plan" | "apply" | "destroy", options: AppRunOptions): Promise<AppResult> {
    return runApp(kind, { ...this.options, projectDir: this.projectDir }, options);
  }
}
