// conformance/runtime-abi-v1: the 18 required checks of the published runtime ABI contract, each
// test named exactly as the contract names its check, against the local runtime.
//
// The contract's deployment is deployed THROUGH OUR OWN PROVIDER AND ENGINE from constructs: the
// probe worker running the corpus's conformance-probe bundle (handlers fetch, scheduled, queue;
// var LOG_LEVEL; sensitive var API_SIGNING_TOKEN_NAME; bindings CACHE edge.kv, EVENTS edge.queue,
// PEER worker.service), the peer worker running its own conformance-peer bundle, the queue
// `runtime-abi-conformance` with a QueueConsumer delivering to the probe, the `* * * * *` cron
// trigger, and an endpoint through which the runner reaches the probe. The bundles are read from
// TAKOFORM_CORPUS (never copied into the repository) and checked against the contract's pins.
//
// Every run mints one unpredictable token and substitutes it for `{run}` in each correlated value
// it sends (kv key, waitUntil marker, queue nonce), so an observation only counts when THIS run
// caused it. The token is printed with the report line.
//
// The load checks go through the loader adapter, which the host serves only in conformance mode.
// The scheduled check waits for the real schedule (a minute boundary), exactly as the contract
// describes; it is started first and awaited by its test, so the wait overlaps the other checks.

import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AtLeastOnceQueue, EdgeKVNamespace, QueueConsumer, WorkerApp } from "../../src/index.ts";
import { RUNTIME_ABI_LOADER_PROTOCOL } from "../../src/core/index.ts";
import { DEV_TOKEN } from "../../src/host/index.ts";
import { exchange, poll } from "./abi-client.ts";
import { exported, loadRefused, postLoad, upstreamLoadBody } from "./loader-request.ts";
import { endpointUrl, Project, startRuntimeHost, type RuntimeHost } from "./harness.ts";

const CORPUS = process.env["TAKOFORM_CORPUS"];
const DIR = CORPUS === undefined ? "" : join(CORPUS, "takoform-v1alpha3", "conformance", "runtime-abi-v1");

interface Check {
  name: string;
  procedure: string;
  bundle?: string;
  load?: { declaredHandlers: string[]; expectExportedHandlers?: string[]; expectError?: string };
  request?: { method: string; path: string };
  expect?: { status: number; json?: Record<string, unknown> };
  payload?: { nonceTemplate?: string; bytesBase64?: string };
  timing?: { deadlineSeconds: number; pollMillis?: number; gapMillis?: number; requestChunkSize?: number[]; chunks?: number; delayMillis?: number };
  throughBinding?: string;
}

interface Contract {
  handlerVocabulary: string[];
  globalsFloor: string[];
  probeProtocol: { routePrefix: string };
  loaderProtocol: { protocol: string; method: string };
  runCorrelation: { placeholder: string; tokenBytes: number };
  deployment: {
    bundle: string;
    declaredHandlers: string[];
    vars: string[];
    sensitiveVars: string[];
    bindings: { name: string; interface: string }[];
    environmentPropertyNames: string[];
    cron: string;
    queue: string;
    peer: { bundle: string; declaredHandlers: string[]; identity: string };
  };
  bundles: {
    name: string;
    mainModule: string;
    modules: { name: string; mediaType: string; source: string; sha256: string }[];
    exportedHandlers?: string[];
    unloadableError?: string;
  }[];
  checks: Check[];
  requiredChecks: string[];
}

