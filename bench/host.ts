// `npm run bench:host`: creates/s, reads/s and deletes/s against the embedded host over
// loopback HTTP (keep-alive), at 10,000 resources. A create is the protocol's full create:
// prepare, then apply with If-None-Match: *. The load generator runs in a child process so it
// does not share the host's event loop. Options: --count N, --concurrency N,
// --data DIR|:memory:|tmp (default :memory:), --kind KIND (default EdgeKVNamespace).

import { PREFERRED_LANE } from "../src/core/lanes.ts";
import { Agent, request } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { flag } from "./flags.ts";

// The bench speaks the lane a new host serves (its data directory is new).
const API = PREFERRED_LANE.apiRoot;
const TOKEN = "bench-token";

interface Job {
  url: string;
  count: number;
  concurrency: number;
  kind: string;
}

async function host(): Promise<void> {
  const { LocalHost } = await import("../src/host/index.ts");
  const count = Number(flag("--count", "10000"));
  const concurrency = Number(flag("--concurrency", "32"));
  const kind = flag("--kind", "EdgeKVNamespace");
  const dataFlag = flag("--data", ":memory:");
  const temp = dataFlag === "tmp" ? mkdtempSync(join(tmpdir(), "takoform-bench-")) : undefined;
  const data = temp === undefined ? dataFlag : join(temp, "data");
  const local = await LocalHost.open({ data, tokens: [{ token: TOKEN, tenant: "bench", principal: "bench" }] });
  const { url } = await local.listen("127.0.0.1", 0);
  console.log(`takoform host bench: ${count} ${kind} resources over ${url}, concurrency ${concurrency}, data ${data}, node ${process.version}`);
  const job: Job = { url, count, concurrency, kind };
  try {
    const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), "--load-generator", JSON.stringify(job)], { stdio: "inherit" });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    if (code !== 0) throw new Error(`the load generator exited ${code}`);
    console.log(`stored after the run: ${local.controls.resourceCount()}`);
  } finally {
    await local.close();
    if (temp !== undefined) rmSync(temp, { recursive: true, force: true });
  }
}

interface Answer {
  status: number;
  body: string;
}

async function load(job: Job): Promise<void> {
  const target = new URL(job.url);
  const agent = new Agent({ keepAlive: true, maxSockets: job.concurrency });
  const call = (method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(body);
      const req = request(
        {
          host: target.hostname,
          port: target.port,
          method,
          path,
          agent,
          headers: {
            Authorization: `Bearer ${TOKEN}`,
            ...(payload === undefined ? {} : { "Content-Type": "application/json", "Content-Length": String(payload.byteLength) }),
            ...headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        },
      );
      req.on("error", reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  const expect = (a: Answer, status: number, what: string): void => {
    if (a.status !== status) throw new Error(`${what}: HTTP ${a.status} ${a.body}`);
  };

  const support = JSON.parse((await call("GET", `${API}/support/forms`)).body) as { profiles: { formRef: Record<string, string> }[] };
  const ref = support.profiles.find((p) => p.formRef.kind === job.kind && p.formRef.apiVersion === PREFERRED_LANE.edgeGroups.bundled)?.formRef;
  if (ref === undefined) throw new Error(`no bundled ${job.kind} installed`);
  const space = "bench";
  const query = new URLSearchParams({
    space,
    group: ref.apiVersion!,
    kind: ref.kind!,
    definitionVersion: ref.definitionVersion!,
    schemaDigest: ref.schemaDigest!,
  }).toString();
  const name = (i: number): string => `r-${i}`;
  const path = (i: number): string => `${API}/resources/${ref.apiVersion}/${ref.kind}/${name(i)}`;
  const body = (i: number): Record<string, unknown> => ({
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    form: { formRef: ref },
    metadata: { name: name(i), space },
    spec: {},
  });

  async function phase(label: string, op: (i: number) => Promise<void>): Promise<void> {
    let next = 0;
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: job.concurrency }, async () => {
        while (next < job.count) await op(next++);
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    console.log(`${label.padEnd(8)} ${String(job.count).padStart(6)} in ${seconds.toFixed(2)} s  ${(job.count / seconds).toFixed(0).padStart(6)}/s`);
  }

  await phase("creates", async (i) => {
    const prepared = await call("POST", `${API}/resources/prepare`, {}, JSON.stringify(body(i)));
    expect(prepared, 200, "prepare");
    const digest = (JSON.parse(prepared.body) as { review: { prepareDigest: string } }).review.prepareDigest;
    const applied = await call(
      "PUT",
      path(i),
      { "Idempotency-Key": `bench-create-${i}`, "If-None-Match": "*" },
      JSON.stringify({ ...body(i), review: { prepareDigest: digest } }),
    );
    expect(applied, 201, "apply");
  });
  await phase("reads", async (i) => expect(await call("GET", `${path(i)}?${query}`), 200, "read"));
  await phase("deletes", async (i) =>
    expect(await call("DELETE", `${path(i)}?${query}`, { "Idempotency-Key": `bench-delete-${i}`, "Takoform-Expected-Generation": "1" }), 204, "delete"),
  );
  agent.destroy();
}

const generator = process.argv.indexOf("--load-generator");
(generator >= 0 ? load(JSON.parse(process.argv[generator + 1]!) as Job) : host()).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
