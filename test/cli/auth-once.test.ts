// A credential the host refuses AFTER discovery succeeded is one finding per run (docs/cli.md "One
// diagnostic per cause"), through the command against a real host over HTTP: a gateway in front
// of it passes discovery (and, for a token revoked mid-run, the plan's reads) and answers the
// other calls 401. Whatever the number of resources and Form types, people read ONE error (code
// takoform.provider/host-unauthenticated, the endpoint, the repair) and the run exits 1; `--json`
// keeps every resource's finding as its own element, all members of one group across Form types.
// After the first 401 no new request is sent. A 403 is NOT collapsed across Form types: a
// principal may be allowed some Form types and not others.

import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLocalStateReadOnly } from "../../src/state/index.ts";
import { runCli, Scratch, startHost, type TestHost } from "../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";
const Q = "takoform_at_least_once_queue";
const BUCKET = "takoform_edge_object_bucket";
const RESOURCES = 120;
const TOKEN = "takoform-dev-token";

/** RESOURCES independent resources of three Form types, a third of each. */
function threeFormStack(): Record<string, unknown> {
  const kv: Record<string, unknown> = {};
  const q: Record<string, unknown> = {};
  const bucket: Record<string, unknown> = {};
  for (let i = 0; i < RESOURCES; i++) {
    if (i % 3 === 0) kv[`kv${i}`] = { name: `auth-kv-${i}` };
    else if (i % 3 === 1) q[`q${i}`] = { name: `auth-q-${i}`, message_retention_seconds: 600 };
    else bucket[`b${i}`] = { name: `auth-b-${i}` };
  }
  return { resource: { [KV]: kv, [Q]: q, [BUCKET]: bucket } };
}

/** Each diagnostic a run printed for people starts with `Error:` or `Warning:`. */
function headlines(text: string): string[] {
  return text.split("\n").filter((line) => /^(Error|Warning): /.test(line));
}

/** A request the gateway answered itself, and how. */
interface Refused {
  method: string;
  url: string;
}

/**
 * A gateway in front of the real host: requests `pass` lets through are forwarded unchanged, every
 * other one is answered `status` with the Host API error envelope and recorded in `refused`.
 */
