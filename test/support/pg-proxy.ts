// A TCP proxy in front of the test PostgreSQL server that counts the client's round trips: every
// simple Query ('Q') and every Sync ('S', which ends an extended-protocol exchange) is one request
// the client then waits on. Tests read the count to prove "one round trip per write" and "one
// read for a whole plan" against the real driver and server, not a mock.

import { connect, createServer, type AddressInfo, type Server, type Socket } from "node:net";

export interface CountingProxy {
  /** A connection URL through the proxy (same user and database as the server's URL). */
  url: string;
  /** Round trips the clients made since the last reset. */
  roundTrips(): number;
  reset(): void;
  close(): Promise<void>;
}

/** Where the server of `url` listens: its Unix socket or its TCP host and port. */
function target(url: URL): { path: string } | { host: string; port: number } {
  const socketDir = url.searchParams.get("host");
  const port = Number(url.port || 5432);
  if (socketDir !== null && socketDir.startsWith("/")) return { path: `${socketDir}/.s.PGSQL.${port}` };
  return { host: url.hostname, port };
}

export async function countingProxy(serverUrl: string): Promise<CountingProxy> {
  const upstream = new URL(serverUrl);
  const where = target(upstream);
  let count = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const server = connect(where as never);
    sockets.add(client).add(server);
    let started = false;
    let buffer = Buffer.alloc(0);
    client.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      // The startup (and SSL request) message has no type byte: a length, then the body.
      while (!started && buffer.length >= 4) {
        const length = buffer.readInt32BE(0);
        if (buffer.length < length) break;
        const code = buffer.readInt32BE(4);
        buffer = buffer.subarray(length);
        if (code !== 80877103) started = true; // not an SSLRequest: the startup message
      }
      while (started && buffer.length >= 5) {
        const length = buffer.readInt32BE(1);
        if (buffer.length < 1 + length) break;
        const type = String.fromCharCode(buffer[0]!);
        if (type === "Q" || type === "S") count++;
        buffer = buffer.subarray(1 + length);
      }
      server.write(chunk);
    });
    server.on("data", (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      server.destroy();
    };
    client.on("close", end).on("error", end);
    server.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = new URL(`postgresql://127.0.0.1:${port}/`);
  url.username = upstream.username;
  url.password = upstream.password;
  url.pathname = upstream.pathname;
  return {
    url: url.toString(),
    roundTrips: () => count,
    reset: () => {
      count = 0;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A TCP proxy in front of the test PostgreSQL server that can be cut off from it as a network
 * partition cuts a client off: while black-holed, every byte either way is held back (nothing is
 * refused, reset or answered, so the client only sees silence) and new connections are accepted
 * but not forwarded. `heal()` lets the held bytes through in order, as TCP's retransmissions do
 * when a partition ends.
 */
export interface BlackHoleProxy {
  url: string;
  blackHole(): void;
  heal(): void;
  close(): Promise<void>;
}

export async function blackHoleProxy(serverUrl: string): Promise<BlackHoleProxy> {
  const upstream = new URL(serverUrl);
  const where = target(upstream);
  let cut = false;
  const held: (() => void)[] = [];
  const sockets = new Set<Socket>();
  /** Runs `send` now, or once the partition heals. */
  const pass = (send: () => void): void => {
    if (cut) held.push(send);
    else send();
  };
  const server: Server = createServer((client) => {
    sockets.add(client);
    let server: Socket | null = null;
    const end = () => {
      client.destroy();
      server?.destroy();
    };
    client.on("close", end).on("error", end);
    const pending: Buffer[] = [];
    client.on("data", (chunk: Buffer) => (server === null ? pending.push(chunk) : pass(() => server!.write(chunk))));
    pass(() => {
      server = connect(where as never);
      sockets.add(server);
      server.on("data", (chunk: Buffer) => pass(() => client.write(chunk)));
      server.on("close", end).on("error", end);
      for (const chunk of pending.splice(0)) server.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = new URL(`postgresql://127.0.0.1:${port}/`);
  url.username = upstream.username;
  url.password = upstream.password;
  url.pathname = upstream.pathname;
  return {
    url: url.toString(),
    blackHole: () => {
      cut = true;
    },
    heal: () => {
      cut = false;
      for (const send of held.splice(0)) send();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
