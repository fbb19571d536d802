// Progress of an apply as text: the engine's step events (engine/events.ts) rendered. The form follows Terraform's
// (`takoform_x.y: Creating...`, `takoform_x.y: Creation complete after 0.2s [uid=…]`, and a
// `Still creating... [10s elapsed]` line for slow steps); colour only when asked (a TTY).

// The events are taken by their shape: the published WorkspaceEvent's step variants are the same,
// so the command passes a Workspace's events as they come and no engine type is published.
import type { ProgressEvent, ProgressSink, StepAction } from "../engine/index.ts";
import { parseStateAddress } from "../state/index.ts";

const VERB: Record<StepAction, [string, string, string]> = {
  // [running, completed, failed]
  create: ["Creating...", "Creation complete", "Creation failed"],
  "create-placeholder": ["Creating placeholder...", "Placeholder creation complete", "Placeholder creation failed"],
  update: ["Modifying...", "Modifications complete", "Modification failed"],
  finalize: ["Finalizing (full configuration)...", "Finalization complete", "Finalization failed"],
  settle: ["Settling...", "Settling complete", "Settling failed"],
  revert: ["Reverting to placeholder...", "Revert complete", "Revert failed"],
  delete: ["Destroying...", "Destruction complete", "Destruction failed"],
  import: ["Importing...", "Import complete", "Import failed"],
  resume: ["Resuming interrupted write...", "Resume complete", "Resume failed"],
  forget: ["Removing from state...", "Removal complete", "Removal failed"],
};

const STILL: Record<StepAction, string> = {
  create: "Still creating...",
  "create-placeholder": "Still creating...",
  update: "Still modifying...",
  finalize: "Still modifying...",
  settle: "Still modifying...",
  revert: "Still modifying...",
  delete: "Still destroying...",
  import: "Still importing...",
  resume: "Still resuming...",
  forget: "Still removing...",
};

/** A duration as Terraform prints one: `0.2s` under ten seconds, whole seconds above. */
export function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.round(ms / 1000)}s`;
}

function who(address: string): string {
  const { address: base, deposed } = parseStateAddress(address);
  return deposed === null ? base : `${base} (deposed object ${deposed})`;
}

/** One line of text for an event (no trailing newline). */
export function progressLine(event: ProgressEvent, color = false): string {
  const bold = (s: string) => (color ? `\x1b[1m${s}\x1b[0m` : s);
  const red = (s: string) => (color ? `\x1b[31m${s}\x1b[0m` : s);
  switch (event.kind) {
    case "resume":
      return `${bold(`${who(event.address)}:`)} Resuming the ${event.operation} an interrupted apply left unfinished...`;
    case "resumed":
      return `${bold(`${who(event.address)}:`)} ${event.ok ? "Interrupted write resolved" : red("Interrupted write could not be resolved")}`;
    case "start": {
      const verb = VERB[event.action][0];
      const suffix = event.importId !== undefined ? ` [id=${event.importId}]` : event.uid ? ` [uid=${event.uid}]` : "";
      return `${bold(`${who(event.address)}:`)} ${verb}${suffix}`;
    }
    case "still":
      return `${bold(`${who(event.address)}:`)} ${STILL[event.action]} [${seconds(event.elapsedMs)} elapsed]`;
    case "done": {
      if (event.noop) return `${bold(`${who(event.address)}:`)} No change needed after ${seconds(event.elapsedMs)}`;
      const suffix = event.uid ? ` [uid=${event.uid}]` : "";
      return `${bold(`${who(event.address)}:`)} ${VERB[event.action][1]} after ${seconds(event.elapsedMs)}${suffix}`;
    }
    case "failed":
      return `${bold(`${who(event.address)}:`)} ${red(`${VERB[event.action][2]} after ${seconds(event.elapsedMs)}`)}`;
    case "skipped":
      return `${bold(`${who(event.address)}:`)} Skipped: ${event.blockedBy} did not complete`;
  }
}

/**
 * Writes progress lines and, every `stillEveryMs`, a "Still …" line for each step still
 * running. `close()` writes what is pending and stops the timer.
 *
 * The lines of one turn of the event loop are written together, in one call of `write` (the
 * lines joined by newlines) on the turn after: each write to stdout is a system call, and a
 * 100,000-resource apply has 200,000 lines (about 2.5 s of CPU as one write each). A line is
 * still shown within a turn of being made, so a run that hangs on the host shows its last line;
 * whoever writes anything else first calls `flush()`, so no line changes place.
 */
export class ProgressPrinter {
  readonly #running = new Map<string, { event: Extract<ProgressEvent, { kind: "start" }>; started: number }>();
  #timer: NodeJS.Timeout | undefined;
  /** The lines made in this turn, not written yet. */
  #pending: string[] = [];
  #flushing: NodeJS.Immediate | undefined;

  constructor(
    /** Writes one or more lines, joined by newlines (no trailing newline). */
    private readonly write: (lines: string) => void,
    private readonly color: boolean,
    private readonly stillEveryMs = 10_000,
  ) {}

  readonly sink: ProgressSink = (event) => {
    if (event.kind === "start") {
      this.#running.set(event.stepId, { event, started: Date.now() });
      this.ensureTimer();
    } else if (event.kind === "done" || event.kind === "failed") {
      this.#running.delete(event.stepId);
    }
    this.queue(progressLine(event, this.color));
  };

  /** Writes the lines made so far (before anything else is written, and at the end). */
  flush(): void {
    if (this.#flushing !== undefined) {
      clearImmediate(this.#flushing);
      process.removeListener("exit", this.#atExit);
    }
    this.#flushing = undefined;
    if (this.#pending.length === 0) return;
    const text = this.#pending.join("\n");
    this.#pending = [];
    this.write(text);
  }

  private queue(line: string): void {
    this.#pending.push(line);
    if (this.#flushing !== undefined) return;
    this.#flushing = setImmediate(() => this.flush());
    // A second Ctrl-C ends the process at once (process.exit): what this turn made is still
    // written, synchronously, as stdout to a file or a pipe is on Linux.
    process.once("exit", this.#atExit);
  }

  readonly #atExit = (): void => this.flush();

  private ensureTimer(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      const now = Date.now();
      for (const { event, started } of this.#running.values()) {
        if (now - started >= this.stillEveryMs) {
          this.queue(progressLine({ kind: "still", stepId: event.stepId, address: event.address, action: event.action, elapsedMs: now - started }, this.color));
        }
      }
    }, this.stillEveryMs);
    this.#timer.unref();
  }

  close(): void {
    this.flush();
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
