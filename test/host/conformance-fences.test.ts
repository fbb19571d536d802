// Host API v1alpha3 conformance over real HTTP: uid minting, fences, idempotent replay,
// roles and capabilities, spaces and principals. Each test is titled with the reference §9
// check it proves. Runs per family (bundled always; upstream when TAKOFORM_CORPUS is set).

import { describe, expect, it } from "vitest";
import { key, TOKENS, type Served } from "./harness.ts";
import { families } from "./family.ts";
import { conformanceHost, readyOf, SPACE, ALT_SPACE, Wire } from "./wire.ts";
import { expectEtag, expectError, expectStatus } from "./expect.ts";

const UID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

describe.each(families())("conformance identity and fences — $label", (family) => {
  let served: Served;
  let wire: Wire;
  conformanceHost(family, (s, w) => {
    served = s;
    wire = w;
  });

  it("apply-create-uid-minted", async () => {
    // A Form with no derived rendering of its own: Ready is plain Available.
    const res = await wire.create(wire.ref("EdgeKVNamespace"), "uid-minted", {});
    expectStatus(res, 201);
    expect(res.json.metadata.uid).toMatch(UID);
    expect(res.json.metadata.generation).toBe("1");
    expect(res.json.metadata.revision).toBe("1");
    expectEtag(res, "1");
    expect(readyOf(res.json)).toMatchObject({ type: "Ready", status: "True", reason: "Available" });
    expect(Date.parse(readyOf(res.json).lastTransitionTime)).not.toBeNaN();
  });

  it("apply-headers-required", async () => {
    const ref = wire.ref("EdgeKVNamespace");
    const digest = await wire.digest(ref, "hdr-kv", {});
    const body = { ...wire.body(ref, "hdr-kv", {}), review: { prepareDigest: digest } };
    expectError(
      await served.client.request("PUT", wire.path(ref, "hdr-kv"), { body, headers: { "If-None-Match": "*" } }),
      "invalid_argument",
      /Idempotency-Key/,
    );
    expectError(
      await served.client.request("PUT", wire.path(ref, "hdr-kv"), { body, headers: { "Idempotency-Key": key() } }),
      "invalid_argument",
      /precondition/,
    );
    expectError(await wire.read(ref, "hdr-kv"), "resource_not_found");
  });

  it("apply-idempotency-replay", async () => {
    const ref = wire.ref("EdgeKVNamespace");
    const digest = await wire.digest(ref, "replay-kv", {});
    const body = { ...wire.body(ref, "replay-kv", {}), review: { prepareDigest: digest } };
    const k = key();
    const first = await wire.put(ref, "replay-kv", body, { key: k, headers: { "If-None-Match": "*" } });
    expectStatus(first, 201);
    const second = await wire.put(ref, "replay-kv", body, { key: k, headers: { "If-None-Match": "*" } });
    expect(second.status).toBe(201);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.body.equals(first.body)).toBe(true);
    // The same key with different bytes is refused.
    const changed = await wire.put(ref, "replay-kv", { ...body, metadata: { space: SPACE, name: "replay-kv" } }, { key: k, headers: { "If-None-Match": "*" } });
    expectError(changed, "invalid_argument", /Idempotency-Key/);
  });

  it("replay-record-retires-with-its-incarnation", async () => {
    const ref = wire.ref("EdgeKVNamespace");
    const digest = await wire.digest(ref, "retire-kv", {});
    const body = { ...wire.body(ref, "retire-kv", {}), review: { prepareDigest: digest } };
    const k = key();
    const first = await wire.put(ref, "retire-kv", body, { key: k, headers: { "If-None-Match": "*" } });
    expectStatus(first, 201);
    const dk = key();
    expectStatus(await wire.remove(ref, "retire-kv", "1", { key: dk }), 204);
    // The delete's 204 reports no incarnation: it keeps replaying.
    expectStatus(await wire.remove(ref, "retire-kv", "1", { key: dk }), 204);
    // The create's record reported an incarnation that is gone: the same request is a NEW create.
    const again = await wire.put(ref, "retire-kv", body, { key: k, headers: { "If-None-Match": "*" } });
    expectStatus(again, 201);
    expect(again.json.metadata.uid).not.toBe(first.json.metadata.uid);
    // An async 202's record follows its operation.
    const aref = wire.ref("ModuleWorker");
    const adigest = await wire.digest(aref, "retire-async", {});
    const abody = { ...wire.body(aref, "retire-async", {}), review: { prepareDigest: adigest } };
    const ak = key();
    const accepted = await wire.put(aref, "retire-async", abody, { key: ak, headers: { "If-None-Match": "*", "Takoform-Conformance-Probe": "async" } });
    expectStatus(accepted, 202);
    const replayed = await wire.put(aref, "retire-async", abody, { key: ak, headers: { "If-None-Match": "*", "Takoform-Conformance-Probe": "async" } });
    expect(replayed.status).toBe(202);
    expect(replayed.body.equals(accepted.body)).toBe(true);
    const op = await wire.poll(accepted.json.operation.id);
    expect(op.result.resource.metadata.uid).toBe(accepted.json.operation.target.uid);
    expectStatus(await wire.remove(aref, "retire-async", "1"), 204);
    const fresh = await wire.put(aref, "retire-async", abody, { key: ak, headers: { "If-None-Match": "*", "Takoform-Conformance-Probe": "async" } });
    expectStatus(fresh, 202);
    expect(fresh.json.operation.id).not.toBe(accepted.json.operation.id);
    await wire.poll(fresh.json.operation.id);
  });

  it("refusals are never recorded as replay answers (§11 Q8)", async () => {
    const kref = wire.ref("EdgeKVNamespace");
    await wire.created(kref, "q8-kv", {});
    const chain = await wire.workerChain("q8", { kv: ["q8-kv"] });
    const k = key();
    expectError(await wire.remove(kref, "q8-kv", "1", { key: k }), "dependency_in_use");
    // The holder goes away; the very same delete (same key, same bytes) now runs and succeeds.
    expectStatus(await wire.remove(wire.ref("WorkerDeployment"), chain.names.deployment, "1"), 204);
    expectStatus(await wire.remove(wire.ref("WorkerVersion"), chain.names.version, "1"), 204);
    expectStatus(await wire.remove(kref, "q8-kv", "1", { key: k }), 204);
  });

  it("create-conflict-when-exists", async () => {
    const ref = wire.ref("EdgeKVNamespace");
    // A create review minted while the name was free; a prepare on the taken name is refused.
    const digest = await wire.digest(ref, "conflict-kv", {});
    const body = { ...wire.body(ref, "conflict-kv", {}), review: { prepareDigest: digest } };
    expectStatus(await wire.put(ref, "conflict-kv", body, { headers: { "If-None-Match": "*" } }), 201);
    expectError(await wire.prepare(ref, "conflict-kv", {}), "invalid_argument");
    expectError(await wire.put(ref, "conflict-kv", body, { headers: { "If-None-Match": "*" } }), "generation_conflict");
    expectError(
      await wire.put(ref, "conflict-kv", body, { client: served.client.as(TOKENS.alternate), headers: { "If-None-Match": "*" } }),
      "generation_conflict",
    );
  });

  it("update-generation-fence", async () => {
    const ref = wire.ref("AtLeastOnceQueue");
    expectStatus(await wire.create(ref, "upd-q", wire.queueSpec(60)), 201);
    const res = await wire.update(ref, "upd-q", wire.queueSpec(120), "1");
    expectStatus(res, 200);
    expect(res.json.spec.messageRetentionSeconds).toBe(120);
  });

  it("stale-generation-rejected", async () => {
    const ref = wire.ref("AtLeastOnceQueue");
    expectStatus(await wire.create(ref, "stale-q", wire.queueSpec(60)), 201);
    expectStatus(await wire.update(ref, "stale-q", wire.queueSpec(120), "1"), 200);
    const digest = await wire.digest(ref, "stale-q", wire.queueSpec(180), { generation: "2" });
    const res = await wire.put(
      ref,
      "stale-q",
      { ...wire.body(ref, "stale-q", wire.queueSpec(180)), review: { prepareDigest: digest } },
      { headers: { "Takoform-Expected-Generation": "1" } },
    );
    expectError(res, "generation_conflict");
    expect((await wire.read(ref, "stale-q")).json.spec.messageRetentionSeconds).toBe(120);
  });

  it("revision-etag-exact", async () => {
    const ref = wire.ref("AtLeastOnceQueue");
    expectStatus(await wire.create(ref, "etag-q", wire.queueSpec(60)), 201);
    for (const [spec, gen] of [
      [wire.queueSpec(61), "1"],
      [wire.queueSpec(62), "2"],
    ] as const) {
      expectStatus(await wire.update(ref, "etag-q", spec, gen), 200);
      const read = await wire.read(ref, "etag-q");
      expectStatus(read, 200);
      expectEtag(read, read.json.metadata.revision);
      expect(typeof read.headers.etag).toBe("string");
      expect((read.headers.etag as string).split(",")).toHaveLength(1);
    }
  });

  it("observe-fence-exact", async () => {
    const ref = wire.ref("ModuleWorker");
    expectStatus(await wire.create(ref, "observe-mw", {}), 201);
    expectError(await wire.observe(ref, "observe-mw", undefined), "invalid_argument", /Takoform-Expected-Generation/);
    expectError(await wire.observe(ref, "observe-mw", "2"), "generation_conflict");
    const res = await wire.observe(ref, "observe-mw", "1");
    expectStatus(res, 200);
    expect(Object.keys(res.json)).toEqual(["resource"]);
    expect(res.json.resource.metadata.generation).toBe("1");
  });

  it("status-change-bumps-revision-not-generation", async () => {
    const ref = wire.ref("ModuleWorker");
    const created = await wire.created(ref, "touch-mw", {});
    const before = (await wire.read(ref, "touch-mw")).json;
    const res = await wire.observe(ref, "touch-mw", "1", { headers: { "Takoform-Conformance-Probe": "touch-status" } });
    expectStatus(res, 200);
    expect(res.json.resource.metadata.generation).toBe("1");
    expect(Number(res.json.resource.metadata.revision)).toBe(Number(before.metadata.revision) + 1);
    expect(res.json.resource.metadata.uid).toBe(created.metadata.uid);
  });

  it("spec-change-bumps-generation", async () => {
    const ref = wire.ref("AtLeastOnceQueue");
    expectStatus(await wire.create(ref, "gen-q", wire.queueSpec(60)), 201);
    const res = await wire.update(ref, "gen-q", wire.queueSpec(90), "1");
    expect(res.json.metadata.generation).toBe("2");
    expect(res.json.metadata.revision).toBe("2");
    // A spec-identical re-apply moves neither.
    const same = await wire.update(ref, "gen-q", wire.queueSpec(90), "2");
    expectStatus(same, 200);
    expect(same.json.metadata.generation).toBe("2");
    expect(same.json.metadata.revision).toBe("2");
    // Omitting a defaulted member and writing its default are one desired state.
    const explicit = await wire.update(ref, "gen-q", { ...wire.queueSpec(90), deliveryDelaySeconds: 0 }, "2");
    expect(explicit.json.metadata.generation).toBe("2");
  });

  it("delete-generation-fence", async () => {
    const ref = wire.ref("EdgeKVNamespace");
    expectStatus(await wire.create(ref, "del-kv", {}), 201);
    expectError(await wire.remove(ref, "del-kv", undefined), "invalid_argument", /Takoform-Expected-Generation/);
    expectError(await wire.remove(ref, "del-kv", "2"), "generation_conflict");
    expectStatus(await wire.remove(ref, "del-kv", "1"), 204);
    expectError(await wire.read(ref, "del-kv"), "resource_not_found");
  });

  it("delete-revision-fence", async () => {
    const ref = wire.ref("EdgeKVNamespace");
    const created = await wire.created(ref, "delrev-kv", {});
    const res = await wire.remove(ref, "delrev-kv", "1", { headers: { "If-Match": `"${created.metadata.revision}"` } });
    expectStatus(res, 204);
    expect(res.body.byteLength).toBe(0);
    // RFC 9110 §8.6: no Content-Length on a 204 (nor chunked framing); the kept-alive connection still serves the next request.
    expect(res.headers["content-length"]).toBeUndefined();
    expect(res.headers["transfer-encoding"]).toBeUndefined();
    expectError(await wire.read(ref, "delrev-kv"), "resource_not_found");
  });

  it("stale-revision-rejected", async () => {
    const ref = wire.ref("ModuleWorker");
    await wire.created(ref, "stalerev-mw", {});
    await wire.observe(ref, "stalerev-mw", "1", { headers: { "Takoform-Conformance-Probe": "touch-status" } });
    expectError(await wire.remove(ref, "stalerev-mw", "1", { headers: { "If-Match": '"1"' } }), "revision_conflict");
    // The revision moved, yet a delete fenced on the generation alone succeeds.
    expectStatus(await wire.remove(ref, "stalerev-mw", "1"), 204);
  });

  it("delete-then-recreate-uid-changes", async () => {
    const ref = wire.ref("EdgeKVNamespace");
    const a = await wire.created(ref, "recreate-kv", {});
    expectStatus(await wire.remove(ref, "recreate-kv", "1"), 204);
    const b = await wire.created(ref, "recreate-kv", {});
    expect(b.metadata.uid).not.toBe(a.metadata.uid);
    expect(b.metadata.generation).toBe("1");
  });

  it("expected-uid-mismatch-rejected", async () => {
    const ref = wire.ref("AtLeastOnceQueue");
    const created = await wire.created(ref, "xuid-q", wire.queueSpec(60));
    expectError(await wire.update(ref, "xuid-q", wire.queueSpec(70), "1", { expectedUid: "u-not-this-one" }), "uid_mismatch");
    expect((await wire.read(ref, "xuid-q")).json.metadata.generation).toBe("1");
    expectStatus(await wire.update(ref, "xuid-q", wire.queueSpec(70), "1", { expectedUid: created.metadata.uid }), 200);
  });

  it("package-digest-not-identity", async () => {
    const ref = wire.ref("AtLeastOnceQueue");
    const created = await wire.created(ref, "pkg-q", wire.queueSpec(60));
    const digest = await wire.digest(ref, "pkg-q", wire.queueSpec(60), { generation: "1" });
    const body: Record<string, any> = { ...wire.body(ref, "pkg-q", wire.queueSpec(60)), review: { prepareDigest: digest } };
    body.form = { ...body.form, packageDigest: `sha256:${"ab".repeat(32)}` };
    const res = await wire.put(ref, "pkg-q", body, { headers: { "Takoform-Expected-Generation": "1" } });
    expectStatus(res, 200);
    expect(res.json.metadata.uid).toBe(created.metadata.uid);
  });

  it("same-kind-two-groups", async () => {
    const edge = wire.ref("EdgeKVNamespace");
    const other = wire.ref("EdgeKVNamespace", "0.1.0", family.otherGroup);
    const a = await wire.created(edge, "twin-kv", {});
    const b = await wire.created(other, "twin-kv", {});
    expect(a.metadata.uid).not.toBe(b.metadata.uid);
    expect((await wire.read(edge, "twin-kv")).json.apiVersion).toBe(family.group);
    expect((await wire.read(other, "twin-kv")).json.apiVersion).toBe(family.otherGroup);
    expectStatus(await wire.remove(other, "twin-kv", "1"), 204);
    expect((await wire.read(edge, "twin-kv")).json.metadata.uid).toBe(a.metadata.uid);
  });

  it("revision-role-update-rejected", async () => {
    const ref = wire.ref("WorkerBundle");
    const manifestDigest = await wire.bundle();
    await wire.created(ref, "rev-bundle", { manifestDigest });
    // Spec-identical and spec-changing applies are both refused.
    expectError(await wire.update(ref, "rev-bundle", { manifestDigest }, "1"), "invalid_argument", /revision/);
    const other = await wire.bundle('export default { async fetch() { return new Response("other"); } };\n');
    expectError(await wire.update(ref, "rev-bundle", { manifestDigest: other }, "1"), "invalid_argument", /revision/);
    expect((await wire.read(ref, "rev-bundle")).json.spec.manifestDigest).toBe(manifestDigest);
  });

  it("no-update-spec-change-rejected", async () => {
    // WorkerEndpoint and WorkerCustomDomain declare no update; their spec cannot change in place.
    const chain = await wire.workerChain("noupd");
    const domain = wire.ref("WorkerCustomDomain");
    await wire.created(domain, "noupd-domain", { hostname: "noupd.example.test", worker: wire.to("ModuleWorker", chain.names.worker) });
    const res = await wire.update(domain, "noupd-domain", { hostname: "other.example.test", worker: wire.to("ModuleWorker", chain.names.worker) }, "1");
    expectError(res, "invalid_argument", /update/);
    expect((await wire.read(domain, "noupd-domain")).json.spec.hostname).toBe("noupd.example.test");
    // A spec-identical fenced apply is accepted (it re-pins; §11 Q7).
    expectStatus(await wire.update(domain, "noupd-domain", { hostname: "noupd.example.test", worker: wire.to("ModuleWorker", chain.names.worker) }, "1"), 200);
  });

  it("cross-space-isolation", async () => {
    const ref = wire.ref("EdgeKVNamespace");
    const a = await wire.created(ref, "spaced-kv", {});
    expectError(await wire.read(ref, "spaced-kv", { space: ALT_SPACE }), "resource_not_found");
    const k = key();
    const b = await wire.create(ref, "spaced-kv", {}, { space: ALT_SPACE, key: k });
    expectStatus(b, 201);
    expect(b.json.metadata.uid).not.toBe(a.metadata.uid);
    expect((await wire.read(ref, "spaced-kv")).json.metadata.uid).toBe(a.metadata.uid);
  });

  it("cross-principal-idempotency-isolation", async () => {
    const ref = wire.ref("EdgeKVNamespace");
    const digest = await wire.digest(ref, "xprin-kv", {});
    const body = { ...wire.body(ref, "xprin-kv", {}), review: { prepareDigest: digest } };
    const k = key();
    expectStatus(await wire.put(ref, "xprin-kv", body, { key: k, headers: { "If-None-Match": "*" } }), 201);
    // Same tenant, other principal, same key: executed independently → the name is taken.
    expectError(
      await wire.put(ref, "xprin-kv", body, { key: k, client: served.client.as(TOKENS.alternate), headers: { "If-None-Match": "*" } }),
      "generation_conflict",
    );
    // Another tenant: its foreign review stops it.
    expectError(
      await wire.put(ref, "xprin-kv", body, { key: k, client: served.client.as(TOKENS.foreign), headers: { "If-None-Match": "*" } }),
      "invalid_argument",
    );
  });

  it("concurrent-unrelated-mutation", async () => {
    const ref = wire.ref("EdgeKVNamespace");
    const [a, b] = await Promise.all([wire.create(ref, "conc-a", {}), wire.create(ref, "conc-b", {})]);
    expectStatus(a, 201);
    expectStatus(b, 201);
    expect(a.json.metadata.uid).not.toBe(b.json.metadata.uid);
  });
});
