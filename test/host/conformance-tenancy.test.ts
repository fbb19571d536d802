// Adoption (import, nativeId claims) and tenant isolation over real HTTP, per family.

import { describe, expect, it } from "vitest";
import { key, TOKENS, type HttpClient, type Served } from "./harness.ts";
import { families } from "./family.ts";
import { conformanceHost, ALT_SPACE, Wire } from "./wire.ts";
import { expectError, expectStatus } from "./expect.ts";

describe.each(families())("conformance adoption and tenancy — $label", (family) => {
  let served: Served;
  let wire: Wire;
  let foreign: HttpClient;
  conformanceHost(family, (s, w) => {
    served = s;
    wire = w;
    foreign = s.client.as(TOKENS.foreign);
  });

  it("import-adopts-native-resource", async () => {
    const res = await wire.import(wire.ref("AtLeastOnceQueue"), "adopted-q", wire.queueSpec(60), "native-queue-1");
    expectStatus(res, 201);
    expect(res.json.metadata).toMatchObject({ generation: "1", revision: "1" });
    expect(res.headers.etag).toBe('"1"');
    expect(res.json.spec).toEqual({ messageRetentionSeconds: 60, deliveryDelaySeconds: 0 });
    expect(res.text).not.toContain("native-queue-1");
  });

  it("import-validates-like-apply", async () => {
    const vref = wire.ref("WorkerVersion");
    // Schema.
    expectError(await wire.import(wire.ref("AtLeastOnceQueue"), "bad-import-q", wire.queueSpec(1), "native-bad-q"), "invalid_argument");
    // Relations.
    expectError(
      await wire.import(vref, "imp-v", wire.versionSpec({ bundle: "imp-absent", worker: "imp-absent" }), "native-v"),
      "resource_not_found",
      /\/bundle/,
    );
    // Exact target contract.
    const [, second] = family.moduleWorkerVersions;
    await wire.created(wire.ref("ModuleWorker", second), "imp-worker-next", {});
    const manifestDigest = await wire.bundle();
    await wire.created(wire.ref("WorkerBundle"), "imp-bundle", { manifestDigest });
    expectError(
      await wire.import(vref, "imp-v", wire.versionSpec({ bundle: "imp-bundle", worker: "imp-worker-next" }), "native-v"),
      "invalid_argument",
      /worker\.runtime/,
    );
    expectError(await wire.read(vref, "imp-v"), "resource_not_found");
    // Role: a fenced import may not change a revision's spec (§11 Q14).
    await wire.import(wire.ref("WorkerBundle"), "imp-rev", { manifestDigest }, "native-rev");
    const other = await wire.bundle('export default { async fetch() { return new Response("imp"); } };\n');
    expectError(
      await wire.import(wire.ref("WorkerBundle"), "imp-rev", { manifestDigest: other }, "native-rev", { generation: "1" }),
      "invalid_argument",
      /revision/,
    );
  });

  it("import-claims-its-native-identity", async () => {
    const kv = wire.ref("EdgeKVNamespace");
    const q = wire.ref("AtLeastOnceQueue");
    expectStatus(await wire.import(kv, "claim-kv", {}, "native-shared"), 201);
    // Another kind, another space, same tenant: the claim is held.
    expectError(await wire.import(q, "claim-q", wire.queueSpec(60), "native-shared", { space: ALT_SPACE }), "import_conflict");
    expectError(await wire.read(q, "claim-q", { space: ALT_SPACE }), "resource_not_found");
    // Released when the holder is deleted.
    expectStatus(await wire.remove(kv, "claim-kv", "1"), 204);
    expectStatus(await wire.import(q, "claim-q", wire.queueSpec(60), "native-shared", { space: ALT_SPACE }), 201);
  });

  it("import-records-its-native-identity", async () => {
    const q = wire.ref("AtLeastOnceQueue");
    const created = await wire.created(q, "rec-q", wire.queueSpec(60));
    // A host-created resource's first import records a claim.
    const first = await wire.import(q, "rec-q", wire.queueSpec(60), "native-rec", { generation: "1" });
    expectStatus(first, 200);
    expect(first.json.metadata.uid).toBe(created.metadata.uid);
    const same = await wire.import(q, "rec-q", wire.queueSpec(60), "native-rec", { generation: "1" });
    expect(same.json.metadata.uid).toBe(created.metadata.uid);
    expectError(await wire.import(q, "rec-q", wire.queueSpec(60), "native-other", { generation: "1" }), "import_conflict");
    // The claim survives an ordinary apply.
    expectStatus(await wire.update(q, "rec-q", wire.queueSpec(70), "1"), 200);
    expectError(await wire.import(wire.ref("EdgeKVNamespace"), "rec-kv", {}, "native-rec"), "import_conflict");
  });

  it("resource-import-is-tenant-isolated", async () => {
    const kv = wire.ref("EdgeKVNamespace");
    const mine = await wire.import(kv, "tenant-import-kv", {}, "native-tenant");
    const theirs = await wire.import(kv, "tenant-import-kv", {}, "native-tenant", { client: foreign });
    expectStatus(theirs, 201);
    expect(theirs.headers.etag).toBe(mine.headers.etag);
    expect(theirs.json.metadata.uid).not.toBe(mine.json.metadata.uid);
    // The same document except the uid (and the wall-clock time its condition was first rendered).
    const strip = (r: any) => ({
      ...r,
      metadata: { ...r.metadata, uid: "" },
      status: { ...r.status, conditions: r.status.conditions.map((c: any) => ({ ...c, lastTransitionTime: "" })) },
    });
    expect(strip(theirs.json)).toEqual(strip(mine.json));
    // A fenced import of a name only another tenant holds is absent.
    expectError(await wire.import(kv, "only-mine-kv", {}, "native-x", { generation: "1", client: foreign }), "resource_not_found");
  });

  it("resource-address-is-tenant-scoped", async () => {
    const ref = wire.ref("EdgeKVNamespace");
    const a = await wire.created(ref, "addr-kv", {});
    const b = await wire.created(ref, "addr-kv", {}, { client: foreign });
    expect(a.metadata.uid).not.toBe(b.metadata.uid);
  });

  it("resource-read-is-tenant-isolated", async () => {
    const ref = wire.ref("EdgeKVNamespace");
    await wire.created(ref, "read-iso-kv", {});
    const foreignRead = await wire.read(ref, "read-iso-kv", { client: foreign });
    const never = await wire.read(ref, "never-created-kv", { client: foreign });
    expectError(foreignRead, "resource_not_found");
    expect(foreignRead.json.error.message.replace("read-iso-kv", "X")).toBe(never.json.error.message.replace("never-created-kv", "X"));
  });

  it("resource-observe-is-tenant-isolated", async () => {
    const ref = wire.ref("EdgeKVNamespace");
    await wire.created(ref, "obs-iso-kv", {});
    expectError(await wire.observe(ref, "obs-iso-kv", "1", { client: foreign }), "resource_not_found");
  });

  it("resource-update-is-tenant-isolated", async () => {
    const ref = wire.ref("AtLeastOnceQueue");
    await wire.created(ref, "upd-iso-q", wire.queueSpec(60));
    expectError(await wire.prepare(ref, "upd-iso-q", wire.queueSpec(70), { generation: "1", client: foreign }), "resource_not_found");
    const digest = await wire.digest(ref, "upd-iso-q", wire.queueSpec(70), { generation: "1" });
    const res = await wire.put(
      ref,
      "upd-iso-q",
      { ...wire.body(ref, "upd-iso-q", wire.queueSpec(70)), review: { prepareDigest: digest } },
      {
        client: foreign,
        headers: { "Takoform-Expected-Generation": "1" },
      },
    );
    expectError(res, "resource_not_found");
    expectStatus(await wire.update(ref, "upd-iso-q", wire.queueSpec(70), "1"), 200);
  });

  it("resource-delete-is-tenant-isolated", async () => {
    const ref = wire.ref("EdgeKVNamespace");
    const created = await wire.created(ref, "del-iso-kv", {});
    expectError(
      await wire.remove(ref, "del-iso-kv", "1", { client: foreign, headers: { "If-Match": `"${created.metadata.revision}"` } }),
      "resource_not_found",
    );
    expectStatus(await wire.remove(ref, "del-iso-kv", "1"), 204);
  });

  it("prepare-is-tenant-scoped", async () => {
    const ref = wire.ref("EdgeKVNamespace");
    const digest = await wire.digest(ref, "prep-iso-kv", {});
    const body = { ...wire.body(ref, "prep-iso-kv", {}), review: { prepareDigest: digest } };
    expectError(await wire.put(ref, "prep-iso-kv", body, { client: foreign, headers: { "If-None-Match": "*" } }), "invalid_argument", /prepareDigest/);
    expectStatus(await wire.put(ref, "prep-iso-kv", body, { client: served.client.as(TOKENS.alternate), headers: { "If-None-Match": "*" } }), 201);
  });

  it("idempotency-is-tenant-scoped", async () => {
    const ref = wire.ref("EdgeKVNamespace");
    const k = key();
    const a = await wire.create(ref, "idem-iso-kv", {}, { key: k });
    const b = await wire.create(ref, "idem-iso-kv", {}, { key: k, client: foreign });
    expectStatus(a, 201);
    expectStatus(b, 201);
    expect(b.json.metadata.uid).not.toBe(a.json.metadata.uid);
    expect((await wire.read(ref, "idem-iso-kv", { client: foreign })).json.metadata.uid).toBe(b.json.metadata.uid);
  });

  it("each-tenant-mutates-its-own-plane", async () => {
    const ref = wire.ref("AtLeastOnceQueue");
    const a = await wire.created(ref, "plane-q", wire.queueSpec(60));
    await wire.created(ref, "plane-q", wire.queueSpec(60), { client: foreign });
    expectStatus(await wire.update(ref, "plane-q", wire.queueSpec(90), "1", { client: foreign }), 200);
    expectStatus(await wire.remove(ref, "plane-q", "2", { client: foreign }), 204);
    const mine = (await wire.read(ref, "plane-q")).json;
    expect(mine.metadata).toMatchObject({ uid: a.metadata.uid, generation: a.metadata.generation, revision: a.metadata.revision });
  });
});
