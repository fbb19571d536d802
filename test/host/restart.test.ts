// Durability: resources, relations, operations, replay records, claims and artifacts survive a
// restart; an operation accepted but never committed is settled when the next host opens.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DataDirLockedError, LocalHost } from "../../src/host/index.ts";
import { API, key, serve } from "./harness.ts";
import { BUNDLED } from "./family.ts";
import { readyOf, Wire } from "./wire.ts";
import { expectError, expectStatus } from "./expect.ts";

describe("restart", () => {
  const dir = mkdtempSync(join(tmpdir(), "takoform-restart-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps everything across a restart and settles an abandoned operation", async () => {
    const data = join(dir, "data");
    let served = await serve({ ...BUNDLED.options, data, conformanceProbes: true });
    let wire = await Wire.connect(served.client, BUNDLED);
    const kv = await wire.created(wire.ref("EdgeKVNamespace"), "keep-kv", {});
    const chain = await wire.workerChain("keep", { kv: ["keep-kv"] });
    const imported = await wire.import(wire.ref("AtLeastOnceQueue"), "keep-q", wire.queueSpec(60), "native-keep");
    expectStatus(imported, 201);
    // A finished operation, and a replay record for a create.
    const asyncCreate = await wire.create(wire.ref("ModuleWorker"), "keep-async", {}, { headers: { "Takoform-Conformance-Probe": "async" } });
    const finishedOp = await wire.poll(asyncCreate.json.operation.id);
    const digest = await wire.digest(wire.ref("EdgeKVNamespace"), "keep-replay", {});
    const body = { ...wire.body(wire.ref("EdgeKVNamespace"), "keep-replay", {}), review: { prepareDigest: digest } };
    const replayKey = key();
    const first = await wire.put(wire.ref("EdgeKVNamespace"), "keep-replay", body, { key: replayKey, headers: { "If-None-Match": "*" } });
    // An operation accepted but never committed when the process goes away.
    served.host.controls.holdNewOperations(true);
    const pending = await wire.create(wire.ref("EdgeKVNamespace"), "keep-pending", {}, { headers: { "Takoform-Conformance-Probe": "async" } });
    expectStatus(pending, 202);
    // A second host on the same directory is refused while this one runs.
    await expect(LocalHost.open({ ...BUNDLED.options, data })).rejects.toBeInstanceOf(DataDirLockedError);
    await served.close();

    served = await serve({ ...BUNDLED.options, data, conformanceProbes: true });
    wire = await Wire.connect(served.client, BUNDLED);
    expect((await wire.read(wire.ref("EdgeKVNamespace"), "keep-kv")).json.metadata.uid).toBe(kv.metadata.uid);
    // Relations and the reverse index survived: the namespace is still protected.
    expectError(await wire.remove(wire.ref("EdgeKVNamespace"), "keep-kv", "1"), "dependency_in_use");
    expect(readyOf((await wire.read(wire.ref("WorkerVersion"), chain.names.version)).json).status).toBe("True");
    // The claim survived.
    expectError(await wire.import(wire.ref("EdgeKVNamespace"), "claim2-kv", {}, "native-keep"), "import_conflict");
    // The operation record survived, byte for byte.
    const op = await served.client.request("GET", `${API}/operations/${asyncCreate.json.operation.id}`);
    expect(op.json).toEqual(finishedOp);
    // The replay record survived.
    const replayed = await wire.put(wire.ref("EdgeKVNamespace"), "keep-replay", body, { key: replayKey, headers: { "If-None-Match": "*" } });
    expect(replayed.body.equals(first.body)).toBe(true);
    // The abandoned operation was settled on start: committed, and terminal.
    const settled = await served.client.request("GET", `${API}/operations/${pending.json.operation.id}`);
    expect(settled.json.done).toBe(true);
    expect(settled.json.result.resource.metadata.name).toBe("keep-pending");
    expectStatus(await wire.read(wire.ref("EdgeKVNamespace"), "keep-pending"), 200);
    // A review minted before the restart is still honoured (the prepare secret is durable).
    const before = await wire.digest(wire.ref("EdgeKVNamespace"), "keep-later", {});
    await served.close();
    served = await serve({ ...BUNDLED.options, data });
    wire = await Wire.connect(served.client, BUNDLED);
    const later = await wire.put(
      wire.ref("EdgeKVNamespace"),
      "keep-later",
      { ...wire.body(wire.ref("EdgeKVNamespace"), "keep-later", {}), review: { prepareDigest: before } },
      { headers: { "If-None-Match": "*" } },
    );
    expectStatus(later, 201);
    // Artifacts survived.
    const manifest = await served.client.request("GET", `${API}/artifacts/${chain.bundle.spec.manifestDigest}`);
    expectStatus(manifest, 200);
    await served.close();
  });
});
