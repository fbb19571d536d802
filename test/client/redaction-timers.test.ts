// The token is redacted from every text that leaves the client (errors, and through them
// diagnostics), never from the data it decodes (docs/client.md §2.12); and waits longer than
// Node's 32-bit timer limit are honoured instead of firing after 1 ms (§2.5).

import type http from "node:http";
import { describe, expect, it } from "vitest";
import type { HostClient } from "../../src/client/client.ts";
import { HostApiError, TransportError } from "../../src/client/errors.ts";
import { REDACTED, redactText } from "../../src/client/redact.ts";
import { MAX_TIMER_MS, setLongTimeout } from "../../src/client/timer.ts";
import { sleep } from "../../src/client/timing.ts";
import { API_ROOT } from "./fixtures/lane.ts";
import type { JsonValue } from "../../src/forms/digest.ts";
import { hostCallDiagnostic } from "../../src/provider/diagnostics/host-fault.ts";
import { renderDiagnostic } from "../../src/core/index.ts";
import { NAME, operationDoc, REF, RESOURCE_PATH, resourceDoc, SPACE } from "./fixtures/documents.ts";
import { envelope, type HostileHost } from "./fixtures/hostile-host.ts";
import { connectTo, rejectionOf, scriptedHostPerTest, TOKEN } from "./fixtures/scripts.ts";

let host: HostileHost;
let client: HostClient;
const fence = { uid: "uid-1", generation: "1" };
const echo = (req: { headers: http.IncomingHttpHeaders }) => String(req.headers["authorization"]);
const opPath = (id: string) => `${API_ROOT}/operations/${id}`;

scriptedHostPerTest((h, c) => {
  host = h;
  client = c;
});

describe("the token is redacted from what leaves the client, never from what it decodes", () => {
  it("an Operation's terminal error: hostMessage, hostCode, the message and the rendered Host: line are redacted; the document is not", async () => {
    host.on("DELETE", RESOURCE_PATH, () => ({ status: 202, body: { operation: operationDoc("op_del1") } }));
    host.on("GET", opPath("op_del1"), (req) => ({
      status: 200,
      body: operationDoc("op_del1", {
        done: true,
        error: { code: "internal_error", message: `boom ${echo(req)}`, hostCode: `E-${echo(req)}`, retryable: false },
      }),
    }));
    const err = await rejectionOf(client.deleteResource(SPACE, REF, NAME, fence));
    const host_ = (err instanceof HostApiError ? err : (err as { cause?: unknown }).cause) as HostApiError;
    expect(host_).toBeInstanceOf(HostApiError);
    expect(host_.hostMessage).toBe(`boom Bearer ${REDACTED}`);
    expect(host_.hostCode).toBe(`E-Bearer ${REDACTED}`);
    const rendered = renderDiagnostic(hostCallDiagnostic("Failed to delete", err, {}));
    expect(rendered).toContain(`Host: boom Bearer ${REDACTED}`);
    expect(rendered).not.toContain(TOKEN);
    expect(JSON.stringify([err.message, err.stack, host_.hostMessage, host_.hostCode])).not.toContain(TOKEN);

    // The document itself is data: decoded as the host wrote it; its typed error is redacted.
    const op = await client.getOperation("op_del1");
    expect(op.operation.error!.message).toBe(`boom Bearer ${TOKEN}`);
    const awaited = await client.awaitOperation("op_del1");
    expect(awaited.error!.hostMessage).toBe(`boom Bearer ${REDACTED}`);
    expect(client.redact(op.operation.error!.message)).toBe(`boom Bearer ${REDACTED}`);
  });

  it("a resource whose uid, name, spec and conditions contain the token is decoded verbatim (issue 11 item 3)", async () => {
    const name = `q-${TOKEN}`;
    const uid = `uid-${TOKEN}`;
    host.on("GET", `${RESOURCE_PATH.slice(0, RESOURCE_PATH.lastIndexOf("/"))}/${name}`, (req) => {
      const doc = resourceDoc({ name, uid, spec: { deliveryDelaySeconds: 0, note: `n ${echo(req)}`, [`k-${TOKEN}`]: [TOKEN] } });
      (doc["status"] as { conditions: JsonValue[] }).conditions = [
        {
          type: "Ready",
          status: "False",
          reason: "ExternalChange",
          hostReason: `relation echoed ${echo(req)}`,
          message: `m ${echo(req)}`,
          lastTransitionTime: "2026-01-01T00:00:00Z",
        },
      ];
      return { status: 200, headers: { ETag: '"1"' }, body: doc };
    });
    const resource = await client.getResource(SPACE, REF, name);
    expect(resource.metadata.uid).toBe(uid);
    expect(resource.metadata.name).toBe(name);
    const condition = resource.status!.conditions![0]! as unknown as Record<string, string>;
    expect(condition["hostReason"]).toBe(`relation echoed Bearer ${TOKEN}`);
    expect(condition["message"]).toBe(`m Bearer ${TOKEN}`);
    expect(resource.spec["note"]).toBe(`n Bearer ${TOKEN}`);
    expect(resource.spec[`k-${TOKEN}`]).toEqual([TOKEN]);
  });

  it("a refusal built from host text is redacted, message and stack", async () => {
    host.on("GET", RESOURCE_PATH, (req) => ({ status: 200, headers: { ETag: '"1"' }, body: { ...resourceDoc(), [`x-${echo(req)}`]: 1 } }));
    const err = await rejectionOf(client.getResource(SPACE, REF, NAME));
    expect(err.message).toContain(`unknown member "x-Bearer ${REDACTED}"`);
    expect(`${err.message}${err.stack}`).not.toContain(TOKEN);
  });

  it("redactText: every occurrence, the same string when there is none or no token", () => {
    expect(redactText("xTOKy TOK", "TOK")).toBe(`x${REDACTED}y ${REDACTED}`);
    const clean = "nothing here";
    expect(redactText(clean, "TOK")).toBe(clean);
    expect(redactText("TOK", undefined)).toBe("TOK");
  });
});

