// A warm Workspace (`warm: true`, options.ts): what it keeps between calls so a program that
// deploys again on every edit (`takoform dev --watch`) pays only for what the edit changed.
//
// - The typecheck: the project's own TypeScript loaded once in this process, its last program
//   kept (engine/config/typecheck/warm.ts): a check after an edit is tens of milliseconds.
// - The app: after each run its next process is started ahead, with tsx and the libraries
//   loaded (engine/config/warm-app.ts): the next synth runs only the app's own code.
// - The stack loaded: plan() and apply() deploy it again (each plan re-reads the content digests
//   the stack names) until synth() runs the app again; the stack is then read from what that
//   synth wrote. A synth that fails keeps the stack last loaded, so it is still what is deployed.

import { synthesizeProject, WarmApp, WarmTypecheck, type SynthResult, type WarmCheck } from "../engine/config/index.ts";
import type { Diagnostic } from "../core/index.ts";
import { loadStack, type LoadedStack, type StackSource } from "./project.ts";

export class WarmProject {
  /** Opened on the first check; undefined when the project has no tsconfig or no TypeScript (then no check, as for synth). */
  private checker: WarmTypecheck | undefined | null = null;
  private readonly app = new WarmApp();
  private loaded: LoadedStack | undefined;
  /** synth() ran the app since the stack was loaded: the next load reads what it wrote, with these timings. */
  private synthesized: LoadedStack["timings"] | undefined;

  constructor(private readonly projectDir: string) {}

  /** Whether a stack is kept (the next load returns it without running or reading anything). */
  get holds(): boolean {
    return this.loaded !== undefined;
  }

  /** Runs the app (typechecked first, warm, when `typecheck`); what the check read comes with the result. */
  async synth(env: NodeJS.ProcessEnv, typecheck: boolean): Promise<{ result: SynthResult; checked?: WarmCheck }> {
    const checker = typecheck ? this.typecheck() : undefined;
    let checked: WarmCheck | undefined;
    const result = await synthesizeProject(this.projectDir, {
      env,
      typecheck: checker !== undefined,
      ...(checker !== undefined ? { check: () => (checked = checker.check()) } : {}),
      runApp: this.app.run,
    });
    if (result.stacks.size > 0 && !result.diagnostics.some((d) => d.severity === "error")) {
      this.loaded = undefined;
      this.synthesized = {
        ...(checked !== undefined ? { typecheckMs: checked.ms } : {}),
        ...(result.appMs !== undefined ? { synthMs: result.appMs } : {}),
      };
    }
    return { result, ...(checked !== undefined ? { checked } : {}) };
  }

  /**
   * The stack to deploy: the one kept, else read from the last synth (the app run first when no
   * synth() ran since), its notes, typecheck and synth timings on the stack only when this load made them.
   */
  async load(source: StackSource): Promise<LoadedStack | { diagnostics: Diagnostic[] }> {
    // Kept: its notes came with the call that loaded it, as its timings did.
    if (this.loaded !== undefined) return { ...this.loaded, diagnostics: [], timings: {} };
    const ran = this.synthesized === undefined;
    if (ran) {
      const { result } = await this.synth(source.env ?? process.env, source.typecheck !== false);
      if (this.synthesized === undefined) return { diagnostics: result.diagnostics };
    }
    const timings = ran ? (this.synthesized ?? {}) : {};
    const loaded = await loadStack({ ...source, typecheck: false, runApp: this.app.run, lastSynth: true });
    if (!("stack" in loaded)) return loaded;
    this.synthesized = undefined;
    this.loaded = loaded;
    return { ...loaded, timings };
  }

  /** Stops the app's process started ahead. */
  close(): void {
    this.app.close();
  }

  private typecheck(): WarmTypecheck | undefined {
    if (this.checker === null) this.checker = WarmTypecheck.open(this.projectDir);
    return this.checker;
  }
}
