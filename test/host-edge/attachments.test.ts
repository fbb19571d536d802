// Attachments over real HTTP (reference §10.5, decisions 0016, 0020, 0024, 0026): the handler
// gates against the ACTIVE deployment, the queue and dead-letter rules, custom domain hostname
// canonicalization and per-tenant claims, the cron parser, and the host-assigned WorkerEndpoint
// address. Titles name the §9 check each test proves; every refusal leaves the store unchanged.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpClient } from "../host/harness.ts";
import { ALT_SPACE } from "../host/wire.ts";
import { Edge, FETCH_ONLY, FULL_MODULE, modes, readyOf, TOKENS } from "./edge.ts";

describe.each(modes())("attachments — $label", (mode) => {
  let edge: Edge;
  beforeAll(async () => {
    edge = await Edge.open(mode);
  });
  afterAll(async () => edge.close());

  const worker = (name: string) => edge.to("ModuleWorker", name);
  const queue = (name: string) => edge.to("AtLeastOnceQueue", name);

  it("attachment-requires-active-deployment", async () => {
    // The stored version declares every handler; without a deployment none of them counts.
    await edge.aggregate("nodep", { deploy: false });
    await edge.create("AtLeastOnceQueue", "nodep-queue", { messageRetentionSeconds: 3600 });
    const cases: [string, unknown, string][] = [
      ["WorkerCustomDomain", { hostname: "nodep.example.test", worker: worker("nodep") }, "fetch"],
      ["WorkerEndpoint", { worker: worker("nodep") }, "fetch"],
      ["WorkerCronTrigger", { cron: "0 * * * *", worker: worker("nodep") }, "scheduled"],
      ["QueueConsumer", edge.consumerSpec("nodep-queue", "nodep"), "queue"],
    ];
    for (const [kind, spec, handler] of cases) {
      const name = `nodep-${kind.toLowerCase()}`;
      await edge.refuses(() => edge.createRaw(kind, name, spec), "unsupported_capability", [
        new RegExp(`${kind} "${name}"`),
        new RegExp(handler),
        /ModuleWorker "nodep"/,
        /no active WorkerDeployment/,
      ]);
      await edge.refuses(() => edge.importRaw(kind, name, spec, `native-${name}`), "unsupported_capability", [/no active WorkerDeployment/]);
    }
  });

  it("handler-gated-attachments", async () => {
    const a = await edge.aggregate("gate", { source: FETCH_ONLY, handlers: ["fetch"] });
    // A stored version exporting everything, but not weighted, never counts.
    const full = await edge.revision("gate", "full", FULL_MODULE, ["fetch", "scheduled", "queue"]);
    await edge.create("AtLeastOnceQueue", "gate-queue", { messageRetentionSeconds: 3600 });
    const cron = { cron: "*/5 * * * *", worker: worker("gate") };
    const consumer = edge.consumerSpec("gate-queue", "gate");
    await edge.refuses(() => edge.createRaw("WorkerCronTrigger", "gate-cron", cron), "unsupported_capability", [
      /scheduled/,
      /"gate-deployment"/,
      new RegExp(`"${a.names.version}" does not export scheduled`),
    ]);
    await edge.refuses(() => edge.createRaw("QueueConsumer", "gate-consumer", consumer), "unsupported_capability", [
      /queue/,
      new RegExp(`"${a.names.version}" does not export queue`),
    ]);
    await edge.create("WorkerCustomDomain", "gate-domain", { hostname: "gate.example.test", worker: worker("gate") });
    await edge.create("WorkerEndpoint", "gate-endpoint", { worker: worker("gate") });
    // EVERY weighted version must export the handler: one of two is not enough.
    const d = await edge.update(
      "WorkerDeployment",
      a.names.deployment,
      edge.deploymentSpec("gate", [
        [a.names.version, 5000],
        [full.names.version, 5000],
      ]),
      "1",
    );
    await edge.refuses(() => edge.createRaw("WorkerCronTrigger", "gate-cron", cron), "unsupported_capability", [
      new RegExp(`"${a.names.version}" does not export scheduled`),
    ]);
    await edge.update("WorkerDeployment", a.names.deployment, edge.deploymentSpec("gate", [[full.names.version, 10000]]), d.metadata.generation);
    await edge.create("WorkerCronTrigger", "gate-cron", cron);
    await edge.create("QueueConsumer", "gate-consumer", consumer);
  });

  it("cron-grammar-enforced", async () => {
    await edge.aggregate("cron");
    const spec = (expression: string) => ({ cron: expression, worker: worker("cron") });
    for (const good of ["*/5 * * * *", "0 * * * *", "0 9-17 * * 1-5", "* * * * *", "0,30 0-23/2 1-31 1-12 0-6", "59 23 31 12 6"]) {
      const v = await edge.validate("WorkerCronTrigger", "cron-trigger", spec(good));
      expect(v.json, good).toEqual({ valid: true, diagnostics: [] });
    }
    const refused: [string, RegExp][] = [
      ["0 24 * * *", /hour value 24 is out of range/],
      ["60 0 * * *", /minute value 60 is out of range/],
      ["5-1 * * * *", /minute range "5-1" is inverted/],
      ["*/0 * * * *", /minute step .* out of range/],
      ["*/60 * * * *", /minute step .* out of range/],
      ["0 0 32 * *", /day-of-month value 32 is out of range/],
      ["0 0 0 * *", /day-of-month value 0 is out of range/],
      ["0 0 * 13 *", /month value 13 is out of range/],
      ["0 0 * * 7", /day-of-week value 7 is out of range/],
      // The published pattern already refuses a step on a single value (the parser would too).
      ["5/2 * * * *", /pattern|single value/],
    ];
    for (const [bad, why] of refused) {
      const v = await edge.validate("WorkerCronTrigger", "cron-trigger", spec(bad));
      expect(v.status).toBe(200);
      expect(v.json.valid, bad).toBe(false);
      expect(v.json.diagnostics[0].field).toBe("/spec/cron");
      expect(v.json.diagnostics[0].message).toMatch(why);
      await edge.refuses(() => edge.prepare("WorkerCronTrigger", "cron-trigger", spec(bad)), "invalid_argument", [/\/spec\/cron/, why]);
    }
    // apply refuses it too, even carrying a review minted for a valid spec.
    const review = await edge.prepare("WorkerCronTrigger", "cron-trigger", spec("0 * * * *"));
    const ref = edge.ref("WorkerCronTrigger");
    await edge.refuses(
      () =>
        edge.wire.put(
          ref,
          "cron-trigger",
          { ...edge.wire.body(ref, "cron-trigger", spec("0 24 * * *")), review: { prepareDigest: review.json.review.prepareDigest } },
          { headers: { "If-None-Match": "*" } },
        ),
      "invalid_argument",
      [/hour value 24/],
    );
    await edge.refuses(() => edge.importRaw("WorkerCronTrigger", "cron-trigger", spec("5-1 * * * *"), "native-cron"), "invalid_argument", [/inverted/]);
    const t = await edge.create("WorkerCronTrigger", "cron-trigger", spec("0 9-17 * * 1-5"));
    expect(t.spec.cron).toBe("0 9-17 * * 1-5");
    await edge.refuses(() => edge.updateRaw("WorkerCronTrigger", "cron-trigger", spec("0 0 * * 7"), "1"), "invalid_argument", [/day-of-week/]);
  });

  it("queue-single-consumer-enforced", async () => {
    await edge.aggregate("single-q");
    await edge.create("AtLeastOnceQueue", "single-q-queue", { messageRetentionSeconds: 3600 });
    await edge.create("QueueConsumer", "single-q-first", edge.consumerSpec("single-q-queue", "single-q"));
    await edge.refuses(() => edge.createRaw("QueueConsumer", "single-q-second", edge.consumerSpec("single-q-queue", "single-q")), "invalid_argument", [
      /AtLeastOnceQueue "single-q-queue"/,
      /QueueConsumer "single-q-first"/,
      /at most one consumer/,
    ]);
    // Updating the one consumer in place is fine.
    await edge.update("QueueConsumer", "single-q-first", { ...edge.consumerSpec("single-q-queue", "single-q"), maxBatchSize: 20 }, "1");
    await edge.remove("QueueConsumer", "single-q-first", "2");
    await edge.create("QueueConsumer", "single-q-second", edge.consumerSpec("single-q-queue", "single-q"));
  });

  it("dead-letter-cycle-rejected", async () => {
    await edge.aggregate("dlq");
    for (const q of ["q1", "q2", "q3", "q4", "q5"]) await edge.create("AtLeastOnceQueue", `dlq-${q}`, { messageRetentionSeconds: 3600 });
    // Its own queue as dead-letter queue is a cycle of length one.
    await edge.refuses(() => edge.createRaw("QueueConsumer", "dlq-c1", edge.consumerSpec("dlq-q1", "dlq", "dlq-q1")), "invalid_argument", [
      /QueueConsumer "dlq-c1"/,
      /its own queue/,
      /acyclic/,
    ]);
    // A chain q1 → q2 → q3 is fine; closing it back to q1 is not.
    await edge.create("QueueConsumer", "dlq-c1", edge.consumerSpec("dlq-q1", "dlq", "dlq-q2"));
    await edge.create("QueueConsumer", "dlq-c2", edge.consumerSpec("dlq-q2", "dlq", "dlq-q3"));
    await edge.refuses(() => edge.createRaw("QueueConsumer", "dlq-c3", edge.consumerSpec("dlq-q3", "dlq", "dlq-q1")), "invalid_argument", [
      /dead letters lead back/,
      /AtLeastOnceQueue "dlq-q3"/,
    ]);
    // An update may close a cycle too (q2 → q1 → q2).
    await edge.refuses(() => edge.updateRaw("QueueConsumer", "dlq-c2", edge.consumerSpec("dlq-q2", "dlq", "dlq-q1"), "1"), "invalid_argument", [/acyclic/]);
    // A diamond (two queues dead-lettering into one) is accepted.
    await edge.create("QueueConsumer", "dlq-c3", edge.consumerSpec("dlq-q3", "dlq", "dlq-q5"));
    await edge.create("QueueConsumer", "dlq-c4", edge.consumerSpec("dlq-q4", "dlq", "dlq-q5"));
    // Re-pointing the chain's head elsewhere stays acyclic.
    await edge.update("QueueConsumer", "dlq-c2", edge.consumerSpec("dlq-q2", "dlq", "dlq-q4"), "1");
  });

  it("custom-domain-hostname-canonicalized", async () => {
    await edge.aggregate("canon");
    const spec = (hostname: string) => ({ hostname, worker: worker("canon") });
    const digests = new Set<string>();
    for (const spelling of ["API.Example.com", "api.example.com.", "api.example.com"]) {
      const p = await edge.prepare("WorkerCustomDomain", "canon-domain", spec(spelling));
      expect(p.status).toBe(200);
      expect(p.json.resource.spec.hostname).toBe("api.example.com");
      digests.add(p.json.review.specDigest);
      const v = await edge.validate("WorkerCustomDomain", "canon-domain", spec(spelling));
      expect(v.json.valid).toBe(true);
    }
    expect(digests.size).toBe(1);
    const created = await edge.create("WorkerCustomDomain", "canon-domain", spec("API.Example.com"));
    expect(created.spec.hostname).toBe("api.example.com");
    for (const spelling of ["api.example.com.", "api.example.com"]) {
      const again = await edge.update("WorkerCustomDomain", "canon-domain", spec(spelling), "1");
      expect(again.metadata.generation).toBe("1");
      expect(again.spec.hostname).toBe("api.example.com");
    }
    expect((await edge.read("WorkerCustomDomain", "canon-domain")).metadata.generation).toBe("1");
  });

  it("custom-domain-hostname-claim-unique", async () => {
    await edge.aggregate("claim");
    await edge.aggregate("claim", { space: ALT_SPACE });
    await edge.create("WorkerCustomDomain", "claim-domain", { hostname: "claim.example.test", worker: worker("claim") });
    // Any space of the tenant, any spelling of the name.
    await edge.refuses(
      () => edge.createRaw("WorkerCustomDomain", "claim-other", { hostname: "CLAIM.example.test.", worker: worker("claim") }, { space: ALT_SPACE }),
      "invalid_argument",
      [/hostname "claim.example.test"/, /WorkerCustomDomain "claim-domain"/, /space "conformance"/],
    );
    await edge.refuses(
      () => edge.createRaw("WorkerCustomDomain", "claim-same-space", { hostname: "claim.example.test", worker: worker("claim") }),
      "invalid_argument",
      [/already claimed/],
    );
    // Releasing the claim re-enables it.
    await edge.remove("WorkerCustomDomain", "claim-domain", "1");
    const moved = await edge.create("WorkerCustomDomain", "claim-other", { hostname: "claim.example.test", worker: worker("claim") }, { space: ALT_SPACE });
    expect(moved.metadata.space).toBe(ALT_SPACE);
  });

  it("custom-domain-hostname-claim-stops-at-the-tenant", async () => {
    const foreign = edge.client.as(TOKENS.foreign);
    await edge.aggregate("tenant-claim");
    await edge.aggregate("tenant-claim", { client: foreign });
    await edge.create("WorkerCustomDomain", "a-holder", { hostname: "shared.example.test", worker: worker("tenant-claim") });
    // Another tenant may claim the same hostname.
    const theirs = await edge.create(
      "WorkerCustomDomain",
      "b-holder",
      { hostname: "shared.example.test", worker: worker("tenant-claim") },
      { client: foreign },
    );
    expect(theirs.spec.hostname).toBe("shared.example.test");
    // Inside a tenant, the refusal names only that tenant's holder.
    const b = await edge.refuses(
      () => edge.createRaw("WorkerCustomDomain", "b-second", { hostname: "shared.example.test", worker: worker("tenant-claim") }, { client: foreign }),
      "invalid_argument",
      [/WorkerCustomDomain "b-holder"/],
      foreign,
    );
    expect(b.message).not.toContain("a-holder");
    const a = await edge.refuses(
      () => edge.createRaw("WorkerCustomDomain", "a-second", { hostname: "shared.example.test", worker: worker("tenant-claim") }),
      "invalid_argument",
      [/"a-holder"/],
    );
    expect(a.message).not.toContain("b-holder");
  });

  it("attachment-claim-decided-on-import", async () => {
    await edge.aggregate("imp");
    for (const q of ["q1", "q2"]) await edge.create("AtLeastOnceQueue", `imp-${q}`, { messageRetentionSeconds: 3600 });
    // Hostname claim: refused while held, accepted once free.
    await edge.create("WorkerCustomDomain", "imp-domain", { hostname: "imp.example.test", worker: worker("imp") });
    await edge.refuses(
      () => edge.importRaw("WorkerCustomDomain", "imp-adopted", { hostname: "Imp.Example.Test", worker: worker("imp") }, "native-imp-domain"),
      "invalid_argument",
      [/already claimed/],
    );
    await edge.remove("WorkerCustomDomain", "imp-domain", "1");
    const adopted = await edge.importOk("WorkerCustomDomain", "imp-adopted", { hostname: "Imp.Example.Test", worker: worker("imp") }, "native-imp-domain");
    expect(adopted.spec.hostname).toBe("imp.example.test");
    // Dead-letter claim: a cycle refused, a chain accepted.
    await edge.create("QueueConsumer", "imp-c1", edge.consumerSpec("imp-q1", "imp", "imp-q2"));
    await edge.refuses(() => edge.importRaw("QueueConsumer", "imp-c2", edge.consumerSpec("imp-q2", "imp", "imp-q1"), "native-imp-c2"), "invalid_argument", [
      /acyclic/,
    ]);
    await edge.importOk("QueueConsumer", "imp-c2", edge.consumerSpec("imp-q2", "imp"), "native-imp-c2");
    // A second consumer of one queue is refused on import as well.
    await edge.refuses(() => edge.importRaw("QueueConsumer", "imp-c3", edge.consumerSpec("imp-q2", "imp"), "native-imp-c3"), "invalid_argument", [
      /at most one consumer/,
    ]);
  });

  it("custom-domain-u-label-refused", async () => {
    await edge.aggregate("idn");
    const v = await edge.validate("WorkerCustomDomain", "idn-domain", { hostname: "bücher.example", worker: worker("idn") });
    expect(v.status).toBe(200);
    expect(v.json.valid).toBe(false);
    expect(v.json.diagnostics[0].field).toBe("/spec/hostname");
    await edge.refuses(() => edge.prepare("WorkerCustomDomain", "idn-domain", { hostname: "bücher.example", worker: worker("idn") }), "invalid_argument", [
      /\/spec\/hostname/,
    ]);
    await edge.refuses(
      () => edge.importRaw("WorkerCustomDomain", "idn-domain", { hostname: "BÜCHER.example", worker: worker("idn") }, "native-idn"),
      "invalid_argument",
      [/\/spec\/hostname/],
    );
    // The A-label is stored byte for byte.
    const stored = await edge.create("WorkerCustomDomain", "idn-domain", { hostname: "xn--bcher-kva.example", worker: worker("idn") });
    expect(stored.spec.hostname).toBe("xn--bcher-kva.example");
  });

  it("worker-endpoint-address-is-host-assigned", async () => {
    await edge.aggregate("addr");
    const e = await edge.create("WorkerEndpoint", "addr-endpoint", { worker: worker("addr") });
    expect(Object.keys(e.status.outputs).sort()).toEqual(["hostname", "url"]);
    expect(e.status.outputs.hostname).toMatch(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/);
    expect(e.status.outputs.url).toBe(`https://${e.status.outputs.hostname}/`);
    expect(e.spec).toEqual({ worker: worker("addr") });
  });

  it("form-declared-outputs-are-exact", async () => {
    const a = await edge.aggregate("outs");
    const e = await edge.create("WorkerEndpoint", "outs-endpoint", { worker: worker("outs") });
    expect(Object.keys(e.status.outputs).sort()).toEqual(["hostname", "url"]);
    for (const r of [a.worker, a.bundle, a.version, a.deployment]) expect(r.status.outputs).toBeUndefined();
    expect((await edge.read("ModuleWorker", "outs")).status.outputs).toBeUndefined();
  });

  it("worker-endpoint-single-per-worker", async () => {
    await edge.aggregate("one-ep");
    await edge.aggregate("one-ep-b");
    const first = await edge.create("WorkerEndpoint", "one-ep-first", { worker: worker("one-ep") });
    await edge.refuses(() => edge.createRaw("WorkerEndpoint", "one-ep-second", { worker: worker("one-ep") }), "invalid_argument", [
      /ModuleWorker "one-ep"/,
      /WorkerEndpoint "one-ep-first"/,
      /at most one endpoint/,
    ]);
    await edge.refuses(() => edge.importRaw("WorkerEndpoint", "one-ep-second", { worker: worker("one-ep") }, "native-one-ep"), "invalid_argument", [
      /at most one endpoint/,
    ]);
    // Another worker's endpoint has another address.
    const other = await edge.create("WorkerEndpoint", "one-ep-second", { worker: worker("one-ep-b") });
    expect(other.status.outputs.hostname).not.toBe(first.status.outputs.hostname);
  });

  it("worker-endpoint-follows-the-active-deployment", async () => {
    const a = await edge.aggregate("follow");
    const endpoint = await edge.create("WorkerEndpoint", "follow-endpoint", { worker: worker("follow") });
    await edge.refuses(() => edge.removeRaw("WorkerDeployment", a.names.deployment, "1"), "dependency_in_use", [/WorkerEndpoint "follow-endpoint"/]);
    // Re-weighting to another version: same address, still Ready, and no apply to the endpoint.
    const next = await edge.revision("follow", "2", FETCH_ONLY, ["fetch"]);
    await edge.update("WorkerDeployment", a.names.deployment, edge.deploymentSpec("follow", [[next.names.version, 10000]]), "1");
    await edge.remove("WorkerVersion", a.names.version, "1");
    const after = await edge.read("WorkerEndpoint", "follow-endpoint");
    expect(after.status.outputs).toEqual(endpoint.status.outputs);
    expect(readyOf(after)).toMatchObject({ status: "True", reason: "Available" });
    expect(after.metadata.generation).toBe(endpoint.metadata.generation);
    expect(after.metadata.revision).toBe(endpoint.metadata.revision);
  });

  it("worker-endpoint-address-is-stable-for-its-uid", async () => {
    const a = await edge.aggregate("stable");
    const e = await edge.create("WorkerEndpoint", "stable-endpoint", { worker: worker("stable") });
    const observed = await edge.wire.observe(edge.ref("WorkerEndpoint"), "stable-endpoint", "1");
    expect(observed.status).toBe(200);
    expect(observed.json.resource.status.outputs).toEqual(e.status.outputs);
    // Promotion: a new version takes all traffic.
    const next = await edge.revision("stable", "2", FULL_MODULE, ["fetch", "scheduled"]);
    await edge.update("WorkerDeployment", a.names.deployment, edge.deploymentSpec("stable", [[next.names.version, 10000]]), "1");
    const reapplied = await edge.update("WorkerEndpoint", "stable-endpoint", { worker: worker("stable") }, "1");
    expect(reapplied.status.outputs).toEqual(e.status.outputs);
    expect(reapplied.metadata.uid).toBe(e.metadata.uid);
    expect((await edge.read("WorkerEndpoint", "stable-endpoint")).status.outputs).toEqual(e.status.outputs);
    // A new incarnation is a new address.
    await edge.remove("WorkerEndpoint", "stable-endpoint", "1");
    const reborn = await edge.create("WorkerEndpoint", "stable-endpoint", { worker: worker("stable") });
    expect(reborn.status.outputs.hostname).not.toBe(e.status.outputs.hostname);
  });

  it("attachment rules hold for a second principal of the same tenant (uid-decided, not principal-decided)", async () => {
    const bob = new HttpClient(edge.served.url, TOKENS.alternate);
    try {
      await edge.aggregate("bob");
      await edge.create("WorkerEndpoint", "bob-endpoint", { worker: worker("bob") });
      await edge.refuses(
        () => edge.createRaw("WorkerEndpoint", "bob-endpoint-2", { worker: worker("bob") }, { client: bob }),
        "invalid_argument",
        [/at most one endpoint/],
        bob,
      );
      const res = await bob.request("GET", `${edge.mode.family.api}/support/forms`);
      expect(res.status).toBe(200);
    } finally {
      bob.close();
    }
  });
});
