// The abort of one exchange: its deadline or the caller's signal, whichever comes first
// (connection.ts). A plain object with a list of listeners, where an AbortController per request
// cost about 14 us of client CPU (an AbortSignal is an EventTarget: building it, and adding and
// removing the listeners of the limiter's queue and of the transport), a fifth of what the
// default transport spends on a request. The default transport and the limiter's queue listen
// here; a transport of the caller's own still gets a real AbortSignal, built only when it asks.

/** What a transport or the limiter's queue sees of an exchange's abort. */
export interface ExchangeAbortView {
  readonly aborted: boolean;
  /** Why it was aborted: a `TimeoutError` DOMException for the deadline, else the caller's reason. */
  readonly reason: unknown;
  /** Calls `listener` once on abort; returns the unsubscribe. */
  onAbort(listener: () => void): () => void;
}

export class ExchangeAbort implements ExchangeAbortView {
  #aborted = false;
  #reason: unknown;
  readonly #listeners: (() => void)[] = [];
  #controller: AbortController | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  /** A standard signal for code that needs one, made on first use and aborted with this. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  onAbort(listener: () => void): () => void {
    this.#listeners.push(listener);
    return () => {
      const at = this.#listeners.indexOf(listener);
      if (at >= 0) this.#listeners.splice(at, 1);
    };
  }

  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    for (const listener of this.#listeners.splice(0)) listener();
    this.#controller?.abort(reason);
  }
}
