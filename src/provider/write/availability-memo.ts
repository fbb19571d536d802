// Availability answers (`GET /forms`) remembered for the life of one provider instance — one CLI
// run — so a create-all of 10,000 resources of one Form asks once instead of 10,000 times.
//
// - Only a positive answer is remembered, per (space, exact FormRef, operation). A refusal is
//   never remembered: the next write asks again.
// - Concurrent writes share one in-flight ask. If that ask failed in transport (its caller's
//   deadline, abort signal or connection), the failure says nothing about the other writes, so
//   each of them asks once under its own options; any other failure is the host's answer of
//   that moment and is shared.
// - When the host later refuses a write itself with `form_unknown` or `form_unavailable`, the
//   remembered answer is dropped and the refusal surfaces as it is; the next write asks again.

import { type AvailabilityGate, TransportError } from "../../client/index.ts";
import { type FormRef, formRefKey } from "../../core/index.ts";

export type WriteOperation = "create" | "update";

export class AvailabilityMemo {
  /** Positive answers, and asks still in flight; a failed ask is removed. */
  readonly #answers = new Map<string, Promise<void>>();

  gate(space: string, ref: FormRef, operation: WriteOperation): AvailabilityGate {
    const key = `${space}\n${formRefKey(ref)}\n${operation}`;
    return {
      pass: async (ask) => {
        const pending = this.#answers.get(key);
        if (pending !== undefined) {
          try {
            return await pending;
          } catch (err) {
            if (!(err instanceof TransportError)) throw err;
          }
        }
        await this.#ask(key, ask);
      },
      refused: () => {
        this.#answers.delete(key);
      },
    };
  }

  #ask(key: string, ask: () => Promise<unknown>): Promise<void> {
    const answer = ask().then(() => undefined);
    if (!this.#answers.has(key)) {
      this.#answers.set(key, answer);
      answer.catch(() => {
        if (this.#answers.get(key) === answer) this.#answers.delete(key);
      });
    }
    return answer;
  }
}
