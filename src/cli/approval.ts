// Asking for approval and taking Ctrl-C, as `apply`, `destroy` and a run of several stacks do
// (apply-flow.ts, stacks-flow.ts).

import type { Diagnostic } from "../core/index.ts";
import type { RunKind } from "../engine/index.ts";
import type { Console } from "./console.ts";
import { confirm } from "./workspace.ts";

/** Ctrl-C: the first stops new steps (the running ones finish and are recorded), the second exits. */
export class Interrupts {
  count = 0;
  /** While the approval prompt waits, Ctrl-C is its answer (a no), not an interrupt of the run. */
  prompting = false;
  private readonly onInterrupt = (): void => {
    if (this.prompting) return;
    this.count++;
    if (this.count === 1) {
      this.io.err(
        "\nInterrupt received. No new step starts; the steps running now finish and are recorded. Press Ctrl-C again to stop at once (state records every write in flight; the next apply resolves it).",
      );
    } else {
      process.exit(130);
    }
  };

  constructor(private readonly io: Console) {
    process.on("SIGINT", this.onInterrupt);
  }

  close(): void {
    process.off("SIGINT", this.onInterrupt);
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
      summary:
        this.refused === "input-disabled"
          ? `${this.kind} needs approval, and -input=false forbids asking for it`
          : `${this.kind} needs approval, and there is no terminal to ask on`,
      detail: "The plan above was not applied.",
      repair: `Review the plan, then run \`takoform ${this.kind} --auto-approve\`, or save it with \`takoform plan --out FILE\` and apply that file.`,
    };
  }
}
