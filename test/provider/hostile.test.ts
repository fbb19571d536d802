// Hosts that answer badly. The client refuses malformed answers (duplicate members, a
// substituted identity, a missing ETag, a non-empty 204, unexpected statuses); these tests check
// that the provider turns each refusal into a clear diagnostic and leaves state as it was. A
// write whose answer is refused keeps its intent (its outcome is unknown), and resuming it
// adopts the host's verified replay, so nothing is lost and nothing unverified is recorded.
// A tampering transport rewrites the real local host's answers.

import { describe, expect, it } from "vitest";
import type { HostTransportRequest, HostTransportResponse } from "../../src/client/transport.ts";
import { OPERATION_API_VERSION, renderDetail } from "../../src/core/index.ts";
import { hostFaultOf } from "../../src/provider/diagnostics/host-fault.ts";
import { AcceptedError, HostApiError, ProtocolInvalidError, TransportError } from "../../src/client/errors.ts";
import { errorsOf, mustCreate, mustRead, useRig, workerStack } from "./harness.ts";

const text = (b: Uint8Array) => Buffer.from(b).toString("utf8");
const rewrite = (res: HostTransportResponse, edit: (body: string) => string): HostTransportResponse => ({ ...res, body: Buffer.from(edit(text(res.body))) });
const isResourceGet = (req: HostTransportRequest, name: string) => req.method === "GET" && new URL(req.url).pathname.endsWith(`/${name}`);

