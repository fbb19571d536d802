// Accepted (202) mutations, operation polling and deadlines against a scripted host.

import { describe, expect, it } from "vitest";
import type { HostClient } from "../../src/client/client.ts";
import {
  AcceptedError,
  ClientInputError,
  HostApiError,
  OperationDeadlineError,
  ProtocolInvalidError,
  hostErrorOf,
  isOperationNotFound,
  isResourceNotFound,
} from "../../src/client/errors.ts";
import { API_ROOT } from "./fixtures/lane.ts";
import { NAME, operationDoc, REF, REQUEST, RESOURCE_PATH, resourceDoc, SPACE } from "./fixtures/documents.ts";
import { envelope, type HostileHost } from "./fixtures/hostile-host.ts";
import { connectTo, rejectionOf, scriptedHostPerTest, scriptPrelude } from "./fixtures/scripts.ts";

let host: HostileHost;
let client: HostClient;
const request = REQUEST;
const opPath = (id: string) => `${API_ROOT}/operations/${id}`;
const pending = (id: string, fields = {}) => ({ status: 202, body: { operation: operationDoc(id, fields) }, headers: { "Retry-After": "0" } });

scriptedHostPerTest((h, c) => {
  host = h;
  client = c;
});

describe("202 apply", () => {
  it("TestApplyResourceVia202OperationPolling: polls until done and returns the result resource; a later target.uid wins", async () => {
    scriptPrelude(host);
    host.on("PUT", RESOURCE_PATH, () => pending("op_apply", { target: { uid: "uid-early" } }));
    host.on("GET", opPath("op_apply"), (_req, n) =>
      n < 2
        ? { status: 200, headers: { "Retry-After": "0" }, body: operationDoc("op_apply", { metadata: { phase: "Applying", progress: n * 50 } }) }
        : { status: 200, body: operationDoc("op_apply", { done: true, target: { uid: "uid-1" }, result: { resource: resourceDoc() } }) },
    );
    const result = await client.applyResource(request);
    expect(result).toMatchObject({ status: 202, operationId: "op_apply" });
    expect(result.resource.metadata.uid).toBe("uid-1");
    expect(host.calls.filter((c) => c.path === opPath("op_apply"))).toHaveLength(3);
  });

  it("honours Retry-After on the 202 and on pending polls in full", async () => {
    scriptPrelude(host);
    host.on("PUT", RESOURCE_PATH, () => ({ status: 202, headers: { "Retry-After": "1" }, body: { operation: operationDoc("op_slow") } }));
    host.on("GET", opPath("op_slow"), () => ({ status: 200, body: operationDoc("op_slow", { done: true, result: { resource: resourceDoc() } }) }));
    const started = Date.now();
    await client.applyResource(request, {}, { deadline: Date.now() + 10_000 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
  });

  it("TestApplyResourceReportsAcceptanceWhenTheOperationOutlivesTheDeadline", async () => {
    scriptPrelude(host);
    host.on("PUT", RESOURCE_PATH, () => pending("op_apply_pending", { target: { uid: "uid-9" } }));
    host.on("GET", opPath("op_apply_pending"), () => ({ status: 200, headers: { "Retry-After": "0" }, body: operationDoc("op_apply_pending") }));
    const err = await rejectionOf(client.applyResource(request, {}, { deadline: Date.now() + 300 }));
    expect(err).toBeInstanceOf(AcceptedError);
    expect((err as AcceptedError).operationId).toBe("op_apply_pending");
    expect((err as AcceptedError).uid).toBe("uid-9");
    expect((err as AcceptedError).cause).toBeInstanceOf(OperationDeadlineError);
    expect(err.message).toContain("takoform: the host accepted this mutation but it did not complete verifiably (operation op_apply_pending) (uid uid-9)");
    expect(err.message).toContain("not terminal before the overall deadline");
  });

  it("TestImportResourceReportsAcceptanceWhenTheOperationOutlivesTheDeadline", async () => {
    host.on("POST", `${RESOURCE_PATH}/import`, () => pending("op_import"));
    host.on("GET", opPath("op_import"), () => ({ status: 200, headers: { "Retry-After": "0" }, body: operationDoc("op_import") }));
    const err = await rejectionOf(client.importResource({ ...request, nativeId: "n-1" }, undefined, { deadline: Date.now() + 250 }));
    expect(err).toBeInstanceOf(AcceptedError);
    expect((err as AcceptedError).operationId).toBe("op_import");
  });

  it("TestAwaitOperationOverallDeadline: without a caller deadline the client's overall deadline bounds polling", async () => {
    const short = await connectTo(host, { overallDeadlineMs: 250 });
    try {
      scriptPrelude(host);
      host.on("PUT", RESOURCE_PATH, () => pending("op_forever"));
      host.on("GET", opPath("op_forever"), () => ({ status: 200, headers: { "Retry-After": "0" }, body: operationDoc("op_forever") }));
      const err = await rejectionOf(short.applyResource(request));
      expect(err.message).toContain("operation op_forever not terminal before the overall deadline");
    } finally {
      short.close();
    }
  });

  it("TestAwaitOperationCallerDeadlineOutlivesOverallDeadline", async () => {
    const short = await connectTo(host, { overallDeadlineMs: 100 });
    try {
      scriptPrelude(host);
      host.on("PUT", RESOURCE_PATH, () => pending("op_long"));
      host.on("GET", opPath("op_long"), async (_req, n) => {
        await new Promise((r) => setTimeout(r, 60));
        return n < 3
          ? { status: 200, headers: { "Retry-After": "0" }, body: operationDoc("op_long") }
          : { status: 200, body: operationDoc("op_long", { done: true, result: { resource: resourceDoc() } }) };
      });
      const started = Date.now();
      const result = await short.applyResource(request, {}, { deadline: Date.now() + 5000 });
      expect(Date.now() - started).toBeGreaterThan(100);
      expect(result.operationId).toBe("op_long");
    } finally {
      short.close();
    }
  });

  it("TestAcceptedErrorSurfacesTheUnderlyingCause: a terminal error is typed inside the AcceptedError", async () => {
    scriptPrelude(host);
    host.on("PUT", RESOURCE_PATH, () => pending("op_fail", { target: { uid: "uid-3" } }));
    host.on("GET", opPath("op_fail"), () => ({
      status: 200,
      body: operationDoc("op_fail", { done: true, error: { code: "backend_unavailable", message: "the backend is down", retryable: true, hostCode: "B1" } }),
    }));
    const err = await rejectionOf(client.applyResource(request));
    expect(err).toBeInstanceOf(AcceptedError);
    expect(err.message).toContain("the backend is down");
    const host_ = hostErrorOf(err)!;
    expect([host_.code, host_.status, host_.retryable, host_.hostCode, host_.operationId]).toEqual(["backend_unavailable", 503, true, "B1", "op_fail"]);
    expect((err as AcceptedError).uid).toBe("uid-3");
  });

  it("an unreadable 202 envelope is accepted with no id; a bad terminal result keeps the id", async () => {
    scriptPrelude(host);
    host.on("PUT", RESOURCE_PATH, () => ({ status: 202, body: { operation: { id: "op_x" } } }));
    const unreadable = await rejectionOf(client.applyResource(request));
    expect(unreadable).toBeInstanceOf(AcceptedError);
    expect((unreadable as AcceptedError).operationId).toBeUndefined();

    host.on("PUT", RESOURCE_PATH, () => pending("op_sub"));
    host.on("GET", opPath("op_sub"), () => ({
      status: 200,
      body: operationDoc("op_sub", { done: true, result: { resource: resourceDoc({ name: "other" }) } }),
    }));
    const substituted = await rejectionOf(client.applyResource(request));
    expect((substituted as AcceptedError).operationId).toBe("op_sub");
    expect(substituted.message).toContain("changed the requested resource name");

    host.on("GET", opPath("op_sub"), () => ({ status: 200, body: operationDoc("op_sub", { done: true, result: { deleted: true } }) }));
    expect((await rejectionOf(client.applyResource(request))).message).toContain('unknown member "deleted"');
  });

  it("a poll answering for another operation id, or a poll error before the deadline, is accepted-with-id", async () => {
    scriptPrelude(host);
    host.on("PUT", RESOURCE_PATH, () => pending("op_a"));
    host.on("GET", opPath("op_a"), () => ({ status: 200, body: operationDoc("op_b", { done: true, result: { resource: resourceDoc() } }) }));
    const swapped = await rejectionOf(client.applyResource(request));
    expect((swapped as AcceptedError).operationId).toBe("op_a");
    expect(swapped.message).toContain("host answered for operation op_b, not the requested op_a");

    host.on("GET", opPath("op_a"), () => ({ status: 404, body: envelope("operation_not_found", "expired") }));
    const expired = await rejectionOf(client.applyResource(request));
    expect(isOperationNotFound((expired as AcceptedError).cause)).toBe(true);
  });
});

describe("202 delete", () => {
  it("TestDeleteResourceOperationNotFoundMapsToErrNotFound: a terminal resource_not_found is absence", async () => {
    host.on("DELETE", RESOURCE_PATH, () => pending("op_del"));
    host.on("GET", opPath("op_del"), () => ({
      status: 200,
      body: operationDoc("op_del", { done: true, error: { code: "resource_not_found", message: "gone", retryable: false } }),
    }));
    const err = await rejectionOf(client.deleteResource(SPACE, REF, NAME, { uid: "uid-1", generation: "1" }));
    expect(isResourceNotFound(err)).toBe(true);
    expect(err).toBeInstanceOf(HostApiError);
  });

  it("a terminal success resolves with the operation id; other terminal errors are accepted", async () => {
    host.on("DELETE", RESOURCE_PATH, () => pending("op_del"));
    host.on("GET", opPath("op_del"), () => ({ status: 200, body: operationDoc("op_del", { done: true, result: { deleted: true } }) }));
    expect(await client.deleteResource(SPACE, REF, NAME, { uid: "uid-1", generation: "1" })).toEqual({ status: 202, operationId: "op_del" });
    host.on("GET", opPath("op_del"), () => ({
      status: 200,
      body: operationDoc("op_del", { done: true, error: { code: "dependency_in_use", message: "held", retryable: false } }),
    }));
    const err = await rejectionOf(client.deleteResource(SPACE, REF, NAME, { uid: "uid-1", generation: "1" }));
    expect(err).toBeInstanceOf(AcceptedError);
    expect(isResourceNotFound(err)).toBe(false);
    expect(hostErrorOf(err)?.code).toBe("dependency_in_use");
  });
});

describe("operations API", () => {
  it("TestAwaitOperationTerminalError: policy_denied maps to 403, not retryable, and the operation is returned", async () => {
    host.on("GET", opPath("op_p"), () => ({
      status: 200,
      body: operationDoc("op_p", { done: true, error: { code: "policy_denied", message: "nope", retryable: false } }),
    }));
    const { operation, error } = await client.awaitOperation("op_p");
    expect(operation.id).toBe("op_p");
    expect([error?.code, error?.status, error?.retryable]).toEqual(["policy_denied", 403, false]);
  });

  it("TestCancelOperationAcceptsTheRequestedOperationID", async () => {
    host.on("POST", `${opPath("op_c")}/cancel`, () => ({
      status: 200,
      body: operationDoc("op_c", { done: true, error: { code: "operation_cancelled", message: "cancelled", retryable: false } }),
    }));
    const op = await client.cancelOperation("op_c");
    expect(op.error?.code).toBe("operation_cancelled");
    expect(host.calls[0]!.headers["idempotency-key"]).toMatch(/^takoform-[0-9a-f]{64}$/);
  });

  it("TestCancelOperationRejectsASubstitutedOperationID", async () => {
    host.on("POST", `${opPath("op_c")}/cancel`, () => ({ status: 200, body: operationDoc("op_other", { done: false }) }));
    const err = await rejectionOf(client.cancelOperation("op_c"));
    expect(err).toBeInstanceOf(ProtocolInvalidError);
    expect(err.message).toContain("not the requested op_c");
    await expect(client.cancelOperation("op c")).rejects.toThrow(ClientInputError);
  });

  it("getOperation reports the host's Retry-After and isOperationNotFound only for a 404 operation_not_found", async () => {
    host.on("GET", opPath("op_r"), () => ({ status: 200, headers: { "Retry-After": "3" }, body: operationDoc("op_r") }));
    expect(await client.getOperation("op_r")).toMatchObject({ retryAfterMs: 3000, operation: { done: false } });
    host.on("GET", opPath("op_r"), () => ({ status: 404, body: envelope("operation_not_found", "expired") }));
    expect(isOperationNotFound(await rejectionOf(client.getOperation("op_r")))).toBe(true);
    host.on("GET", opPath("op_r"), () => ({ status: 404, body: envelope("resource_not_found", "x") }));
    expect(isOperationNotFound(await rejectionOf(client.getOperation("op_r")))).toBe(false);
  });
});
