// The accepted (202) model over real HTTP, per family: polling, replay of terminal documents,
// cancel, ownership, and the commit re-running the gauntlet against the identity it accepted.

import { describe, expect, it } from "vitest";
import { key, serve, TOKENS, type Served } from "./harness.ts";
import { families } from "./family.ts";
import { conformanceHost, readyOf, Wire } from "./wire.ts";
import { expectError, expectStatus } from "./expect.ts";

const ASYNC = { "Takoform-Conformance-Probe": "async" };
const OP_ID = /^op_[A-Za-z0-9][A-Za-z0-9._-]{0,124}$/;

describe.each(families())("conformance operations — $label", (family) => {
  const API = family.api;
  let served: Served;
  let wire: Wire;
  conformanceHost(family, (s, w) => {
    served = s;
    wire = w;
  });

  const op = (id: string, client = served.client) => client.request("GET", `${API}/operations/${id}`);
  const cancel = (id: string, client = served.client) => client.request("POST", `${API}/operations/${id}/cancel`, { headers: { "Idempotency-Key": key() } });

  it("async-operation-flow", async () => {
    const ref = wire.ref("EdgeKVNamespace");
    const accepted = await wire.create(ref, "async-kv", {}, { headers: ASYNC });
    expectStatus(accepted, 202);
    expect(accepted.headers.etag).toBeUndefined();
    expect(Object.keys(accepted.json)).toEqual(["operation"]);
    const doc = accepted.json.operation;
    expect(doc).toMatchObject({ apiVersion: "operations.takoform.com/v1alpha1", kind: "Operation", done: false });
    expect(doc.id).toMatch(OP_ID);
    expect(doc.result).toBeUndefined();
    expect(doc.error).toBeUndefined();
    // Nothing exists until the operation commits.
    expectError(await wire.read(ref, "async-kv"), "resource_not_found");
    const pending = await op(doc.id);
    expectStatus(pending, 200);
    expect(pending.json.done).toBe(false);
    expect(pending.headers["retry-after"]).toBeDefined();
    const done = await wire.poll(doc.id);
    expect(done.done).toBe(true);
    expect(done.result.resource.metadata.name).toBe("async-kv");
    expect(done.result.resource.metadata.uid).toBe(done.target.uid);
    expectStatus(await wire.read(ref, "async-kv"), 200);
    // An accepted delete completes through its operation too.
    const del = await wire.remove(ref, "async-kv", "1", { headers: ASYNC });
    expectStatus(del, 202);
    const deleted = await wire.poll(del.json.operation.id);
    expect(deleted.result).toEqual({ deleted: true });
    expectError(await wire.read(ref, "async-kv"), "resource_not_found");
  });

  it("operation-replay-terminal", async () => {
    const accepted = await wire.create(wire.ref("ModuleWorker"), "replay-op", {}, { headers: ASYNC });
    const id = accepted.json.operation.id;
    await wire.poll(id);
    const a = await op(id);
    const b = await op(id);
    expect(a.body.equals(b.body)).toBe(true);
    expect(a.headers["retry-after"]).toBeUndefined();
  });

  it("operation-resumable-after-settlement", async () => {
    const ref = wire.ref("AtLeastOnceQueue");
    const accepted = await wire.create(ref, "resume-q", wire.queueSpec(60), { headers: ASYNC });
    const id = accepted.json.operation.id;
    await wire.poll(id);
    const terminal = await op(id);
    // The resource is updated, and a second operation settles.
    expectStatus(await wire.update(ref, "resume-q", wire.queueSpec(61), "1"), 200);
    const second = await wire.update(ref, "resume-q", wire.queueSpec(62), "2", { headers: ASYNC });
    expectStatus(second, 202);
    await wire.poll(second.json.operation.id);
    const again = await op(id);
    expectStatus(again, 200);
    expect(again.body.equals(terminal.body)).toBe(true);
    expect(again.json.result.resource.metadata.generation).toBe("1");
  });

  it("operation-cancel", async () => {
    const ref = wire.ref("EdgeKVNamespace");
    const accepted = await wire.create(ref, "cancel-kv", {}, { headers: ASYNC });
    const id = accepted.json.operation.id;
    const res = await cancel(id);
    expectStatus(res, 200);
    expect(res.json).toMatchObject({ id, done: true, error: { code: "operation_cancelled", retryable: false } });
    expect(res.json.result).toBeUndefined();
    expectError(await wire.read(ref, "cancel-kv"), "resource_not_found");
    // A cancel of a terminal operation replays its terminal state.
    const again = await cancel(id);
    expect(again.body.equals(res.body)).toBe(true);
    expectError(await cancel("op_neverexisted"), "operation_not_found");
    expectError(await op("op_neverexisted"), "operation_not_found");
    expectError(await op("not-an-op-id"), "operation_not_found");
  });

  it("async-commit-revalidates", async () => {
    const kref = wire.ref("EdgeKVNamespace");
    await wire.created(kref, "acr-kv", {});
    const chain = await wire.workerChain("acr");
    const accepted = await wire.create(
      wire.ref("WorkerVersion"),
      "acr-bound",
      wire.versionSpec({ bundle: chain.names.bundle, worker: chain.names.worker, kv: ["acr-kv"] }),
      {
        headers: ASYNC,
      },
    );
    expectStatus(accepted, 202);
    // The binding target is deleted meanwhile (nothing holds it yet: the version is not committed).
    expectStatus(await wire.remove(kref, "acr-kv", "1"), 204);
    const done = await wire.poll(accepted.json.operation.id);
    expect(done.error).toMatchObject({ code: "resource_not_found", retryable: false });
    expect(done.error.message).toContain("/kvBindings/0/resource");
    expectError(await wire.read(wire.ref("WorkerVersion"), "acr-bound"), "resource_not_found");
  });

  it("async-commit-binds-the-accepted-identity", async () => {
    const ref = wire.ref("EdgeKVNamespace");
    const first = await wire.created(ref, "acb-kv", {});
    const accepted = await wire.remove(ref, "acb-kv", "1", { headers: ASYNC });
    expectStatus(accepted, 202);
    expect(accepted.json.operation.target.uid).toBe(first.metadata.uid);
    // Replaced meanwhile: the delete terminates uid_mismatch and the replacement survives.
    expectStatus(await wire.remove(ref, "acb-kv", "1"), 204);
    const replacement = await wire.created(ref, "acb-kv", {});
    const done = await wire.poll(accepted.json.operation.id);
    expect(done.error).toMatchObject({ code: "uid_mismatch", retryable: false });
    expect((await wire.read(ref, "acb-kv")).json.metadata.uid).toBe(replacement.metadata.uid);
    // Nothing holds the name: resource_not_found.
    const again = await wire.remove(ref, "acb-kv", "1", { headers: ASYNC });
    expectStatus(await wire.remove(ref, "acb-kv", "1"), 204);
    const gone = await wire.poll(again.json.operation.id);
    expect(gone.error).toMatchObject({ code: "resource_not_found", retryable: false });
  });

  it("accepted delete re-runs the dependency scan at commit", async () => {
    const kref = wire.ref("EdgeKVNamespace");
    await wire.created(kref, "dscan-kv", {});
    const accepted = await wire.remove(kref, "dscan-kv", "1", { headers: ASYNC });
    expectStatus(accepted, 202);
    const chain = await wire.workerChain("dscan", { kv: ["dscan-kv"] });
    const done = await wire.poll(accepted.json.operation.id);
    expect(done.error).toMatchObject({ code: "dependency_in_use" });
    expect(readyOf((await wire.read(wire.ref("WorkerVersion"), chain.names.version)).json).status).toBe("True");
  });

  it("operation-bound-to-its-creating-principal", async () => {
    const accepted = await wire.create(wire.ref("ModuleWorker"), "owned-op", {}, { headers: ASYNC });
    const id = accepted.json.operation.id;
    for (const token of [TOKENS.alternate, TOKENS.foreign]) {
      const other = served.client.as(token);
      const res = await op(id, other);
      expectError(res, "operation_not_found");
      expectError(await cancel(id, other), "operation_not_found");
    }
    // Still pending and cancellable by nobody else; its owner settles it.
    const done = await wire.poll(id);
    expect(done.done).toBe(true);
  });
});

