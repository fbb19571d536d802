// The human plan's text, written out in pieces as it is rendered. A plan of 100,000 resources is
// millions of lines; built as one string (and the array of blocks it was joined from) it was the
// peak of a destroy's memory (docs/engine.md, "Memory"). The pieces joined are exactly the text
// the lines joined with "\n" make, so renderPlan (the string) and the CLI's streamed output agree.

const PIECE = 64 * 1024;

export class PlanSink {
  #buffer = "";
  #first = true;
  constructor(private readonly write: (text: string) => void) {}

  /** Appends lines, as `lines.join("\n")` would, after what came before. */
  push(...lines: string[]): void {
    for (const line of lines) {
      this.#buffer += this.#first ? line : `\n${line}`;
      this.#first = false;
    }
    if (this.#buffer.length >= PIECE) this.#flush();
  }

  /** Writes what is left; `trimEnd` drops the trailing newlines first (a plan ending in its errors). */
  end(trimEnd: boolean): void {
    if (trimEnd) this.#buffer = this.#buffer.replace(/\n+$/, "");
    if (this.#buffer.length > 0) this.write(this.#buffer);
    this.#buffer = "";
  }

  // Newlines at the end stay in the buffer, so that end(true) can still drop them.
  #flush(): void {
    let cut = this.#buffer.length;
    while (cut > 0 && this.#buffer.charCodeAt(cut - 1) === 10) cut--;
    if (cut > 0) this.write(this.#buffer.slice(0, cut));
    this.#buffer = this.#buffer.slice(cut);
  }
}
