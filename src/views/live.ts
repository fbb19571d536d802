// The live line of an apply or destroy on a terminal (issue 14 item 5): how many steps have
// finished of how many, how many failed, and the time since the first step started —
// `[120/300 · 4 failed · 40 s]` — kept on the last line of the screen and redrawn in place (each
// second, and after every event line printed above it). Only for a terminal: off a TTY the
// command prints one line per event and nothing else (progress.ts).

import type { ProgressEvent } from "../engine/index.ts";

/** Return to the start of the line and erase it (ANSI CR + EL). */
const ERASE_LINE = "\r\x1b[2K";

export class LiveCounter {
  #total = 0;
  #finished = 0;
  #failed = 0;
  #started: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #drawn = false;

  constructor(
    /** Writes raw text to the terminal (no newline added). */
    private readonly write: (text: string) => void,
    private readonly color = false,
    private readonly now: () => number = Date.now,
  ) {}

  /** How many steps the run has (the plan's steps). */
  setTotal(total: number): void {
    this.#total = total;
  }

  /** Counts a step's end; the first start begins the clock. */
  count(event: ProgressEvent): void {
    if (event.kind === "start" && this.#started === undefined) {
      this.#started = this.now();
      this.#timer = setInterval(() => this.draw(), 1000);
      this.#timer.unref();
    } else if (event.kind === "done" || event.kind === "skipped") {
      this.#finished++;
    } else if (event.kind === "failed") {
      this.#finished++;
      this.#failed++;
    }
  }

  /** The counter's text, e.g. `[120/300 · 4 failed · 40 s]`. */
  text(): string {
    const elapsed = this.#started === undefined ? 0 : Math.floor((this.now() - this.#started) / 1000);
    const failed = this.#failed > 0 ? ` · ${this.color ? `\x1b[31m${this.#failed} failed\x1b[0m` : `${this.#failed} failed`}` : "";
    return `[${this.#finished}/${this.#total}${failed} · ${elapsed} s]`;
  }

  /** Prints a line above the counter: the counter is erased, the line written, the counter drawn again. */
  line(text: string): void {
    this.clear();
    this.write(text.endsWith("\n") ? text : `${text}\n`);
    this.draw();
  }

  /** Draws the counter on the current (last) line, once the run's first step has started. */
  draw(): void {
    if (this.#started === undefined) return;
    this.write(`${ERASE_LINE}${this.text()}`);
    this.#drawn = true;
  }

  /** Erases the counter, so whatever is printed next starts on a clean line. */
  clear(): void {
    if (!this.#drawn) return;
    this.write(ERASE_LINE);
    this.#drawn = false;
  }

  /** Stops the clock and erases the counter. */
  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.clear();
  }
}
