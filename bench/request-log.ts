// Every request of a latency scenario's commands, with its start and end relative to the
// command's start: where the serial round trips before and between the steps are (issue 27).
//
//   node --import tsx bench/request-log.ts N [chained|independent] [create,plan] [--bin PATH]
//
// The command runs against `takoform host serve` behind the bench's LatencyProxy (50 ms round
// trip, 256 accepted at once) with a plain logging HTTP proxy in front of it (loopback, no delay
// of its own beyond a copy). Per command it writes /tmp/takoform-request-log/OP-N.log, one line a
// request sorted by start: `start_ms end_ms status METHOD path`, and prints the wall time.
// Read it with e.g. `head` (discovery, profiles, availability and the first writes) or by slot.

import http from "node:http";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LatencyProxy } from "../test/support/latency-proxy.ts";
import { stack, takoform } from "./commands.ts";
import { startHostProcess } from "./harness.ts";

const ARGS: Record<string, string[]> = {
  create: ["apply", "--config", "stack.json", "--auto-approve"],
  plan: ["plan", "--config", "stack.json", "--detailed-exitcode"],
  destroy: ["destroy", "--config", "stack.json", "--auto-approve"],
};
const OUT = join(tmpdir(), "takoform-request-log");

const n = Number(process.argv[2] ?? 1000);
const chained = process.argv[3] === "chained";
const ops = (process.argv[4] ?? "create").split(",");

/** A logging proxy in front of `upstream`: each request's start and end relative to `clock()`. */
async function loggingProxy(upstream: URL, clock: () => number, log: string[]): Promise<http.Server> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const server = http.createServer((req, res) => {
    const start = clock();
    const body: Buffer[] = [];
    req.on("data", (c: Buffer) => body.push(c));
    req.on("end", () => {
      const options = { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers, agent };
      const forward = http.request(options, (answer) => {
        const out: Buffer[] = [];
        answer.on("data", (c: Buffer) => out.push(c));
        answer.on("end", () => {
          log.push(`${start.toFixed(0)}\t${clock().toFixed(0)}\t${answer.statusCode}\t${req.method} ${req.url}`);
          res.writeHead(answer.statusCode!, answer.headers);
          res.end(Buffer.concat(out));
        });
      });
      forward.end(Buffer.concat(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

const host = await startHostProcess();
const latency = await LatencyProxy.start({ upstream: host.url, rttMs: 50, capacity: 256, retryAfter: "1" });
let t0 = 0;
const log: string[] = [];
const server = await loggingProxy(new URL(latency.url), () => performance.now() - t0, log);
const dir = mkdtempSync(join(tmpdir(), "takoform-request-log-"));
mkdirSync(OUT, { recursive: true });
try {
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  writeFileSync(join(dir, "stack.json"), JSON.stringify(stack(n, { chained, endpoint })));
  for (const op of ops) {
    log.length = 0;
    t0 = performance.now();
    const run = await takoform(ARGS[op]!, dir, [0, 1]);
    const sorted = log.sort((a, b) => Number(a.split("\t")[0]) - Number(b.split("\t")[0]));
    const file = join(OUT, `${op}-${n}${chained ? "-chained" : ""}.log`);
    writeFileSync(file, sorted.join("\n") + "\n");
    console.log(`${op}: ${run.ms.toFixed(0)} ms, ${log.length} requests, ${file}`);
  }
} finally {
  server.close();
  await latency.close();
  host.child.kill();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
