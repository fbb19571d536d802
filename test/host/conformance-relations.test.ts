// Relations and bindings (decisions 0015, 0022) over real HTTP, per family.

import { describe, expect, it } from "vitest";
import { laneNamed } from "../../src/core/lanes.ts";
import { serve, TOKENS, type Served } from "./harness.ts";
import { families } from "./family.ts";
import { conformanceHost, readyOf, Wire } from "./wire.ts";
import { expectError, expectStatus } from "./expect.ts";
import { join } from "node:path";

const PROBE_EXTERNAL = { "Takoform-Conformance-Probe": "external-change" };

describe.each(families())("conformance relations — $label", (family) => {
  let served: Served;
  let wire: Wire;
  conformanceHost(family, (s, w) => {
    served = s;
    wire = w;
  });

  async function versionOnKv(prefix: string): Promise<{ version: any; kv: any; names: Record<string, string> }> {
    const kvName = `${prefix}-kv`;
    const kv = await wire.created(wire.ref("EdgeKVNamespace"), kvName, {});
    const chain = await wire.workerChain(prefix, { kv: [kvName] });
    return { version: chain.version, kv, names: { ...chain.names, kv: kvName } };
  }

  it("binding-target-missing-404-before-mutation", async () => {
    const chain = await wire.workerChain("bt-missing");
    const spec = wire.versionSpec({ bundle: chain.names.bundle, worker: chain.names.worker, kv: ["bt-missing-absent"] });
    const res = await wire.create(wire.ref("WorkerVersion"), "bt-missing-v2", spec);
    expectError(res, "resource_not_found", /\/kvBindings\/0\/resource/);
    expectError(await wire.read(wire.ref("WorkerVersion"), "bt-missing-v2"), "resource_not_found");
  });

  it("dependency-in-use-on-bound-target-delete", async () => {
    const { names } = await versionOnKv("dep-bound");
    expectError(await wire.remove(wire.ref("EdgeKVNamespace"), names.kv, "1"), "dependency_in_use", /kvBindings\/0\/resource/);
    expectStatus(await wire.read(wire.ref("EdgeKVNamespace"), names.kv), 200);
  });

  it("relation-target-missing-rejected", async () => {
    const worker = await wire.created(wire.ref("ModuleWorker"), "rtm-worker", {});
    expect(worker.metadata.uid).toBeTruthy();
    const res = await wire.create(wire.ref("WorkerVersion"), "rtm-version", wire.versionSpec({ bundle: "rtm-absent-bundle", worker: "rtm-worker" }));
    expectError(res, "resource_not_found", /relation \/bundle/);
    const consumer = await wire.create(wire.ref("QueueConsumer"), "rtm-consumer", wire.consumerSpec("rtm-absent-queue", "rtm-worker"));
    expectError(consumer, "resource_not_found", /\/queue/);
    expectError(await wire.read(wire.ref("QueueConsumer"), "rtm-consumer"), "resource_not_found");
  });

  it("relation-target-deletion-blocked", async () => {
    const chain = await wire.workerChain("rtd");
    // A bundle held by a version, a version weighted by a deployment, a worker held by both.
    expectError(await wire.remove(wire.ref("WorkerBundle"), chain.names.bundle, "1"), "dependency_in_use", /\/bundle/);
    expectError(await wire.remove(wire.ref("WorkerVersion"), chain.names.version, "1"), "dependency_in_use", /workerVersion/);
    expectError(await wire.remove(wire.ref("ModuleWorker"), chain.names.worker, "1"), "dependency_in_use");
    // Tearing down in order releases each target.
    expectStatus(await wire.remove(wire.ref("WorkerDeployment"), chain.names.deployment, "1"), 204);
    expectStatus(await wire.remove(wire.ref("WorkerVersion"), chain.names.version, "1"), 204);
    expectStatus(await wire.remove(wire.ref("WorkerBundle"), chain.names.bundle, "1"), 204);
    expectStatus(await wire.remove(wire.ref("ModuleWorker"), chain.names.worker, "1"), 204);
  });

  it("relation-incarnation-change-detected", async () => {
    const { version, kv, names } = await versionOnKv("ric");
    const vref = wire.ref("WorkerVersion");
    const kref = wire.ref("EdgeKVNamespace");
    const before = (await wire.read(vref, names.version)).json;
    // Out-of-band loss of the target: DependencyMissing, rendered into the holder (revision, not generation).
    expectStatus(await wire.remove(kref, names.kv, "1", { headers: PROBE_EXTERNAL }), 204);
    const missing = (await wire.read(vref, names.version)).json;
    expect(readyOf(missing)).toMatchObject({ status: "False", reason: "DependencyMissing" });
    expect(readyOf(missing).hostReason).toContain("/kvBindings/0/resource");
    expect(readyOf(missing).hostReason).toContain(kv.metadata.uid);
    expect(missing.metadata.generation).toBe(before.metadata.generation);
    expect(Number(missing.metadata.revision)).toBe(Number(before.metadata.revision) + 1);
    // A new incarnation takes the name: ExternalChange naming the pointer and both uids.
    const reborn = await wire.created(kref, names.kv, {});
    expect(reborn.metadata.uid).not.toBe(kv.metadata.uid);
    const changed = await wire.read(vref, names.version);
    const ready = readyOf(changed.json);
    expect(ready).toMatchObject({ status: "False", reason: "ExternalChange" });
    expect(ready.hostReason).toContain("/kvBindings/0/resource");
    expect(ready.hostReason).toContain(kv.metadata.uid);
    expect(ready.hostReason).toContain(reborn.metadata.uid);
    expect(ready.hostReason.length).toBeLessThanOrEqual(256);
    expect(ready.message).toContain(names.kv);
    expect(changed.json.metadata.generation).toBe(version.metadata.generation);
    // A read never heals, and is not re-bound: the holder still pins the old incarnation.
    const again = await wire.read(vref, names.version);
    expect(again.body.equals(changed.body)).toBe(true);
    // The re-created target is not held by the drifted holder's pin: it can be deleted.
    expectStatus(await wire.remove(kref, names.kv, "1"), 204);
  });

  it("relation-reapply-repins", async () => {
    const chain = await wire.workerChain("rrp");
    const qref = wire.ref("AtLeastOnceQueue");
    const cref = wire.ref("QueueConsumer");
    await wire.created(qref, "rrp-queue", wire.queueSpec());
    const spec = wire.consumerSpec("rrp-queue", chain.names.worker);
    const consumer = await wire.created(cref, "rrp-consumer", spec);
    expectStatus(await wire.remove(qref, "rrp-queue", "1", { headers: PROBE_EXTERNAL }), 204);
    await wire.created(qref, "rrp-queue", wire.queueSpec());
    const drifted = (await wire.read(cref, "rrp-consumer")).json;
    expect(readyOf(drifted).reason).toBe("ExternalChange");
    // The spec-identical fenced apply re-pins: generation unchanged, revision +1, Ready restored.
    const repinned = await wire.update(cref, "rrp-consumer", spec, consumer.metadata.generation);
    expectStatus(repinned, 200);
    expect(repinned.json.metadata.generation).toBe(consumer.metadata.generation);
    expect(Number(repinned.json.metadata.revision)).toBe(Number(drifted.metadata.revision) + 1);
    expect(readyOf(repinned.json)).toMatchObject({ status: "True", reason: "Available" });
    // A second identical apply moves nothing.
    const idle = await wire.update(cref, "rrp-consumer", spec, consumer.metadata.generation);
    expect(idle.json.metadata.revision).toBe(repinned.json.metadata.revision);
    expect(idle.json.metadata.generation).toBe(consumer.metadata.generation);
    // The new pin protects the new incarnation.
    expectError(await wire.remove(qref, "rrp-queue", "1"), "dependency_in_use");
  });

  it("binding-contract-verified", async () => {
    // A binding pointed at an installed same-kind Form of another group, which is not an allowed
    // target and provides no Interface, is refused before mutation.
    const chain = await wire.workerChain("bcv");
    const otherKv = wire.ref("EdgeKVNamespace", "0.1.0", family.otherGroup);
    await wire.created(otherKv, "bcv-other-kv", {});
    const vref = wire.ref("WorkerVersion");
    const valid = wire.versionSpec({ bundle: chain.names.bundle, worker: chain.names.worker });
    const spec = { ...valid, kvBindings: [{ name: "CACHE", resource: { apiVersion: family.otherGroup, kind: "EdgeKVNamespace", name: "bcv-other-kv" } }] };
    // Neither prepare nor an apply carrying some other review accepts it.
    expectError(await wire.prepare(vref, "bcv-bound", spec), "invalid_argument", /kvBindings\/0\/resource/);
    const digest = await wire.digest(vref, "bcv-bound", valid);
    const res = await wire.put(
      vref,
      "bcv-bound",
      { ...wire.body(vref, "bcv-bound", spec), review: { prepareDigest: digest } },
      { headers: { "If-None-Match": "*" } },
    );
    expectError(res, "invalid_argument", /kvBindings\/0\/resource/);
    expectError(await wire.read(wire.ref("WorkerVersion"), "bcv-bound"), "resource_not_found");
    // The other-group namespace is not held by anything: it deletes freely.
    expectStatus(await wire.remove(otherKv, "bcv-other-kv", "1"), 204);
  });

  it("relation-target-form-ref-verified", async () => {
    const chain = await wire.workerChain("rtf");
    const [, second] = family.moduleWorkerVersions;
    await wire.created(wire.ref("ModuleWorker", second), "rtf-worker-next", {});
    // WorkerDeployment /worker pins the exact ModuleWorker FormRef; a 0.2.0 worker is not it.
    const res = await wire.create(wire.ref("WorkerDeployment"), "rtf-deployment-next", wire.deploymentSpec("rtf-worker-next", [chain.names.version]));
    expectError(res, "invalid_argument", /relation \/worker requires its target to be recorded under/);
    expect(res.json.error.message).toContain(wire.ref("ModuleWorker").schemaDigest);
    expectError(await wire.read(wire.ref("WorkerDeployment"), "rtf-deployment-next"), "resource_not_found");
  });

  it("relation-target-interface-verified", async () => {
    const [, second] = family.moduleWorkerVersions;
    await wire.created(wire.ref("ModuleWorker", second), "rti-worker-next", {});
    const manifestDigest = await wire.bundle();
    await wire.created(wire.ref("WorkerBundle"), "rti-bundle", { manifestDigest });
    const res = await wire.create(wire.ref("WorkerVersion"), "rti-version", wire.versionSpec({ bundle: "rti-bundle", worker: "rti-worker-next" }));
    expectError(res, "invalid_argument", /relation \/worker requires a target whose Form provides Interface worker\.runtime@1\.0\.0/);
    expectError(await wire.read(wire.ref("WorkerVersion"), "rti-version"), "resource_not_found");
  });

  it("relation-pin-records-target-form-ref", async () => {
    const [first, second] = family.moduleWorkerVersions;
    const chain = await wire.workerChain("rpr");
    // The deployment goes first so the worker's only holders are the version (and nothing blocks the probe).
    expectStatus(await wire.remove(wire.ref("WorkerDeployment"), chain.names.deployment, "1"), 204);
    const oldRef = wire.ref("ModuleWorker", first);
    const newRef = wire.ref("ModuleWorker", second);
    expectStatus(await wire.remove(oldRef, chain.names.worker, "1", { headers: PROBE_EXTERNAL }), 204);
    const reborn = await wire.created(newRef, chain.names.worker, {});
    const read = (await wire.read(wire.ref("WorkerVersion"), chain.names.version)).json;
    const ready = readyOf(read);
    expect(ready).toMatchObject({ status: "False", reason: "ExternalChange" });
    for (const part of [
      "/worker",
      chain.worker.metadata.uid,
      reborn.metadata.uid,
      oldRef.definitionVersion,
      newRef.definitionVersion,
      oldRef.schemaDigest,
      newRef.schemaDigest,
    ]) {
      expect(ready.hostReason).toContain(part);
    }
    expect(ready.hostReason.length).toBeLessThanOrEqual(256);
    expect(read.metadata.generation).toBe(chain.version.metadata.generation);
    // The holder still answers under its own recorded ref.
    expect(read.form.formRef).toEqual(wire.ref("WorkerVersion"));
  });

  it("relation-resolution-is-tenant-scoped", async () => {
    const foreign = served.client.as(TOKENS.foreign);
    const kref = wire.ref("EdgeKVNamespace");
    await wire.created(kref, "rts-kv", {}, { client: foreign });
    const chain = await wire.workerChain("rts");
    const spec = wire.versionSpec({ bundle: chain.names.bundle, worker: chain.names.worker, kv: ["rts-kv"] });
    // A name only another tenant holds is an absent target.
    expectError(await wire.create(wire.ref("WorkerVersion"), "rts-version2", spec), "resource_not_found", /kvBindings\/0\/resource/);
    await wire.created(kref, "rts-kv", {});
    await wire.created(wire.ref("WorkerVersion"), "rts-version2", spec);
    // The pin is the caller tenant's uid: the other tenant's namespace deletes freely, ours is held.
    expectStatus(await wire.remove(kref, "rts-kv", "1", { client: foreign }), 204);
    expectError(await wire.remove(kref, "rts-kv", "1"), "dependency_in_use");
    expect(readyOf((await wire.read(wire.ref("WorkerVersion"), "rts-version2")).json).status).toBe("True");
  });

  it("binding contract not installed is unsupported_capability", async () => {
    // A host that installed the Forms and Interfaces but none of the Binding Definitions.
    const roots = family.options.bundled === false ? (family.options.forms ?? []) : [];
    const formsOnly =
      family.options.bundled === false
        ? {
            bundled: false,
            forms: roots.flatMap((r) =>
              r.endsWith(laneNamed(family.lane).corpus.folder) ? [join(r, "forms"), join(r, "interfaces"), join(r, "conformance")] : [r],
            ),
          }
        : { bundled: false, forms: [join(wireRoot(), "forms"), join(wireRoot(), "interfaces"), join(wireRoot(), "lanes", family.lane, "interfaces")] };
    const bare = await serve({ ...formsOnly, lanes: family.options.lanes, conformanceProbes: true });
    try {
      const w = await Wire.connect(bare.client, family);
      const { names } = await (async () => {
        await w.created(w.ref("EdgeKVNamespace"), "nobind-kv", {});
        const worker = await w.created(w.ref("ModuleWorker"), "nobind-worker", {});
        const manifestDigest = await w.bundle();
        await w.created(w.ref("WorkerBundle"), "nobind-bundle", { manifestDigest });
        return { names: { worker: worker.metadata.name } };
      })();
      const res = await w.create(w.ref("WorkerVersion"), "nobind-version", w.versionSpec({ bundle: "nobind-bundle", worker: names.worker, kv: ["nobind-kv"] }));
      expectError(res, "unsupported_capability", /Binding contract module-worker\.edge-kv@1\.0\.0/);
      // Without a binding list the same version is fine.
      expectStatus(await w.create(w.ref("WorkerVersion"), "nobind-version", w.versionSpec({ bundle: "nobind-bundle", worker: names.worker })), 201);
    } finally {
      await bare.close();
    }
  });

  it("a drift hostReason stays within 256 characters for long pointers", async () => {
    const qref = wire.ref("AtLeastOnceQueue");
    await wire.created(qref, "long-pointer-queue", wire.queueSpec());
    const chain = await wire.workerChain("longptr");
    const spec = wire.versionSpec({ bundle: chain.names.bundle, worker: chain.names.worker });
    spec.queueProducerBindings = [{ name: "JOBS", resource: wire.to("AtLeastOnceQueue", "long-pointer-queue") }];
    await wire.created(wire.ref("WorkerVersion"), "longptr-producer", spec);
    expectStatus(await wire.remove(qref, "long-pointer-queue", "1", { headers: PROBE_EXTERNAL }), 204);
    const reborn = await wire.created(qref, "long-pointer-queue", wire.queueSpec());
    const ready = readyOf((await wire.read(wire.ref("WorkerVersion"), "longptr-producer")).json);
    expect(ready.reason).toBe("ExternalChange");
    expect(ready.hostReason.length).toBeLessThanOrEqual(256);
    for (const part of ["/queueProducerBindings/0/resource", reborn.metadata.uid, qref.schemaDigest]) expect(ready.hostReason).toContain(part);
    expect(ready.message).toContain('"long-pointer-queue"');
  });

  it("delete and re-create out of band through the embedded test controls", async () => {
    const { version, kv, names } = await versionOnKv("oob");
    const address = { tenant: "tenant-a", space: "conformance", apiVersion: family.group, kind: "EdgeKVNamespace", name: names.kv };
    const reborn = served.host.controls.recreateOutOfBand(address);
    expect(reborn.uid).not.toBe(kv.metadata.uid);
    const changed = (await wire.read(wire.ref("WorkerVersion"), names.version)).json;
    expect(readyOf(changed).reason).toBe("ExternalChange");
    expect(changed.metadata.generation).toBe(version.metadata.generation);
    expect(served.host.controls.deleteOutOfBand(address)).toBe(true);
    expect(readyOf((await wire.read(wire.ref("WorkerVersion"), names.version)).json).reason).toBe("DependencyMissing");
  });

  it("a contract moved under the same uid is ExternalChange", async () => {
    const [first, second] = family.moduleWorkerVersions;
    const chain = await wire.workerChain("moved");
    const address = { tenant: "tenant-a", space: "conformance", apiVersion: family.group, kind: "ModuleWorker", name: chain.names.worker };
    served.host.controls.recontractOutOfBand(address, wire.ref("ModuleWorker", second));
    const ready = readyOf((await wire.read(wire.ref("WorkerVersion"), chain.names.version)).json);
    expect(ready.reason).toBe("ExternalChange");
    expect(ready.hostReason).toContain(`${chain.worker.metadata.uid} -> ${chain.worker.metadata.uid}`);
    expect(ready.hostReason).toContain(first);
    // The worker now answers only under the ref it is recorded under.
    expectError(await wire.read(wire.ref("ModuleWorker", first), chain.names.worker), "resource_not_found");
    expectStatus(await wire.read(wire.ref("ModuleWorker", second), chain.names.worker), 200);
  });
});

function wireRoot(): string {
  return new URL("../../registry/packages", import.meta.url).pathname;
}
