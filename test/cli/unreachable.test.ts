// One diagnostic per cause (issue 14 item 6), through the command: a host that cannot be used at
// all — nothing listening, a name that does not resolve, a TLS server with a bad certificate, a
// refused token (401), a forbidden one (403), a server that is not a Takoform host — is reported
// ONCE, with its own code and title, the endpoint and the repair; `plan` then exits 1 and plans
// nothing, however many resources the stack has.

import { createServer as createHttpServer, request as httpRequest, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, Scratch, startHost, type TestHost } from "../scenario/harness.ts";
import { bigStack } from "../support/big-stack.ts";
import { probeTcp } from "../support/tcp-probe.ts";

const TLS = (name: string) => readFileSync(fileURLToPath(new URL(`../support/tls/${name}`, import.meta.url)));

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return String((server.address() as AddressInfo).port);
}

/**
 * A port nothing listens on. Not one the kernel handed out and took back: the suite's other files
 * listen on ephemeral ports at the same time, and one of them took such a port between this file's
 * beforeAll and its test (CI saw "lane unavailable" from whatever answered there). The kernel never
 * hands out a port under 1024 for `listen(0)`, so the first of those that refuses a connection now
 * stays refused for the whole run.
 */
async function refusedPort(): Promise<string> {
  for (let port = 1; port < 1024; port++) {
    if ((await probeTcp(port)) === "refused") return String(port);
  }
  throw new Error("every port under 1024 accepts connections on 127.0.0.1");
}

/** Counts the diagnostics a run printed for people (each starts with `Error:` or `Warning:`). */
function headlines(text: string): string[] {
  return text.split("\n").filter((line) => /^(Error|Warning): /.test(line));
}

