// The keep-alive connections of the default transport (transport.ts): one undici Client (one
// connection, no pipelining) per request in flight, per origin, handed out last-freed first.
//
// Why not undici's own Pool: it hands a connection back one turn of the event loop after its
// answer (a host that closes it despite keep-alive shows by then), and a request sent in that turn
// (the engine sends the next step's request as soon as an answer arrives) opens a new one. At a
// distance that is a TCP (and TLS) handshake more for that request, and a pool of about twice the
// requests in flight: 484 connections for at most 298 requests in flight in the bench's 10,000-read
// plan. Here a connection is free for us the moment its answer is complete; a request given to it
// within that turn waits in the Client for the turn, on the same connection.

import { createRequire } from "node:module";
import type { buildConnector, Client as UndiciClient, Dispatcher } from "undici";

type ClientClass = new (origin: string, options: UndiciClient.Options) => UndiciClient;
type BuildConnector = (options: buildConnector.BuildOptions) => buildConnector.connector;
let modules: { Client: ClientClass; buildConnector: BuildConnector } | undefined;

/** undici's Client and connector modules alone (its index loads fetch, caches and more: about 120 ms against 30). */
function load(): { Client: ClientClass; buildConnector: BuildConnector } {
  const require = createRequire(import.meta.url);
  modules ??= {
    Client: require("undici/lib/dispatcher/client.js") as ClientClass,
    buildConnector: require("undici/lib/core/connect.js") as BuildConnector,
  };
  return modules;
}

const CLIENT_OPTIONS: UndiciClient.Options = {
  // The client bounds every exchange by its own deadline (connection.ts); undici's 300 s defaults
  // would cut a long one short under a longer deadline.
  headersTimeout: 0,
  bodyTimeout: 0,
};

/** Connections per origin; `max` caps them (undefined: one per request in flight). */
export class OriginPools {
  readonly #pools = new Map<string, OriginPool>();

  constructor(readonly max: number | undefined) {
    load();
  }

  /** Sends `options` on a free connection of its origin; `handler` must call `done` once the exchange is over. */
  dispatch(options: Dispatcher.DispatchOptions & { origin: string }, handler: (done: () => void) => Dispatcher.DispatchHandler): void {
    let pool = this.#pools.get(options.origin);
    if (pool === undefined) this.#pools.set(options.origin, (pool = new OriginPool(options.origin, this.max)));
    pool.dispatch(options, handler);
  }

  destroy(): void {
    for (const pool of this.#pools.values()) pool.destroy();
    this.#pools.clear();
  }
}

class OriginPool {
  readonly #free: UndiciClient[] = [];
  readonly #all: UndiciClient[] = [];
  /** Exchanges waiting for a connection while `max` are busy. */
  readonly #waiting: (() => void)[] = [];
  /** One connector for the origin's connections, so they share its TLS session cache (resumption), as in undici's Pool. */
  readonly #connect = load().buildConnector({});

  constructor(
    readonly origin: string,
    readonly max: number | undefined,
  ) {}

  dispatch(options: Dispatcher.DispatchOptions, handler: (done: () => void) => Dispatcher.DispatchHandler): void {
    const client = this.#free.pop() ?? this.#open();
    if (client === undefined) {
      this.#waiting.push(() => this.dispatch(options, handler));
      return;
    }
    let released = false;
    const done = (): void => {
      if (released) return;
      released = true;
      this.#free.push(client);
      this.#waiting.shift()?.();
    };
    client.dispatch(options, handler(done));
  }

  #open(): UndiciClient | undefined {
    if (this.max !== undefined && this.#all.length >= this.max) return undefined;
    const client = new (load().Client)(this.origin, { ...CLIENT_OPTIONS, connect: this.#connect });
    this.#all.push(client);
    return client;
  }

  destroy(): void {
    for (const client of this.#all) void client.destroy().catch(() => undefined);
  }
}
