// A small HTTP client for runtime tests that need what fetch() hides: a request body written
// chunk by chunk while the response is already being read, and the arrival time of each
// response line. Built on node:http so the request head leaves at once and the response head is
// seen as soon as the server sends it.

import { request as httpRequest, type IncomingMessage } from "node:http";

export interface Line {
  text: string;
  /** performance.now() when the line's last byte arrived. */
  at: number;
}

export interface StreamingExchange {
  /** Resolves with the response head. */
  head: Promise<IncomingMessage>;
  write(bytes: Uint8Array): void;
  end(): void;
  /** Every complete line received so far. */
  readonly lines: Line[];
  /** Resolves when the response has ended (rejects if it was cut off). */
  done: Promise<void>;
  /** Waits until `predicate(lines)` holds, or rejects after `ms`. */
  until(predicate: (lines: readonly Line[]) => boolean, ms: number): Promise<void>;
}

/** Opens a request whose body is written as it is produced (no length: chunked). */
export function exchange(url: string, method: string, headers: Record<string, string> = {}): StreamingExchange {
  const target = new URL(url);
  const lines: Line[] = [];
  const waiters: (() => void)[] = [];
  const notify = (): void => {
    for (const w of waiters.splice(0)) w();
  };
  const req = httpRequest({
    method,
    hostname: target.hostname,
    port: target.port,
    path: target.pathname + target.search,
    headers: { ...headers, "transfer-encoding": "chunked" },
  });
  req.flushHeaders();
  let finished = false;
  let failure: Error | null = null;
  const head = new Promise<IncomingMessage>((resolve, reject) => {
    req.once("response", resolve);
    req.once("error", reject);
  });
  const done = head.then(
    (res) =>
      new Promise<void>((resolve, reject) => {
        let pending = "";
        res.setEncoding("utf8");
        res.on("data", (text: string) => {
          pending += text;
          let nl: number;
          while ((nl = pending.indexOf("\n")) >= 0) {
            lines.push({ text: pending.slice(0, nl), at: performance.now() });
            pending = pending.slice(nl + 1);
          }
          notify();
        });
        res.once("end", () => {
          if (pending.length > 0) lines.push({ text: pending, at: performance.now() });
          finished = true;
          notify();
          resolve();
        });
        res.once("aborted", () => {
          failure = new Error("the response was cut off");
          notify();
          reject(failure);
        });
        res.once("error", (error) => {
          failure = error;
          notify();
          reject(error);
        });
      }),
  );
  done.catch(() => undefined);
  return {
    head,
    write: (bytes) => void req.write(bytes),
    end: () => void req.end(),
    lines,
    done,
    until(predicate, ms) {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`condition not met within ${ms} ms; lines so far: ${JSON.stringify(lines.map((l) => l.text))}`)), ms);
        const check = (): void => {
          if (predicate(lines)) {
            clearTimeout(timer);
            resolve();
          } else if (failure !== null) {
            clearTimeout(timer);
            reject(failure);
          } else if (finished) {
            clearTimeout(timer);
            reject(new Error(`the response ended before the condition held; lines: ${JSON.stringify(lines.map((l) => l.text))}`));
          } else waiters.push(check);
        };
        check();
      });
    },
  };
}

/** Polls `probe` every `everyMs` until it returns a value other than undefined, or fails after `deadlineMs`. */
export async function poll<T>(probe: () => Promise<T | undefined>, everyMs: number, deadlineMs: number, what: string): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not observed within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