describe("a host that cannot be used is one diagnostic for its cause", () => {
  const scratch = new Scratch();
  const servers: Server[] = [];
  let host: TestHost;
  const endpoints: Record<string, string> = {};

  beforeAll(async () => {
    scratch.write("stack.json", JSON.stringify(bigStack(300)));
    host = await startHost();
    endpoints["refused"] = `http://127.0.0.1:${await refusedPort()}`;
    // RFC 2606: `.invalid` never resolves. The endpoint must be https (plain http is for loopback only).
    endpoints["dns"] = "https://takoform-unreachable.invalid";
    const tls = createHttpsServer({ key: TLS("self-signed.key"), cert: TLS("self-signed.crt") }, (_req, res) => res.end("{}"));
    servers.push(tls);
    endpoints["tls"] = `https://127.0.0.1:${await listen(tls)}`;
    // A gateway that refuses the credential's principal, with the Host API's error envelope.
    const forbidden = createHttpServer((_req, res) => {
      res.writeHead(403, { "Content-Type": "application/json", "X-Request-Id": "req-403" });
      res.end(
        JSON.stringify({ error: { code: "permission_denied", message: "principal developer may not use this host", requestId: "req-403", retryable: false } }),
      );
    });
    servers.push(forbidden);
    endpoints["forbidden"] = `http://127.0.0.1:${await listen(forbidden)}`;
    // Some other service: it answers every GET with a JSON document of its own.
    const other = createHttpServer((_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ service: "metrics", version: 3 }));
    });
    servers.push(other);
    endpoints["other"] = `http://127.0.0.1:${await listen(other)}`;
  });
  afterAll(async () => {
    for (const s of servers) await new Promise<void>((resolve) => s.close(() => resolve()));
    await host.close();
    scratch.cleanup();
  });

  const cases: { name: string; endpoint: () => string; token?: string; code: string; summary: string }[] = [
    {
      name: "connection refused",
      endpoint: () => endpoints["refused"]!,
      code: "host-connection-refused",
      summary: "Cannot connect to the Takoform host: connection refused",
    },
    {
      name: "DNS failure",
      endpoint: () => endpoints["dns"]!,
      code: "host-name-unresolved",
      summary: "Cannot connect to the Takoform host: its name does not resolve",
    },
    {
      name: "TLS failure",
      endpoint: () => endpoints["tls"]!,
      code: "host-tls-failed",
      summary: "Cannot connect to the Takoform host: the TLS handshake failed",
    },
    {
      name: "401",
      endpoint: () => host.url,
      token: "not-the-token-the-host-knows",
      code: "host-unauthenticated",
      summary: "Authentication failed: the Takoform host did not accept the credential",
    },
    {
      name: "403",
      endpoint: () => endpoints["forbidden"]!,
      code: "host-permission-denied",
      summary: "Authorization failed: the credential is not allowed to use this Takoform host",
    },
    {
      name: "a wrong discovery document",
      endpoint: () => endpoints["other"]!,
      code: "host-discovery-invalid",
      summary: "The endpoint does not serve a Takoform Host API discovery document",
    },
  ];

  for (const c of cases) {
    it(`${c.name}: plan prints one error with the endpoint and the repair, and exits 1`, async () => {
      const env = { TAKOFORM_ENDPOINT: c.endpoint(), TAKOFORM_TOKEN: c.token ?? "takoform-dev-token" };
      const plan = await runCli(["plan", "--config", "stack.json"], { cwd: scratch.dir, env });
      expect(plan.code, plan.stderr).toBe(1);
      expect(headlines(plan.stderr)).toEqual([`Error: ${c.summary}`]);
      expect(headlines(plan.stdout)).toEqual([]);
      expect(plan.stdout).not.toContain("Plan:");
      expect(plan.stderr).toContain(c.endpoint());
      expect(plan.stderr).toContain(`Code: takoform.provider/${c.code}`);
      expect(plan.stderr).not.toContain("lane unavailable");
      expect(plan.stderr).not.toContain("not-the-token-the-host-knows");

      // --json: the same one diagnostic, as data.
      const json = await runCli(["plan", "--config", "stack.json", "--json"], { cwd: scratch.dir, env });
      expect(json.code).toBe(1);
      const doc = JSON.parse(json.stdout) as { diagnostics: { code: string; summary: string; repair: string }[] };
      expect(doc.diagnostics.map((d) => [d.code, d.summary])).toEqual([[`takoform.provider/${c.code}`, c.summary]]);
      expect(doc.diagnostics[0]!.repair.length).toBeGreaterThan(20);
    }, 120_000);
  }

  it("a host that forbids every resource call: the same finding on 150 resources is printed once with a count, and kept per resource in JSON", async () => {
    // Discovery passes through to the real host; every other call is refused with 403.
    const gateway = createHttpServer((req, res) => {
      if (req.url!.startsWith("/.well-known/")) {
        const upstream = httpRequest(`${host.url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(res);
        });
        req.pipe(upstream);
        return;
      }
      res.writeHead(403, { "Content-Type": "application/json", "X-Request-Id": "req-gw" });
      res.end(JSON.stringify({ error: { code: "permission_denied", message: "this principal may not write here", requestId: "req-gw", retryable: false } }));
    });
    servers.push(gateway);
    const env = { TAKOFORM_ENDPOINT: `http://127.0.0.1:${await listen(gateway)}`, TAKOFORM_TOKEN: "takoform-dev-token" };
    const project = new Scratch();
    try {
      project.write("stack.json", JSON.stringify(bigStack(300)));
      const apply = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: project.dir, env });
      expect(apply.code).toBe(1);
      // One finding per Form (the summary names it), each on its 150 resources.
      expect(headlines(apply.stdout + apply.stderr)).toEqual([
        "Warning: Host support for Form AtLeastOnceQueue could not be read at plan time",
        "Warning: Host support for Form EdgeKVNamespace could not be read at plan time",
        "Error: Failed to create AtLeastOnceQueue",
        "Error: Failed to create EdgeKVNamespace",
      ]);
      expect(apply.stderr).toContain(
        "  with takoform_at_least_once_queue.q1, takoform_at_least_once_queue.q101, takoform_at_least_once_queue.q103 and 147 more (150 resources),",
      );
      expect(apply.stderr).toContain("Code: permission_denied (host, HTTP 403)");

      const json = await runCli(["apply", "--config", "stack.json", "--auto-approve", "--json"], { cwd: project.dir, env });
      expect(json.code).toBe(1);
      const doc = JSON.parse(json.stdout) as { diagnostics: { summary: string; address: string; group?: { first: number; count: number } }[] };
      const failed = doc.diagnostics.filter((d) => d.summary.startsWith("Failed to create"));
      expect(failed).toHaveLength(300);
      expect(new Set(failed.map((d) => d.address)).size).toBe(300);
      expect(failed.every((d) => d.group?.count === 150)).toBe(true);
      const first = failed[0]!.group!.first;
      expect(doc.diagnostics[first]!.summary).toBe(failed[0]!.summary);
    } finally {
      project.cleanup();
    }
  }, 180_000);

  it("apply against a dead endpoint: one error, nothing written to the state's resources", async () => {
    const env = { TAKOFORM_ENDPOINT: endpoints["refused"]!, TAKOFORM_TOKEN: "takoform-dev-token" };
    const apply = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: scratch.dir, env });
    expect(apply.code).toBe(1);
    expect(headlines(apply.stderr)).toEqual(["Error: Cannot connect to the Takoform host: connection refused"]);
    expect(headlines(apply.stdout)).toEqual([]);
  }, 120_000);
});