describe("waits past the 32-bit timer limit", () => {
  it("setLongTimeout and sleep do not fire early for a delay of 2^31 ms or more", async () => {
    let fired = false;
    const timer = setLongTimeout(() => (fired = true), MAX_TIMER_MS + 1);
    const controller = new AbortController();
    const slept = sleep(1000 * 3_600_000, controller.signal).then(
      () => "slept",
      () => "aborted",
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fired).toBe(false);
    timer.clear();
    controller.abort(new Error("done"));
    expect(await slept).toBe("aborted");
    let quick = false;
    setLongTimeout(() => (quick = true), 5);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(quick).toBe(true);
  });

  it("a request under a 1000h deadline is not aborted at once, and succeeds", async () => {
    host.on("GET", RESOURCE_PATH, async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { status: 200, headers: { ETag: '"1"' }, body: resourceDoc() };
    });
    const resource = await client.getResource(SPACE, REF, NAME, { deadline: Date.now() + 1000 * 3_600_000 });
    expect(resource.metadata.name).toBe(NAME);
  });

  it("a Retry-After past 2^31 ms under a long caller deadline (and retry window) is waited, not retried after 1 ms", async () => {
    const patient = await connectTo(host, { retry: { windowMs: 1000 * 3_600_000 } });
    host.on("DELETE", RESOURCE_PATH, () => ({
      status: 503,
      headers: { "Retry-After": "3000000" },
      body: envelope("backend_unavailable", "down", { retryable: true }),
    }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("stop")), 150);
    const err = await rejectionOf(patient.deleteResource(SPACE, REF, NAME, fence, { deadline: Date.now() + 1000 * 3_600_000, signal: controller.signal }));
    patient.close();
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).reason).toBe("aborted");
    expect(host.requests.filter((r) => r.method === "DELETE")).toHaveLength(1);
  });
});
