// Asking for approval and taking Ctrl-C, as `apply`, `destroy` and a run of several stacks do
// (apply-flow.ts, stacks-flow.ts).

import type { Diagnostic } from "../automation/api.ts";
import type { Console } from "./console.ts";
import { confirm } from "./workspace.ts";
import { cliCode } from "./codes.ts";

/** The run an approval is asked for (the engine's RunKind, spelled out: the CLI names no engine type). */
type RunKind = "apply" | "destroy" | "refresh";

/**
 * The signals that stop a run as Ctrl-C does: SIGINT (Ctrl-C) and SIGTERM (`kill`, `timeout`, a CI
 * system cancelling a job). Their numbers give the exit status of a run one stopped (128 + n).
 */
const STOP_SIGNALS = { SIGINT: 2, SIGTERM: 15 } as const;
export type StopSignal = keyof typeof STOP_SIGNALS;

/**
 * Ctrl-C or SIGTERM: the first stops new steps (the running ones finish and are recorded), the
 * second exits at once. Either way state stays consistent: every write in flight has its intent
 * recorded before its request, and the next apply resolves it.
 */
export class Interrupts {
  count = 0;
  /** The first signal that stopped the run; null while none has. */
  signal: StopSignal | null = null;
  /** While the approval prompt waits, a signal is its answer (a no), not an interrupt of the run. */
  prompting = false;
  private readonly handlers = new Map<StopSignal, () => void>();

  constructor(private readonly io: Console) {
    for (const signal of Object.keys(STOP_SIGNALS) as StopSignal[]) {
      const handler = (): void => this.receive(signal);
      this.handlers.set(signal, handler);
      process.on(signal, handler);
    }
  }

  private receive(signal: StopSignal): void {
    if (this.prompting) return;
    this.count++;
    this.signal ??= signal;
    if (this.count > 1) process.exit(128 + STOP_SIGNALS[signal]);
    const again = signal === "SIGINT" ? "Press Ctrl-C again" : "Send SIGTERM (or Ctrl-C) again";
    this.io.err(
      `\n${signal === "SIGINT" ? "Interrupt" : "SIGTERM"} received. No new step starts; the steps running now finish and are recorded. ${again} to stop at once (state records every write in flight; the next apply resolves it).`,
    );
  }

  /** A run a signal stopped exits 128 + the signal's number (130, 143), whatever else it did; else with its own status. */
  exitCode(own: number): number {
    return this.signal === null ? own : 128 + STOP_SIGNALS[this.signal];
  }

  close(): void {
    for (const [signal, handler] of this.handlers) process.off(signal, handler);
  }
}

/**
 * Terraform's approval prompt; with -input=false, without a terminal (or with --json) the answer
 * is no, and the command says why.
 */
export class Approval {
  /** Asked, but -input=false forbade asking, or there was no terminal to ask on. */
  refused: "no-tty" | "input-disabled" | null = null;

  constructor(
    private readonly kind: RunKind,
    private readonly io: Console,
    private readonly interrupts: Interrupts,
    private readonly input: boolean,
  ) {}

  async ask(): Promise<boolean> {
    if (!this.input) {
      this.refused = "input-disabled";
      return false;
    }
    if (this.io.json) {
      this.refused = "no-tty";
      return false;
    }
    this.interrupts.prompting = true;
    let answer: boolean | "no-tty";
    try {
      const destroy = this.kind === "destroy";
      answer = await confirm(
        destroy ? "Do you really want to destroy all resources?" : "Do you want to perform these actions?",
        destroy
          ? "Takoform will destroy all your managed infrastructure, as shown above. There is no undo."
          : "Takoform will perform the actions described above.",
      );
    } finally {
      this.interrupts.prompting = false;
    }
    if (answer === "no-tty") {
      this.refused = "no-tty";
      return false;
    }
    return answer;
  }

  refusal(): Diagnostic {
    return {
      severity: "error",
      code: cliCode("approval-required"),
      summary:
        this.refused === "input-disabled"
          ? `${this.kind} needs approval, and -input=false forbids asking for it`
          : `${this.kind} needs approval, and there is no terminal to ask on`,
      detail: "The plan above was not applied.",
      repair: `Review the plan, then run \`takoform ${this.kind} --auto-approve\`, or save it with \`takoform plan --out FILE\` and apply that file.`,
    };
  }
}