describe("malformed host answers", () => {
  const r = useRig();

  const readCases: [string, (res: HostTransportResponse) => HostTransportResponse, string][] = [
    ["duplicate members", (res) => rewrite(res, (b) => b.replace('"kind":"ModuleWorker"', '"kind":"ModuleWorker","kind":"ModuleWorker"')), "duplicate"],
    ["a substituted identity", (res) => rewrite(res, (b) => b.replace('"name":"counter"', '"name":"someone"')), "changed the requested resource name or space"],
    [
      "a substituted exact ref",
      (res) => rewrite(res, (b) => b.replace('"definitionVersion":"0.1.0"', '"definitionVersion":"0.2.0"')),
      "changed the exact FormRef identity",
    ],
    ["a missing ETag", (res) => ({ ...res, headers: Object.fromEntries(Object.entries(res.headers).filter(([k]) => k !== "etag")) }), "ETag"],
    ["an unexpected status", () => ({ status: 418, headers: {}, body: Buffer.from("teapot") }), "418"],
    ["an unexpected success status", (res) => ({ ...res, status: 203 }), "203"],
  ];
  for (const [label, tamper, why] of readCases) {
    it(`a read answered with ${label} is an error that keeps state`, async () => {
      const state = await mustCreate(r, "takoform_module_worker", { name: "counter" });
      r.tamper = (req, res) => (isResourceGet(req, "counter") ? tamper(res) : undefined);
      const out = await r.provider.read(state);
      expect(out.state).toBe(state);
      const [d] = out.diagnostics;
      expect(d!.summary).toBe("Failed to read ModuleWorker");
      expect(d!.host?.protocolInvalid).toBe(true);
      expect(d!.cause).toContain(why);
      expect(d!.expectedUid).toBe(state.attributes["uid"]);
      expect(renderDetail(d!)).toContain("protocol-invalid host response (HTTP");
      expect(renderDetail(d!)).toContain("will not guess a remedy");
    });
  }

  it("a stable host error on read is rendered with its code, and is never read as absence", async () => {
    const state = await mustCreate(r, "takoform_module_worker", { name: "counter" });
    r.tamper = (req) =>
      isResourceGet(req, "counter")
        ? {
            status: 404,
            headers: {},
            body: Buffer.from(JSON.stringify({ error: { code: "form_unknown", message: "no such form", requestId: "req_9", retryable: false } })),
          }
        : undefined;
    const out = await r.provider.read(state);
    expect(out.state).toBe(state);
    expect(renderDetail(out.diagnostics[0]!)).toContain("Code: form_unknown (host, HTTP 404)");
    r.tamper = (req) => (isResourceGet(req, "counter") ? { status: 404, headers: {}, body: Buffer.from("404 page not found") } : undefined);
    expect((await r.provider.read(state)).state).toBe(state);
  });

  it("a create answered with a substituted identity records nothing and keeps its intent; resuming it adopts the verified replay", async () => {
    r.tamper = (req, res) => (req.method === "PUT" ? rewrite(res, (b) => b.replace('"name":"counter"', '"name":"other"')) : undefined);
    const plan = await r.provider.plan({ type: "takoform_module_worker", address: "m", prior: null, config: { name: "counter" } });
    const out = await r.provider.create("takoform_module_worker", plan.planned!, r.context());
    expect(out.unresolved).toBe(true);
    expect(out.state).toBeNull();
    expect(out.diagnostics.map((d) => d.summary)).toEqual(["The host's reply to the ModuleWorker create names another object; its outcome is unknown"]);
    expect(out.diagnostics[0]!.detail).toContain("names another object than the one the request addressed");
    expect(out.diagnostics[0]!.cause).toContain("changed the requested resource name or space");
    r.tamper = undefined;
    const resumed = await r.provider.resumeWrite(r.intents.at(-1)!, null);
    expect(errorsOf(resumed.diagnostics)).toEqual([]);
    expect(resumed.state!.attributes["uid"]).toBe(
      r.host.controls.resource({
        tenant: "dev",
        space: "default",
        apiVersion: resumed.state!.attributes["form_api_version"] as string,
        kind: "ModuleWorker",
        name: "counter",
      })!.uid,
    );
  });

  it("an update answered without its ETag keeps the prior state and its intent: the outcome is unknown", async () => {
    const state = await mustCreate(r, "takoform_at_least_once_queue", { name: "q", message_retention_seconds: 600 });
    r.tamper = (req, res) =>
      req.method === "PUT" ? { ...res, headers: Object.fromEntries(Object.entries(res.headers).filter(([k]) => k !== "etag")) } : undefined;
    const out = await r.provider.update("takoform_at_least_once_queue", state, { ...state.attributes, message_retention_seconds: 900 }, r.context());
    expect(out.state).toBe(state);
    expect(out.unresolved).toBe(true);
    expect(out.diagnostics[0]).toMatchObject({
      summary: "The outcome of the AtLeastOnceQueue update is unknown",
      expectedGeneration: "1",
      expectedUid: state.attributes["uid"],
    });
    expect(out.diagnostics[0]!.detail).toContain("the body is not a verified answer to this request");
    expect(out.diagnostics[0]!.host).toMatchObject({ accepted: true, protocolInvalid: true, status: 200, uid: state.attributes["uid"] });
    expect(renderDetail(out.diagnostics[0]!)).toContain("Code: protocol-invalid host response (HTTP 200)");
    r.tamper = undefined;
    const read = await mustRead(r, state);
    expect(read.attributes).toMatchObject({ generation: "2", message_retention_seconds: 900 });
  });

  it("an update whose reply names another uid is refused: state keeps the fenced uid, and the resumed intent records the host's", async () => {
    const state = await mustCreate(r, "takoform_at_least_once_queue", { name: "q", message_retention_seconds: 600 });
    const uid = state.attributes["uid"] as string;
    const fresh = `${uid.slice(0, -1)}${uid.endsWith("z") ? "y" : "z"}`;
    r.tamper = (req, res) => (req.method === "PUT" ? rewrite(res, (b) => b.replace(`"uid":"${uid}"`, `"uid":"${fresh}"`)) : undefined);
    const out = await r.provider.update("takoform_at_least_once_queue", state, { ...state.attributes, message_retention_seconds: 900 }, r.context());
    expect(out).toMatchObject({ state, unresolved: true });
    expect(out.diagnostics[0]!.summary).toBe("The host's reply to the AtLeastOnceQueue update names another object; its outcome is unknown");
    expect(out.diagnostics[0]!.cause).toContain(`names uid ${fresh}, not the uid ${uid} the request was fenced on`);
    r.tamper = undefined;
    const resumed = await r.provider.resumeWrite(r.intents.at(-1)!, state);
    expect(errorsOf(resumed.diagnostics)).toEqual([]);
    expect(resumed.state!.attributes).toMatchObject({ uid, generation: "2", message_retention_seconds: 900 });
  });

  it("a delete answered with a non-empty 204 keeps state and its intent; a refresh then sees it gone", async () => {
    const state = await mustCreate(r, "takoform_module_worker", { name: "counter" });
    r.tamper = (req, res) => (req.method === "DELETE" ? { ...res, body: Buffer.from("{}") } : undefined);
    const out = await r.provider.delete("takoform_module_worker", state, r.context());
    expect(out.state).toBe(state);
    expect(out.unresolved).toBe(true);
    expect(out.diagnostics[0]!.summary).toBe("The outcome of the ModuleWorker delete is unknown");
    expect(out.diagnostics[0]!.host?.accepted).toBe(true);
    r.tamper = undefined;
    expect((await r.provider.read(state)).state).toBeNull();
  });

  it("a refused delete (dependency_in_use) keeps state and shows the host's code and repair", async () => {
    const stack = await workerStack(r);
    const out = await r.provider.delete("takoform_worker_bundle", stack.bundle, r.context());
    expect(out.state).toBe(stack.bundle);
    const text = renderDetail(out.diagnostics[0]!);
    expect(text).toContain("Code: dependency_in_use (host, HTTP 409)");
    expect(text).toContain("Expected generation: 1");
    expect(text).toContain("Another resource still references this one");
  });

  describe("declared outputs", () => {
    async function endpointRig() {
      const stack = await workerStack(r);
      await mustCreate(r, "takoform_worker_deployment", {
        name: "live",
        worker: "counter",
        versions: [{ worker_version: stack.version.attributes["name"], weight: 10000 }],
      });
    }
    const outputEdits: [string, (b: string) => string, string][] = [
      ["an omitted output", (b) => b.replace(/"hostname":"[^"]*",?/, ""), "status.outputs omits it"],
      ["no outputs document", (b) => b.replace(/,"outputs":\{[^}]*\}/, ""), "carries no status.outputs document"],
      ["a mistyped output", (b) => b.replace(/"hostname":"[^"]*"/, '"hostname":8443'), "it is declared string and the host returned the number 8443"],
    ];

    for (const [label, edit, detail] of outputEdits) {
      it(`TestV3AMalformedDeclaredOutputFailsTheWrite: ${label}`, async () => {
        await endpointRig();
        r.tamper = (req, res) => (req.method === "PUT" && req.url.includes("/WorkerEndpoint/") ? rewrite(res, edit) : undefined);
        const plan = await r.provider.plan({ type: "takoform_worker_endpoint", address: "e", prior: null, config: { name: "ep", worker: "counter" } });
        const out = await r.provider.create("takoform_worker_endpoint", plan.planned!, r.context());
        const [d] = errorsOf(out.diagnostics);
        expect(d!.summary).toBe("Host response does not satisfy the declared output hostname");
        expect(d!.detail).toContain(detail);
        // The resource exists on the host, so state is kept (outputs null) rather than orphaned.
        expect(out.state!.attributes).toMatchObject({ name: "ep", hostname: null });
      });
    }

    it("TestV3AMalformedDeclaredOutputFailsARefresh", async () => {
      await endpointRig();
      const state = await mustCreate(r, "takoform_worker_endpoint", { name: "ep", worker: "counter" });
      r.tamper = (req, res) => (isResourceGet(req, "ep") ? rewrite(res, outputEdits[2]![1]) : undefined);
      const out = await r.provider.read(state);
      expect(out.state).toBe(state);
      expect(errorsOf(out.diagnostics)[0]!.summary).toBe("Host response does not satisfy the declared output hostname");
    });

    it("TestV3TypedOutputsAreWrittenOnAnInterruptedApply: null outputs, no output fault", async () => {
      await endpointRig();
      // Interrupted: the host accepts the PUT as an Operation, which it then no longer knows.
      const accepted = { apiVersion: OPERATION_API_VERSION, kind: "Operation", id: "op_lost", done: false };
      const gone = { error: { code: "operation_not_found", message: "expired", requestId: "req_1", retryable: false } };
      r.tamper = (req) => {
        if (req.method === "PUT" && req.url.includes("/WorkerEndpoint/"))
          return { status: 202, headers: {}, body: Buffer.from(JSON.stringify({ operation: accepted })) };
        if (req.method === "GET" && req.url.includes("/operations/op_lost")) return { status: 404, headers: {}, body: Buffer.from(JSON.stringify(gone)) };
        return undefined;
      };
      const plan = await r.provider.plan({ type: "takoform_worker_endpoint", address: "e", prior: null, config: { name: "ep", worker: "counter" } });
      const out = await r.provider.create("takoform_worker_endpoint", plan.planned!, r.context());
      expect(out.state!.attributes).toMatchObject({ hostname: null, url: null, outputs_json: "{}" });
      expect(out.diagnostics.map((d) => d.summary)).toEqual([
        "WorkerEndpoint was accepted by the host but did not complete",
        "Failed to create WorkerEndpoint",
      ]);
    });

    it("a refresh adopts reassigned outputs", async () => {
      await endpointRig();
      const state = await mustCreate(r, "takoform_worker_endpoint", { name: "ep", worker: "counter" });
      r.tamper = (req, res) =>
        isResourceGet(req, "ep") ? rewrite(res, (b) => b.replace(/"hostname":"[^"]*"/, '"hostname":"moved.workers.localhost"')) : undefined;
      const read = await mustRead(r, state);
      expect(read.attributes["hostname"]).toBe("moved.workers.localhost");
      expect(JSON.parse(read.attributes["outputs_json"] as string).hostname).toBe("moved.workers.localhost");
    });
  });
});

describe("hostFaultOf", () => {
  it("destructures each typed client error", () => {
    const api = new HostApiError({
      call: "read",
      code: "rate_limited",
      status: 429,
      message: "slow down",
      requestId: "req-7",
      retryable: true,
      hostCode: "q-1",
    });
    expect(hostFaultOf(api)).toEqual({
      code: "rate_limited",
      status: 429,
      message: "slow down",
      requestId: "req-7",
      hostCode: "q-1",
      retryable: true,
      protocolInvalid: false,
      accepted: false,
    });
    expect(hostFaultOf(new AcceptedError(api, "op_9", "uid-1"))).toMatchObject({ code: "rate_limited", accepted: true, operationId: "op_9", uid: "uid-1" });
    expect(hostFaultOf(new AcceptedError(new Error("no etag"), undefined, "uid-1"))).toEqual({
      message: "no etag",
      retryable: false,
      protocolInvalid: false,
      accepted: true,
      uid: "uid-1",
    });
    expect(hostFaultOf(new ProtocolInvalidError("bad body", 502))).toEqual({
      message: "bad body",
      status: 502,
      retryable: false,
      protocolInvalid: true,
      accepted: false,
    });
    expect(hostFaultOf(new TransportError("network", "connection reset"))).toBeUndefined();
    expect(hostFaultOf(new Error("x"))).toBeUndefined();
  });
});
