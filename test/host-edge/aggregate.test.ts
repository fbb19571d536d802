// The Worker aggregate over real HTTP (reference §10.5, decision 0016): one deployment per
// worker incarnation, deployment integrity, the derived ModuleWorker readiness, the reverse gate
// and the deployment delete guard. Titles name the §9 check each test proves. Every refusal is
// asserted to leave the host's store exactly as it was.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Edge, FETCH_ONLY, FULL_MODULE, modes, readyOf, SCHEDULED_ONLY } from "./edge.ts";

const PROBE_ASYNC = { "Takoform-Conformance-Probe": "async" };

describe.each(modes())("Worker aggregate — $label", (mode) => {
  let edge: Edge;
  beforeAll(async () => {
    edge = await Edge.open(mode, { conformanceProbes: true });
  });
  afterAll(async () => edge.close());

  it("deployment-weight-sum-enforced", async () => {
    const a = await edge.aggregate("wsum", { deploy: false });
    const second = await edge.revision("wsum", "2", FULL_MODULE, ["fetch"]);
    expect(readyOf(await edge.read("ModuleWorker", "wsum"))).toMatchObject({ status: "False", reason: "Provisioning" });
    for (const weights of [
      [[a.names.version, 9999]],
      [
        [a.names.version, 5000],
        [second.names.version, 4000],
      ],
      [
        [a.names.version, 6000],
        [second.names.version, 6000],
      ],
    ] as [string, number][][]) {
      const spec = edge.deploymentSpec("wsum", weights);
      const sum = weights.reduce((s, [, w]) => s + w, 0);
      const refusal = [/\/spec\/versions/, new RegExp(`sum to ${sum}`), /exactly 10000/];
      // The spec is schema-valid, so prepare accepts it and mints a review (reference §2.6,
      // §11 Q20), exactly as upstream's runner expects; the sum is a rule of apply and import.
      const prepared = await edge.prepare("WorkerDeployment", "wsum-deployment", spec);
      expect(prepared.status, prepared.text).toBe(200);
      expect(prepared.json.review.prepareDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
      // The runner's apply — prepare, then PUT with that review — is refused, storing nothing.
      await edge.refuses(() => edge.createRaw("WorkerDeployment", "wsum-deployment", spec), "invalid_argument", refusal);
      await edge.readAbsent("WorkerDeployment", "wsum-deployment");
      // Import runs the same gauntlet as apply.
      await edge.refuses(() => edge.importRaw("WorkerDeployment", "wsum-deployment", spec, "native-wsum"), "invalid_argument", refusal);
      // validate: the spec is valid; the refusal the write will meet is a warning.
      const v = await edge.validate("WorkerDeployment", "wsum-deployment", spec);
      expect(v.json.valid).toBe(true);
      expect(v.json.diagnostics).toEqual([{ severity: "warning", field: "/spec/versions", message: expect.stringMatching(new RegExp(`sum to ${sum}`)) }]);
    }
    const created = await edge.create(
      "WorkerDeployment",
      "wsum-deployment",
      edge.deploymentSpec("wsum", [
        [a.names.version, 2500],
        [second.names.version, 7500],
      ]),
    );
    // Creating the deployment makes the worker Ready.
    expect(readyOf(await edge.read("ModuleWorker", "wsum"))).toMatchObject({ status: "True", reason: "Available" });
    // An update is held to the same sum: prepared under its fence, refused at apply, nothing moves.
    const short = edge.deploymentSpec("wsum", [
      [a.names.version, 2500],
      [second.names.version, 7499],
    ]);
    expect((await edge.wire.prepare(edge.ref("WorkerDeployment"), "wsum-deployment", short, { generation: created.metadata.generation })).status).toBe(200);
    await edge.refuses(() => edge.updateRaw("WorkerDeployment", "wsum-deployment", short, created.metadata.generation), "invalid_argument", [/sum to 9999/]);
    expect((await edge.read("WorkerDeployment", "wsum-deployment")).metadata.generation).toBe(created.metadata.generation);
  });

  it("deployment-single-active-per-worker", async () => {
    const a = await edge.aggregate("single");
    const spec = edge.deploymentSpec("single", [[a.names.version, 10000]]);
    await edge.refuses(() => edge.createRaw("WorkerDeployment", "single-other", spec), "invalid_argument", [
      /ModuleWorker "single"/,
      /already has the active WorkerDeployment "single-deployment"/,
    ]);
    // Re-applying the worker's own deployment is fine; so is another worker's first deployment.
    const again = await edge.update("WorkerDeployment", a.names.deployment, spec, "1");
    expect(again.metadata.generation).toBe("1");
    const b = await edge.aggregate("single-b", { deploy: false });
    await edge.create("WorkerDeployment", "single-other", edge.deploymentSpec("single-b", [[b.names.version, 10000]]));
    // The rule is about the incarnation's ACTIVE deployment: once it is gone, another may take its place.
    await edge.remove("WorkerDeployment", a.names.deployment, "1");
    await edge.create("WorkerDeployment", "single-third", spec);
    // Import is decided the same way.
    await edge.refuses(() => edge.importRaw("WorkerDeployment", "single-fourth", spec, "native-single-fourth"), "invalid_argument", [
      /already has the active WorkerDeployment "single-third"/,
    ]);
  });

  it("deployment-version-ownership", async () => {
    const mine = await edge.aggregate("own-a", { deploy: false });
    const theirs = await edge.aggregate("own-b", { deploy: false });
    const spec = edge.deploymentSpec("own-a", [
      [mine.names.version, 5000],
      [theirs.names.version, 5000],
    ]);
    await edge.refuses(() => edge.createRaw("WorkerDeployment", "own-a-deployment", spec), "invalid_argument", [
      /\/versions\/1\/workerVersion/,
      new RegExp(`"${theirs.names.version}"`),
      new RegExp(`belongs to the worker at uid ${theirs.worker.metadata.uid}`),
    ]);
    await edge.create("WorkerDeployment", "own-a-deployment", edge.deploymentSpec("own-a", [[mine.names.version, 10000]]));
  });

  it("deployment-version-duplicate-rejected", async () => {
    const a = await edge.aggregate("dup", { deploy: false });
    const spec = edge.deploymentSpec("dup", [
      [a.names.version, 4000],
      [a.names.version, 6000],
    ]);
    await edge.refuses(() => edge.createRaw("WorkerDeployment", "dup-deployment", spec), "invalid_argument", [
      /\/versions\/1\/workerVersion/,
      /a second time/,
      /\/versions\/0\/workerVersion already weights it/,
    ]);
  });

  it("a deployment refuses a version that is not Ready or is being deleted (deployment integrity)", async () => {
    const a = await edge.aggregate("integ", { deploy: false });
    // Not Ready: the version's bundle was replaced out of band (relation drift).
    const drifted = await edge.revision("integ", "drift", FULL_MODULE, ["fetch"]);
    const space = "conformance";
    const tenant = "tenant-a";
    edge.host.controls.recreateOutOfBand({ tenant, space, apiVersion: edge.group, kind: "WorkerBundle", name: drifted.names.bundle });
    expect(readyOf(await edge.read("WorkerVersion", drifted.names.version))).toMatchObject({ status: "False", reason: "ExternalChange" });
    const onDrifted = edge.deploymentSpec("integ", [[drifted.names.version, 10000]]);
    await edge.refuses(() => edge.createRaw("WorkerDeployment", "integ-deployment", onDrifted), "invalid_argument", [
      new RegExp(`"${drifted.names.version}"`),
      /not Ready/,
      /\/bundle/,
    ]);
    // Being removed by an accepted (pending) delete.
    const doomed = await edge.revision("integ", "doomed", FULL_MODULE, ["fetch"]);
    const pendingName = doomed.names.version;
    const pending = await edge.client.request(
      "DELETE",
      `${edge.wire.path(edge.ref("WorkerVersion"), pendingName)}?${edge.wire.query(edge.ref("WorkerVersion"))}`,
      {
        headers: { "Idempotency-Key": `k-${pendingName}`, "Takoform-Expected-Generation": "1", ...PROBE_ASYNC },
      },
    );
    expect(pending.status).toBe(202);
    const onPending = edge.deploymentSpec("integ", [[pendingName, 10000]]);
    await edge.refuses(() => edge.createRaw("WorkerDeployment", "integ-deployment", onPending), "invalid_argument", [
      new RegExp(`"${pendingName}"`),
      /accepted delete/,
    ]);
    // The probe commits the delete at its second poll.
    const done = await edge.wire.poll(pending.json.operation.id as string);
    expect(done.error).toBeUndefined();
    await edge.create("WorkerDeployment", "integ-deployment", edge.deploymentSpec("integ", [[a.names.version, 10000]]));
  });

  it("ModuleWorker readiness: Provisioning, then Available, then UnsupportedCapability, each with a hostReason", async () => {
    const a = await edge.aggregate("ready", { deploy: false, source: SCHEDULED_ONLY, handlers: ["scheduled"] });
    const provisioning = readyOf(await edge.read("ModuleWorker", "ready"));
    expect(provisioning).toMatchObject({ status: "False", reason: "Provisioning" });
    expect(provisioning.hostReason).toContain('ModuleWorker "ready"');
    expect(provisioning.hostReason).toContain(a.worker.metadata.uid);
    expect(provisioning.hostReason).toContain("no active WorkerDeployment");
    await edge.create("WorkerDeployment", "ready-deployment", edge.deploymentSpec("ready", [[a.names.version, 10000]]));
    const unsupported = readyOf(await edge.read("ModuleWorker", "ready"));
    expect(unsupported).toMatchObject({ status: "False", reason: "UnsupportedCapability" });
    expect(unsupported.hostReason).toContain(`"${a.names.version}"`);
    expect(unsupported.hostReason).toContain("fetch");
    expect(unsupported.hostReason.length).toBeLessThanOrEqual(256);
    const served = await edge.revision("ready", "2", FETCH_ONLY, ["fetch"]);
    await edge.update("WorkerDeployment", "ready-deployment", edge.deploymentSpec("ready", [[served.names.version, 10000]]), "1");
    const available = readyOf(await edge.read("ModuleWorker", "ready"));
    expect(available).toMatchObject({ status: "True", reason: "Available" });
    expect(available.hostReason).toBeUndefined();
  });

  it("dependent-revision-advances-with-rendering", async () => {
    const a = await edge.aggregate("rend", { deploy: false });
    const scheduledOnly = await edge.revision("rend", "s", SCHEDULED_ONLY, ["scheduled"]);
    const fetchOnly = await edge.revision("rend", "f", FETCH_ONLY, ["fetch"]);
    const w0 = await edge.read("ModuleWorker", "rend");
    expect([w0.metadata.generation, w0.metadata.revision]).toEqual(["1", "1"]);
    const at = async (): Promise<[string, string, string]> => {
      const w = await edge.read("ModuleWorker", "rend");
      return [w.metadata.generation, w.metadata.revision, readyOf(w).reason];
    };
    // Create: Provisioning → Available.
    await edge.create("WorkerDeployment", "rend-deployment", edge.deploymentSpec("rend", [[a.names.version, 10000]]));
    expect(await at()).toEqual(["1", "2", "Available"]);
    // Re-weighting between serving versions leaves the rendering, so nothing moves.
    let d = await edge.update(
      "WorkerDeployment",
      "rend-deployment",
      edge.deploymentSpec("rend", [
        [a.names.version, 5000],
        [fetchOnly.names.version, 5000],
      ]),
      "1",
    );
    expect(await at()).toEqual(["1", "2", "Available"]);
    // Re-weighting to a version without fetch: UnsupportedCapability, revision + 1.
    d = await edge.update("WorkerDeployment", "rend-deployment", edge.deploymentSpec("rend", [[scheduledOnly.names.version, 10000]]), d.metadata.generation);
    expect(await at()).toEqual(["1", "3", "UnsupportedCapability"]);
    // An idempotent re-apply moves nothing anywhere.
    const idle = await edge.update(
      "WorkerDeployment",
      "rend-deployment",
      edge.deploymentSpec("rend", [[scheduledOnly.names.version, 10000]]),
      d.metadata.generation,
    );
    expect(idle.metadata.revision).toBe(d.metadata.revision);
    expect(await at()).toEqual(["1", "3", "UnsupportedCapability"]);
    // Delete: Provisioning again, revision + 1, generation never moved.
    await edge.remove("WorkerDeployment", "rend-deployment", d.metadata.generation);
    expect(await at()).toEqual(["1", "4", "Provisioning"]);
  });

  it("delete-fence-survives-derived-rendering", async () => {
    const a = await edge.aggregate("fence");
    const before = await edge.read("ModuleWorker", "fence");
    await edge.remove("WorkerDeployment", a.names.deployment, "1");
    await edge.remove("WorkerVersion", a.names.version, "1");
    await edge.remove("WorkerBundle", a.names.bundle, "1");
    const after = await edge.read("ModuleWorker", "fence");
    expect(Number(after.metadata.revision)).toBeGreaterThan(Number(before.metadata.revision));
    expect(after.metadata.generation).toBe(before.metadata.generation);
    // An If-Match, when sent, is honoured; without one the generation read before the teardown suffices.
    await edge.refuses(() => edge.removeRaw("ModuleWorker", "fence", before.metadata.generation, { ifMatch: before.metadata.revision }), "revision_conflict");
    await edge.remove("ModuleWorker", "fence", before.metadata.generation);
    await edge.readAbsent("ModuleWorker", "fence");
  });

  it("deployment-change-preserves-dependents", async () => {
    const a = await edge.aggregate("keep");
    await edge.create("WorkerCronTrigger", "keep-cron", { cron: "*/5 * * * *", worker: edge.to("ModuleWorker", "keep") });
    const fetchOnly = await edge.revision("keep", "f", FETCH_ONLY, ["fetch"]);
    // Weighting a fetch-only version next to the full one would leave the cron trigger unserved.
    const spec = edge.deploymentSpec("keep", [
      [a.names.version, 5000],
      [fetchOnly.names.version, 5000],
    ]);
    await edge.refuses(() => edge.updateRaw("WorkerDeployment", a.names.deployment, spec, "1"), "unsupported_capability", [
      /scheduled/,
      /WorkerCronTrigger "keep-cron"/,
      new RegExp(`"${fetchOnly.names.version}" does not export scheduled`),
    ]);
    // An inbound service binding needs fetch: a caller's version binds to this worker.
    const caller = await edge.aggregate("keep-caller", { deploy: false });
    await edge.create(
      "WorkerVersion",
      "keep-caller-v-bound",
      edge.versionSpec({
        bundle: caller.names.bundle,
        worker: "keep-caller",
        extra: { serviceBindings: [{ name: "KEEP", resource: edge.to("ModuleWorker", "keep") }] },
      }),
    );
    await edge.remove("WorkerCronTrigger", "keep-cron", "1");
    const scheduled = await edge.revision("keep", "s", SCHEDULED_ONLY, ["scheduled"]);
    await edge.refuses(
      () => edge.updateRaw("WorkerDeployment", a.names.deployment, edge.deploymentSpec("keep", [[scheduled.names.version, 10000]]), "1"),
      "unsupported_capability",
      [/fetch/, /WorkerVersion "keep-caller-v-bound"/, /service binding \/serviceBindings\/0\/resource/],
    );
    // A change that keeps serving every dependent is accepted.
    await edge.update(
      "WorkerDeployment",
      a.names.deployment,
      edge.deploymentSpec("keep", [
        [a.names.version, 9000],
        [fetchOnly.names.version, 1000],
      ]),
      "1",
    );
  });

  it("deployment-delete-blocked-by-dependent", async () => {
    const a = await edge.aggregate("guard");
    await edge.create("WorkerEndpoint", "guard-endpoint", { worker: edge.to("ModuleWorker", "guard") });
    await edge.refuses(() => edge.removeRaw("WorkerDeployment", a.names.deployment, "1"), "dependency_in_use", [
      /WorkerEndpoint "guard-endpoint"/,
      /needs fetch/,
    ]);
    await edge.remove("WorkerEndpoint", "guard-endpoint", "1");
    await edge.remove("WorkerDeployment", a.names.deployment, "1");
  });

  it("deployment-delete-blocked-by-inbound-binding", async () => {
    const a = await edge.aggregate("callee");
    const caller = await edge.aggregate("caller", { deploy: false });
    const bound = edge.versionSpec({
      bundle: caller.names.bundle,
      worker: "caller",
      extra: { serviceBindings: [{ name: "CALLEE", resource: edge.to("ModuleWorker", "callee") }] },
    });
    await edge.create("WorkerVersion", "caller-v-bound", bound);
    await edge.refuses(() => edge.removeRaw("WorkerDeployment", a.names.deployment, "1"), "dependency_in_use", [
      /WorkerVersion "caller-v-bound"/,
      /service binding \/serviceBindings\/0\/resource/,
    ]);
    await edge.remove("WorkerVersion", "caller-v-bound", "1");
    await edge.remove("WorkerDeployment", a.names.deployment, "1");
  });

  it("a service binding to a worker that does not serve fetch is unsupported_capability", async () => {
    const caller = await edge.aggregate("svc-caller", { deploy: false });
    await edge.aggregate("svc-idle", { deploy: false });
    const bindTo = (target: string) =>
      edge.versionSpec({
        bundle: caller.names.bundle,
        worker: "svc-caller",
        extra: { serviceBindings: [{ name: "TARGET", resource: edge.to("ModuleWorker", target) }] },
      });
    await edge.refuses(() => edge.createRaw("WorkerVersion", "svc-caller-v-idle", bindTo("svc-idle")), "unsupported_capability", [
      /\/serviceBindings\/0\/resource/,
      /ModuleWorker "svc-idle"/,
      /no active WorkerDeployment/,
    ]);
    await edge.aggregate("svc-cron", { source: SCHEDULED_ONLY, handlers: ["scheduled"] });
    await edge.refuses(() => edge.createRaw("WorkerVersion", "svc-caller-v-cron", bindTo("svc-cron")), "unsupported_capability", [
      /ModuleWorker "svc-cron"/,
      /does not export fetch/,
    ]);
    await edge.aggregate("svc-live");
    await edge.create("WorkerVersion", "svc-caller-v-live", bindTo("svc-live"));
  });
});
