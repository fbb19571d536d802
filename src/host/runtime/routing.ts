// Which requests on the host's port are worker traffic. Two forms reach a worker:
//
//   Host form   the request's Host names a worker address — a WorkerEndpoint's hostname
//               (`<name>-<hash>.workers.localhost`) or a WorkerCustomDomain's — on the served
//               port: `http://counter-endpoint-1a2b3c4d.workers.localhost:8787/`. Any *.localhost
//               name resolves to loopback without DNS setup, and a custom domain works with a
//               Host header (`curl -H 'Host: api.example.com' http://127.0.0.1:8787/`).
//   Path form   `http://127.0.0.1:8787/_worker/<hostname>/<path>` needs neither: the first
//               segment is the address, the rest is the path the worker sees.
//
// The Host API keeps every other request: a Host that is `localhost`, an IP literal or the name
// the server listens on. Any other Host is worker traffic, answered 404 when no worker serves
// it. Runtime controls live under `/_takoform/runtime/`. Neither prefix is a Host API path.
//
// Either way the worker sees the URL of its address on this server, `http://<hostname>:<port>/…`.

import { isIP } from "node:net";

export const WORKER_PATH_PREFIX = "/_worker/";
export const CONTROL_PREFIX = "/_takoform/runtime/";

export type Classified =
  { kind: "worker"; hostname: string; target: string; form: "host" | "path" } | { kind: "control"; path: string; query: string } | { kind: "host-api" };

/** The hostname of a Host header value (lowercase, no port, no trailing dot), or null. */
export function hostnameOf(host: string | undefined): string | null {
  if (host === undefined || host.length === 0) return null;
  let name: string;
  if (host.startsWith("[")) {
    const end = host.indexOf("]");
    if (end < 0) return null;
    name = host.slice(1, end);
  } else {
    const colon = host.lastIndexOf(":");
    name = colon < 0 ? host : host.slice(0, colon);
  }
  name = name.toLowerCase();
  return name.endsWith(".") ? name.slice(0, -1) : name;
}

export function classify(target: string, host: string | undefined, listenHost: string): Classified {
  if (target.startsWith(WORKER_PATH_PREFIX)) {
    const rest = target.slice(WORKER_PATH_PREFIX.length);
    const end = rest.search(/[/?]/);
    const hostname = (end < 0 ? rest : rest.slice(0, end)).toLowerCase().replace(/\.$/, "");
    const tail = end < 0 ? "/" : rest[end] === "?" ? `/${rest.slice(end)}` : rest.slice(end);
    return { kind: "worker", hostname, target: tail, form: "path" };
  }
  if (target.startsWith(CONTROL_PREFIX)) {
    const q = target.indexOf("?");
    return { kind: "control", path: (q < 0 ? target : target.slice(0, q)).slice(CONTROL_PREFIX.length), query: q < 0 ? "" : target.slice(q + 1) };
  }
  const name = hostnameOf(host);
  if (name === null || name === "localhost" || isIP(name) !== 0 || name === listenHost.toLowerCase()) return { kind: "host-api" };
  return { kind: "worker", hostname: name, target, form: "host" };
}

/** The URL a worker sees for a request to `hostname` on this server. */
export function workerUrl(hostname: string, port: number, target: string): string {
  return `http://${hostname}${port === 80 ? "" : `:${port}`}${target}`;
}

/** The path form of an address, which needs no name resolution. `origin` is the server's, e.g. http://127.0.0.1:8787. */
export function workerPathUrl(origin: string, hostname: string): string {
  return `${origin}${WORKER_PATH_PREFIX}${hostname}/`;
}

/** Both forms of one address, for printing. `origin` is the server's, e.g. http://127.0.0.1:8787. */
export function addressForms(hostname: string, origin: string, port: number): { host: string; path: string } {
  return { host: workerUrl(hostname, port, "/"), path: workerPathUrl(origin, hostname) };
}