describe.each(families())("async mode and recovery controls — $label", (family) => {
  const API = family.api;
  it("--async always: every mutation answers 202 and commits shortly after", async () => {
    const served = await serve({ ...family.options, async: "always", commitDelayMs: 10 });
    try {
      const wire = await Wire.connect(served.client, family);
      const ref = wire.ref("AtLeastOnceQueue");
      const accepted = await wire.create(ref, "always-q", wire.queueSpec(60));
      expectStatus(accepted, 202);
      // Without any poll, the timer commits it.
      for (let i = 0; i < 100 && (await wire.read(ref, "always-q")).status !== 200; i++) await new Promise((r) => setTimeout(r, 10));
      expectStatus(await wire.read(ref, "always-q"), 200);
      const update = await wire.update(ref, "always-q", wire.queueSpec(90), "1");
      expectStatus(update, 202);
      const done = await wire.poll(update.json.operation.id);
      expect(done.result.resource.metadata.generation).toBe("2");
      const del = await wire.remove(ref, "always-q", "2");
      expectStatus(del, 202);
      expect((await wire.poll(del.json.operation.id)).result).toEqual({ deleted: true });
    } finally {
      await served.close();
    }
  });

  it("held operations, on-demand expiry, and form availability", async () => {
    const served = await serve({ ...family.options, async: "always" });
    try {
      const wire = await Wire.connect(served.client, family);
      const ref = wire.ref("EdgeKVNamespace");
      served.host.controls.holdNewOperations(true);
      const accepted = await wire.create(ref, "held-kv", {});
      const id = accepted.json.operation.id;
      served.host.controls.holdNewOperations(false);
      for (let i = 0; i < 3; i++) {
        const res = await served.client.request("GET", `${API}/operations/${id}`);
        expect(res.json.done).toBe(false);
        expect(res.headers["retry-after"]).toBe("1");
      }
      expectError(await wire.read(ref, "held-kv"), "resource_not_found");
      served.host.controls.releaseOperation(id);
      const done = await wire.poll(id);
      expect(done.result.resource.metadata.name).toBe("held-kv");
      served.host.controls.expireOperation(id);
      expectError(await served.client.request("GET", `${API}/operations/${id}`), "operation_not_found");
      // A Form withdrawn from one principal: availability says so, and its writes are refused.
      served.host.controls.setFormAvailable({ tenant: "tenant-a", principal: "alice" }, ref, false);
      const forms = await served.client.request("GET", `${API}/forms?${wire.query(ref)}`);
      expect(forms.json.forms[0].availableToPrincipal).toBe(false);
      expectError(await wire.prepare(ref, "unavailable-kv", {}), "form_unavailable");
      const bob = served.client.as(TOKENS.alternate);
      expect((await bob.request("GET", `${API}/forms?${wire.query(ref)}`)).json.forms[0].availableToPrincipal).toBe(true);
    } finally {
      await served.close();
    }
  });
});