function sha256(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

describe.skipIf(CORPUS === undefined)("conformance/runtime-abi-v1", () => {
  const contract = CORPUS === undefined ? ({} as Contract) : (JSON.parse(readFileSync(join(DIR, "contract.json"), "utf8")) as Contract);
  const checks = new Map((contract.checks ?? []).map((c) => [c.name, c]));
  const token = randomBytes(contract.runCorrelation?.tokenBytes ?? 16).toString("hex");
  const correlate = (template: string): string => template.split(contract.runCorrelation.placeholder).join(token);
  let rt: RuntimeHost;
  let project: Project;
  let probe: string;
  let scheduled: Promise<{ observed: boolean; cron: string; scheduledTimeMillis: number }>;
  let clearedAt = 0;

  const bytesOf = (source: string): Uint8Array => new Uint8Array(readFileSync(join(DIR, source)));
  const call = (path: string, init?: RequestInit): Promise<Response> => fetch(new URL(path.replace(/^\//, ""), probe), init);
  const json = async (path: string, init?: RequestInit): Promise<Record<string, unknown>> => {
    const response = await call(path, init);
    expect(response.status, `${path} answered ${response.status}`).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  };

  beforeAll(async () => {
    // The contract bytes are the ones the manifest pins, and every bundle module the ones the contract pins.
    const manifest = JSON.parse(readFileSync(join(DIR, "manifest.json"), "utf8")) as { sha256: string };
    expect(sha256(new Uint8Array(readFileSync(join(DIR, "contract.json")))).slice("sha256:".length)).toBe(manifest.sha256);
    for (const bundle of contract.bundles) for (const m of bundle.modules) expect(sha256(bytesOf(m.source)), `${bundle.name}/${m.name}`).toBe(m.sha256);
    // The peer's identity is carried by the peer's bytes and by no other bundle's.
    const identity = contract.deployment.peer.identity;
    for (const bundle of contract.bundles) {
      for (const m of bundle.modules) {
        const text = Buffer.from(bytesOf(m.source)).toString("utf8");
        expect(text.includes(identity), `${bundle.name}/${m.name} carrying the peer identity`).toBe(bundle.name === contract.deployment.peer.bundle);
      }
    }

    rt = await startRuntimeHost({ conformance: true, secrets: { API_SIGNING_TOKEN_NAME: "runtime-abi-signing-token" } });
    project = new Project();
    const bundleDir = (name: string): string => join(DIR, "bundles", name);
    const mainOf = (name: string): string => contract.bundles.find((b) => b.name === name)!.mainModule;
    const d = contract.deployment;
    await project.deploy(rt, (stack) => {
      const cache = new EdgeKVNamespace(stack, "cache", { name: "runtime-abi-cache" });
      const events = new AtLeastOnceQueue(stack, "events", { name: d.queue, messageRetentionSeconds: 3600 });
      const peer = new WorkerApp(stack, "peer", {
        name: "runtime-abi-peer",
        contentDir: bundleDir(d.peer.bundle),
        mainModule: mainOf(d.peer.bundle),
        handlers: d.peer.declaredHandlers as ("fetch" | "scheduled" | "queue")[],
      });
      const byInterface = (name: string): string => d.bindings.find((b) => b.interface === name)!.name;
      const measured = new WorkerApp(stack, "probe", {
        name: "runtime-abi-probe",
        contentDir: bundleDir(d.bundle),
        mainModule: mainOf(d.bundle),
        handlers: d.declaredHandlers as ("fetch" | "scheduled" | "queue")[],
        vars: Object.fromEntries(d.vars.map((v) => [v, "info"])),
        requiredSensitiveVars: d.sensitiveVars,
        kvBindings: { [byInterface("edge.kv")]: cache },
        queueProducerBindings: { [byInterface("edge.queue")]: events },
        serviceBindings: { [byInterface("worker.service")]: peer.worker },
        endpoint: true,
        cron: d.cron,
      });
      // A service binding is accepted only once its target serves fetch.
      measured.version.dependsOn = [peer.deployment.fqn];
      new QueueConsumer(stack, "consumer", {
        name: "runtime-abi-consumer",
        queue: events,
        worker: measured.worker,
        maxBatchSize: 10,
        maxBatchTimeoutSeconds: 0,
        maxConcurrency: 1,
        maxRetries: 3,
        retryDelaySeconds: 0,
        dependsOn: [measured.deployment],
      });
    });
    probe = endpointUrl(rt, "runtime-abi-probe");
    process.stdout.write(`runtime-abi-v1 run token: ${token} (probe at ${probe})\n`);

    // The scheduled check clears the previous observation and then waits for the next minute.
    clearedAt = Date.now();
    const cleared = await json("/abi/scheduled", { method: "DELETE" });
    expect(cleared.cleared).toBe(true);
    const check = checks.get("scheduled-invoked-by-the-host-cron-attachment")!;
    scheduled = poll(
      async () => {
        const seen = (await (await call(check.request!.path)).json()) as { observed: boolean; cron: string; scheduledTimeMillis: number };
        return seen.observed ? seen : undefined;
      },
      check.timing!.pollMillis!,
      check.timing!.deadlineSeconds * 1000,
      "a scheduled observation",
    );
    scheduled.catch(() => undefined);
  }, 120_000);

  afterAll(async () => {
    await project?.close();
    await rt?.close();
  });

  it("requires exactly the checks this suite runs", () => {
    expect([...contract.requiredChecks].sort()).toEqual([...LOAD, ...REQUEST, ...OTHER].sort());
    // …and its loader protocol is the one the adapter serves.
    expect(contract.loaderProtocol).toMatchObject({ protocol: RUNTIME_ABI_LOADER_PROTOCOL, method: "POST" });
  });

  // ---- load: through the loader adapter (conformance mode only) ----

  const LOAD = [
    "module-loads-and-exports-are-derived-from-bytes",
    "unsupported-module-media-type-refused",
    "main-module-missing-refused",
    "unparseable-module-refused",
    "declared-handler-not-exported-refused",
  ];
  for (const name of LOAD) {
    it(
      name,
      async () => {
        const check = checks.get(name)!;
        const bundle = contract.bundles.find((b) => b.name === check.bundle)!;
        // The runner's request, byte for byte, to the loader endpoint; it reads the answer's body
        // whatever its status, and so does this check (the status is checked as well).
        const body = upstreamLoadBody(
          bundle.mainModule,
          check.load!.declaredHandlers,
          bundle.modules.map((m) => ({ name: m.name, mediaType: m.mediaType, bytes: bytesOf(m.source) })),
        );
        const answer = await postLoad(new URL("/_takoform/runtime/load-module", rt.url).href, DEV_TOKEN.token, body);
        if (check.load!.expectError !== undefined) expect(answer).toMatchObject({ status: 422, body: loadRefused(check.load!.expectError) });
        else expect(answer).toMatchObject({ status: 200, body: exported(check.load!.expectExportedHandlers!) });
        expect((answer.body as { protocol: string }).protocol).toBe(contract.loaderProtocol.protocol);
      },
      60_000,
    );
  }

  // ---- plain requests ----

  const REQUEST = ["fetch-receives-request-env-and-context", "fetch-returns-a-response", "fetch-uncaught-throw-is-a-host-generated-response"];
  for (const name of REQUEST) {
    it(
      name,
      async () => {
        const check = checks.get(name)!;
        const response = await call(check.request!.path, { method: check.request!.method });
        // The whole body arrives: a complete response, not a hung or cut-off one.
        const text = await response.text();
        expect(response.status).toBe(check.expect!.status);
        if (check.expect!.json !== undefined) expect(JSON.parse(text)).toEqual(check.expect!.json);
      },
      60_000,
    );
  }

  const OTHER = [
    "environment-projects-exactly-the-declared-names",
    "globals-floor-present",
    "kv-binding-round-trips-bytes-through-env",
    "request-body-streams-rather-than-buffering",
    "response-body-streams-rather-than-buffering",
    "service-request-body-streams-to-the-callee",
    "service-response-body-streams-from-the-callee",
    "wait-until-holds-the-isolate-and-a-rejection-leaves-the-response-alone",
    "scheduled-invoked-by-the-host-cron-attachment",
    "queue-batch-delivered-to-the-queue-handler",
  ];

  it("environment-projects-exactly-the-declared-names", async () => {
    const check = checks.get("environment-projects-exactly-the-declared-names")!;
    const d = contract.deployment;
    const declared = [...d.vars, ...d.sensitiveVars, ...d.bindings.map((b) => b.name)].sort();
    expect(declared).toEqual(d.environmentPropertyNames);
    const answer = await json(check.request!.path);
    expect(answer.propertyNames).toEqual(declared);
  });

  it("globals-floor-present", async () => {
    const check = checks.get("globals-floor-present")!;
    const answer = await json(`${check.request!.path}?names=${encodeURIComponent(contract.globalsFloor.join(","))}`);
    expect(answer.missing).toEqual([]);
    expect(answer.present).toEqual([...contract.globalsFloor].sort());
  });

  it("kv-binding-round-trips-bytes-through-env", async () => {
    const check = checks.get("kv-binding-round-trips-bytes-through-env")!;
    const key = correlate(check.payload!.nonceTemplate!);
    const stored = await json(check.request!.path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ key, valueBase64: check.payload!.bytesBase64 }),
    });
    expect(stored.stored).toBe(true);
    const read = await poll(
      async () => {
        const answer = await json(`${check.request!.path}?key=${encodeURIComponent(key)}`);
        return answer.found === true ? answer : undefined;
      },
      check.timing!.pollMillis!,
      check.timing!.deadlineSeconds * 1000,
      `kv key ${key}`,
    );
    expect(read.valueBase64).toBe(check.payload!.bytesBase64);
  });

  /** Request-body streaming: the worker (or, through PEER, the callee) accounts for each chunk before the next exists. */
  async function requestStream(name: string): Promise<void> {
    const check = checks.get(name)!;
    const [first, second] = check.timing!.requestChunkSize!;
    const deadline = check.timing!.deadlineSeconds * 1000;
    const x = exchange(new URL(check.request!.path.replace(/^\//, ""), probe).href, check.request!.method, { "content-type": "application/octet-stream" });
    const peer = check.throughBinding === undefined ? null : contract.deployment.peer.identity;
    let sent = 0;
    const accounted = (lines: readonly { text: string }[]): number =>
      lines
        .map((l) => JSON.parse(l.text) as { read?: number; bytes?: number; peer?: string })
        .filter((l) => l.read !== undefined)
        .reduce((sum, l) => sum + (l.bytes ?? 0), 0);
    const stamped = (): void => {
      for (const line of x.lines) {
        const parsed = JSON.parse(line.text) as { probe?: string; peer?: string };
        expect(parsed.probe).toBe("takoform.runtime-abi-probe@v1");
        if (peer !== null) expect(parsed.peer, "every answer carries the PEER's identity").toBe(peer);
      }
    };
    const chunk = (size: number, fill: number): Uint8Array => new Uint8Array(size).fill(fill);
    x.write(chunk(first!, 0x41));
    sent += first!;
    await x.until((lines) => accounted(lines) >= sent, deadline);
    // Never an answer for bytes that have not been sent.
    expect(accounted(x.lines)).toBe(sent);
    stamped();
    await new Promise((resolve) => setTimeout(resolve, check.timing!.gapMillis));
    x.write(chunk(second!, 0x42));
    sent += second!;
    await x.until((lines) => accounted(lines) >= sent, deadline);
    expect(accounted(x.lines)).toBe(sent);
    x.end();
    await x.done;
    const last = JSON.parse(x.lines[x.lines.length - 1]!.text) as { end?: boolean };
    expect(last.end).toBe(true);
    stamped();
    expect((await x.head).statusCode).toBe(200);
  }

  /** Response-body streaming: chunks arrive separated in time, and no length is claimed that the body does not deliver. */
  async function responseStream(name: string): Promise<void> {
    const check = checks.get(name)!;
    const { chunks, gapMillis } = check.timing!;
    const x = exchange(new URL(`${check.request!.path.replace(/^\//, "")}?chunks=${chunks}&gapMillis=${gapMillis}`, probe).href, check.request!.method);
    x.end();
    const head = await x.head;
    await x.done;
    expect(head.statusCode).toBe(200);
    const delivered = x.lines.reduce((sum, l) => sum + Buffer.byteLength(l.text, "utf8") + 1, 0);
    const declared = head.headers["content-length"];
    if (declared !== undefined) expect(Number(declared)).toBe(delivered);
    else expect(head.headers["transfer-encoding"]).toBe("chunked");
    const parsed = x.lines.map((l) => JSON.parse(l.text) as { chunk?: number; peer?: string });
    expect(parsed.map((p) => p.chunk)).toEqual(Array.from({ length: chunks! }, (_, i) => i + 1));
    if (check.throughBinding !== undefined) for (const p of parsed) expect(p.peer).toBe(contract.deployment.peer.identity);
    // Delivered apart, not together: each chunk arrived well after the one before it.
    for (let i = 1; i < x.lines.length; i++) expect(x.lines[i]!.at - x.lines[i - 1]!.at).toBeGreaterThan(gapMillis! / 2);
  }

  it("request-body-streams-rather-than-buffering", () => requestStream("request-body-streams-rather-than-buffering"), 60_000);
  it("response-body-streams-rather-than-buffering", () => responseStream("response-body-streams-rather-than-buffering"), 60_000);
  it("service-request-body-streams-to-the-callee", () => requestStream("service-request-body-streams-to-the-callee"), 60_000);
  it("service-response-body-streams-from-the-callee", () => responseStream("service-response-body-streams-from-the-callee"), 60_000);

  it("wait-until-holds-the-isolate-and-a-rejection-leaves-the-response-alone", async () => {
    const check = checks.get("wait-until-holds-the-isolate-and-a-rejection-leaves-the-response-alone")!;
    const nonce = correlate(check.payload!.nonceTemplate!);
    const response = await call(check.request!.path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ nonce, delayMillis: check.timing!.delayMillis }),
    });
    expect(response.status).toBe(check.expect!.status);
    expect(await response.json()).toEqual(check.expect!.json);
    // The response went out before the deferred task settled: THIS run's marker is not there yet.
    const early = await json(`${check.request!.path}?nonce=${encodeURIComponent(nonce)}`);
    expect(early.settled).toBe(false);
    const settled = await poll(
      async () => {
        const answer = await json(`${check.request!.path}?nonce=${encodeURIComponent(nonce)}`);
        return answer.settled === true ? answer : undefined;
      },
      check.timing!.pollMillis!,
      check.timing!.deadlineSeconds * 1000,
      `the waitUntil marker ${nonce}`,
    );
    expect(settled).toEqual({ probe: "takoform.runtime-abi-probe@v1", settled: true, afterRejection: true, nonce });
  }, 60_000);

  it("scheduled-invoked-by-the-host-cron-attachment", async () => {
    const seen = await scheduled;
    expect(seen.cron).toBe(contract.deployment.cron);
    // The matched minute, as a UTC instant, and newer than the cleared observation.
    expect(seen.scheduledTimeMillis % 60_000).toBe(0);
    expect(seen.scheduledTimeMillis).toBeGreaterThan(clearedAt - 60_000);
    expect(seen.scheduledTimeMillis).toBeGreaterThanOrEqual(Math.floor(clearedAt / 60_000) * 60_000);
  }, 180_000);

  it("queue-batch-delivered-to-the-queue-handler", async () => {
    const check = checks.get("queue-batch-delivered-to-the-queue-handler")!;
    const nonce = correlate(check.payload!.nonceTemplate!);
    const sent = await json(check.request!.path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ nonce, payloadBase64: check.payload!.bytesBase64 }),
    });
    expect(sent.sent).toBe(true);
    const delivered = await poll(
      async () => {
        const answer = await json(`${check.request!.path}?nonce=${encodeURIComponent(nonce)}`);
        return answer.delivered === true ? answer : undefined;
      },
      check.timing!.pollMillis!,
      check.timing!.deadlineSeconds * 1000,
      `the queue delivery of ${nonce}`,
    );
    expect(delivered.queue).toBe(contract.deployment.queue);
    expect(delivered.attempts).toBe(1);
    expect(typeof delivered.messageId === "string" && delivered.messageId.length > 0).toBe(true);
    expect(delivered.payloadBase64).toBe(check.payload!.bytesBase64);
    expect(delivered.nonce).toBe(nonce);
  }, 90_000);
});