function gateway(host: TestHost, status: 401 | 403, pass: (req: IncomingMessage, body: string) => boolean): { server: Server; refused: Refused[] } {
  const refused: Refused[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      if (req.url!.startsWith("/.well-known/") || pass(req, body.toString("utf8"))) {
        const upstream = httpRequest(`${host.url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(res);
        });
        upstream.end(body);
        return;
      }
      refused.push({ method: req.method!, url: req.url! });
      const code = status === 401 ? "unauthenticated" : "permission_denied";
      const message = status === 401 ? "token revoked" : "this principal may not use this Form";
      res.writeHead(status, { "Content-Type": "application/json", "X-Request-Id": `req-${status}` });
      res.end(JSON.stringify({ error: { code, message, requestId: `req-${status}`, retryable: false } }));
    });
  });
  return { server, refused };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function stateOf(project: Scratch): Promise<{ addresses: string[]; inFlight: number }> {
  const reader = openLocalStateReadOnly(project.path(".takoform", "state.db"));
  try {
    return { addresses: (await reader.list()).map((r) => r.address), inFlight: (await reader.inFlight()).length };
  } finally {
    await reader.close();
  }
}

const SUMMARY = "Authentication failed: the Takoform host did not accept the credential";
const CODE = "takoform.provider/host-unauthenticated";

interface JsonDiagnostic {
  code?: string;
  summary: string;
  address?: string;
  resourceType?: string;
  detail?: string;
  repair?: string;
  group?: { first: number; count: number };
}

/** What a plan sends until the first 401 comes back: support profiles of the three Form types, none twice. */
function expectEachProfileAtMostOnce(refused: Refused[]): void {
  expect(refused.length).toBeGreaterThanOrEqual(1);
  expect(refused.length).toBeLessThanOrEqual(3);
  expect(refused.every((r) => r.url.includes("/support/"))).toBe(true);
  expect(new Set(refused.map((r) => r.url)).size).toBe(refused.length);
}

/** Every element is the credential finding of one resource, all of them one group across the three Form types. */
function expectOneGroup(diagnostics: JsonDiagnostic[], endpoint: string): void {
  expect(diagnostics).toHaveLength(RESOURCES);
  expect(new Set(diagnostics.map((d) => d.address)).size).toBe(RESOURCES);
  expect(new Set(diagnostics.map((d) => d.resourceType))).toEqual(new Set([KV, Q, BUCKET]));
  for (const d of diagnostics) {
    expect([d.code, d.summary]).toEqual([CODE, SUMMARY]);
    expect(d.detail).toContain(endpoint);
    expect(d.group).toEqual({ first: 0, count: RESOURCES });
  }
  expect(diagnostics[0]!.repair).toBe("Set a valid token in the provider block's `token` or TAKOFORM_TOKEN, and run again.");
}

describe("a credential refused after discovery is one finding per run", () => {
  let host: TestHost;
  const servers: Server[] = [];

  beforeAll(async () => {
    host = await startHost();
  });
  afterAll(async () => {
    for (const s of servers) await new Promise<void>((resolve) => s.close(() => resolve()));
    await host.close();
  });

  async function serve(status: 401 | 403, pass: (req: IncomingMessage, body: string) => boolean): Promise<{ endpoint: string; refused: Refused[] }> {
    const g = gateway(host, status, pass);
    servers.push(g.server);
    return { endpoint: await listen(g.server), refused: g.refused };
  }

  it("public discovery, every resource call 401: plan and apply print one error and exit 1, nothing is written, --json is one group", async () => {
    const { endpoint, refused } = await serve(401, () => false);
    const env = { TAKOFORM_ENDPOINT: endpoint, TAKOFORM_TOKEN: TOKEN };
    const project = new Scratch();
    try {
      project.write("stack.json", JSON.stringify(threeFormStack()));

      const plan = await runCli(["plan", "--config", "stack.json"], { cwd: project.dir, env });
      expect(plan.code, plan.stderr).toBe(1);
      expect(headlines(plan.stdout + plan.stderr)).toEqual([`Error: ${SUMMARY}`]);
      expect(plan.stdout).not.toContain("Plan:");
      const printed = plan.stdout + plan.stderr;
      expect(printed).toContain(`The host at ${endpoint} answered 401`);
      expect(printed).toContain(`Code: ${CODE}`);
      expect(printed).toContain("Set a valid token in the provider block's `token` or TAKOFORM_TOKEN, and run again.");
      expect(printed).toContain(`(${RESOURCES} resources),`);
      expect(printed).not.toContain(TOKEN);
      // The plan reads one support profile per Form type, each at most once, and after the first
      // 401 comes back it asks for nothing more. How many of the three went out before that answer
      // depends on how many calls the run keeps going at once (docs/engine.md §9).
      expectEachProfileAtMostOnce(refused);

      refused.length = 0;
      const apply = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: project.dir, env });
      expect(apply.code, apply.stderr).toBe(1);
      expect(headlines(apply.stdout + apply.stderr)).toEqual([`Error: ${SUMMARY}`]);
      expectEachProfileAtMostOnce(refused);
      expect(await stateOf(project)).toEqual({ addresses: [], inFlight: 0 });

      const json = await runCli(["plan", "--config", "stack.json", "--json"], { cwd: project.dir, env });
      expect(json.code).toBe(1);
      expectOneGroup((JSON.parse(json.stdout) as { diagnostics: JsonDiagnostic[] }).diagnostics, endpoint);
      const applyJson = await runCli(["apply", "--config", "stack.json", "--auto-approve", "--json"], { cwd: project.dir, env });
      expect(applyJson.code).toBe(1);
      expectOneGroup((JSON.parse(applyJson.stdout) as { diagnostics: JsonDiagnostic[] }).diagnostics, endpoint);
    } finally {
      project.cleanup();
    }
  }, 240_000);

  it("a token revoked between plan and write: one error, at most --parallelism writes sent, each settled in state", async () => {
    // Reads and `prepare` still pass (the plan succeeds); every write answers 401, after its intent was recorded.
    const { endpoint, refused } = await serve(401, (req) => req.method === "GET" || req.url!.endsWith("/resources/prepare"));
    const env = { TAKOFORM_ENDPOINT: endpoint, TAKOFORM_TOKEN: TOKEN };
    const project = new Scratch();
    const mutationsBefore = host.mutations.length;
    try {
      project.write("stack.json", JSON.stringify(threeFormStack()));
      const apply = await runCli(["apply", "--config", "stack.json", "--auto-approve", "--parallelism", "4"], { cwd: project.dir, env });
      expect(apply.code, apply.stderr).toBe(1);
      expect(headlines(apply.stdout + apply.stderr)).toEqual([`Error: ${SUMMARY}`]);
      expect(apply.stdout + apply.stderr).toContain(`(${RESOURCES} resources),`);
      expect(apply.stdout).toContain("Apply failed! Resources: 0 added, 0 changed, 0 destroyed.");
      // The writes already under way when the first 401 came back were sent; no new one started.
      expect(refused.length).toBeGreaterThanOrEqual(1);
      expect(refused.length).toBeLessThanOrEqual(4);
      expect(refused.every((r) => r.method === "PUT")).toBe(true);
      expect(host.mutations.length).toBe(mutationsBefore);
      // Every write that was sent is settled: nothing left between intent and result.
      expect(await stateOf(project)).toEqual({ addresses: [], inFlight: 0 });
    } finally {
      project.cleanup();
    }
  }, 180_000);

  it("403 stays per Form type: the allowed Form type is created, each forbidden one is one error of its own", async () => {
    // The principal may use ObjectBucket but not the queue or KV Forms.
    const forbidden = /AtLeastOnceQueue|EdgeKVNamespace/;
    const { endpoint } = await serve(403, (req, body) => !forbidden.test(req.url!) && !forbidden.test(body));
    const env = { TAKOFORM_ENDPOINT: endpoint, TAKOFORM_TOKEN: TOKEN };
    const project = new Scratch();
    try {
      project.write("stack.json", JSON.stringify(threeFormStack()));
      const apply = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: project.dir, env });
      expect(apply.code, apply.stderr).toBe(1);
      expect(headlines(apply.stdout + apply.stderr)).toEqual([
        "Warning: Host support for Form AtLeastOnceQueue could not be read at plan time",
        "Warning: Host support for Form EdgeKVNamespace could not be read at plan time",
        "Error: Failed to create AtLeastOnceQueue",
        "Error: Failed to create EdgeKVNamespace",
      ]);
      expect(apply.stderr).toContain("Code: permission_denied (host, HTTP 403)");
      expect(apply.stdout).toContain(`Apply failed! Resources: ${RESOURCES / 3} added, 0 changed, 0 destroyed.`);
      const state = await stateOf(project);
      expect(state.inFlight).toBe(0);
      expect(state.addresses).toHaveLength(RESOURCES / 3);
      expect(state.addresses.every((a) => a.startsWith(`${BUCKET}.`))).toBe(true);
    } finally {
      project.cleanup();
    }
  }, 180_000);
});
