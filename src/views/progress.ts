// Progress of an apply as text: the engine's step events (engine/events.ts) rendered. The form follows Terraform's
// (`takoform_x.y: Creating...`, `takoform_x.y: Creation complete after 0.2s [uid=…]`, and a
// `Still creating... [10s elapsed]` line for slow steps); colour only when asked (a TTY).

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
 * running. `close()` stops the timer.
 */
export class ProgressPrinter {
  readonly #running = new Map<string, { event: Extract<ProgressEvent, { kind: "start" }>; started: number }>();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly write: (line: string) => void,
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
    this.write(progressLine(event, this.color));
  };

  private ensureTimer(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      const now = Date.now();
      for (const { event, started } of this.#running.values()) {
        if (now - started >= this.stillEveryMs) {
          this.write(progressLine({ kind: "still", stepId: event.stepId, address: event.address, action: event.action, elapsedMs: now - started }, this.color));
        }
      }
    }, this.stillEveryMs);
    this.#timer.unref();
  }

  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
