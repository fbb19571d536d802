// A run over several stacks negotiates the Host API lane once per host and reads each support
// profile once per host (issue 22, item 6), counted where the requests arrive: two local hosts
// served over loopback HTTP, each counting every request it answers. An app of 20 stacks, each
// with a KV namespace and a queue, is planned with `takoform plan '*'`: with every stack on one
// host, that host answers one discovery and exactly the support reads a plan of one stack makes;
// with the stacks split between the two hosts by their provider blocks, each host answers its own
// one discovery — two hosts never share a negotiation.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_TOKEN, LocalHost } from "../../src/host/index.ts";
import type { HostRequest, HostResponse } from "../../src/host/http.ts";
import { runCli, Scratch } from "../scenario/harness.ts";

const STACKS = 20;

/** A local host served over HTTP that records the path of every request it answers. */
async function countingHost(): Promise<{ host: LocalHost; url: string; paths: string[] }> {
  const host = await LocalHost.open({ data: ":memory:", log: () => undefined });
  const paths: string[] = [];
  const handle = host.handle.bind(host);
  // The HTTP server calls `this.handle(request)` for every request it answers.
  host.handle = (request: HostRequest): Promise<HostResponse> => {
    paths.push(request.url.split("?")[0]!);
    return handle(request);
  };
  const { url } = await host.listen("127.0.0.1", 0);
  return { host, url, paths };
}

/** An app of `STACKS` stacks written as cdktf writes them; the stacks `onB` name host B in their provider block. */
function app(hostB: string, onB: (i: number) => boolean): string {
  const stacks: Record<string, unknown> = {};
  for (let i = 0; i < STACKS; i++) {
    stacks[`s${i}`] = {
      ...(onB(i) ? { provider: { takoform: [{ endpoint: hostB }] } } : {}),
      resource: {
        takoform_edge_kv_namespace: { kv: { name: `once-kv-${i}` } },
        takoform_at_least_once_queue: { q: { name: `once-q-${i}`, message_retention_seconds: 600 } },
      },
    };
  }
  return `import { mkdirSync, writeFileSync } from "node:fs";
const out = process.env.CDKTF_OUTDIR ?? "cdktf.out";
const stacks = ${JSON.stringify(stacks)};
const manifest = { version: "0.20.0", stacks: {} };
for (const [name, document] of Object.entries(stacks)) {
  mkdirSync(\`\${out}/stacks/\${name}\`, { recursive: true });
  writeFileSync(\`\${out}/stacks/\${name}/cdk.tf.json\`, JSON.stringify(document));
  manifest.stacks[name] = { name, synthesizedStackPath: \`stacks/\${name}/cdk.tf.json\`, dependencies: [], annotations: [] };
}
writeFileSync(\`\${out}/manifest.json\`, JSON.stringify(manifest));
`;
}

const discoveries = (paths: readonly string[]): number => paths.filter((p) => p.startsWith("/.well-known/takoform/")).length;
const supportReads = (paths: readonly string[]): string[] => paths.filter((p) => p.includes("/support/")).sort();

let a: Awaited<ReturnType<typeof countingHost>>;
let b: Awaited<ReturnType<typeof countingHost>>;
const scratches: Scratch[] = [];

function project(onB: (i: number) => boolean): string {
  const scratch = new Scratch();
  scratches.push(scratch);
  scratch.write("cdktf.json", JSON.stringify({ app: "node app.mjs" }));
  scratch.write("app.mjs", app(b.url, onB));
  return scratch.dir;
}

beforeAll(async () => {
  a = await countingHost();
  b = await countingHost();
});
afterAll(async () => {
  await a.host.close();
  await b.host.close();
  for (const scratch of scratches) scratch.cleanup();
});

async function plan(dir: string, stacks: string): Promise<void> {
  a.paths.length = 0;
  b.paths.length = 0;
  const env = { TAKOFORM_ENDPOINT: a.url, TAKOFORM_TOKEN: DEV_TOKEN.token, TAKOFORM_SPACE: undefined, TAKOFORM_LANE: undefined };
  const ran = await runCli(["plan", stacks], { cwd: dir, env });
  expect(ran.code, ran.stderr + ran.stdout).toBe(0);
}

describe("a run of 20 stacks", () => {
  it("negotiates once and reads each support profile once per host", async () => {
    const dir = project(() => false);
    await plan(dir, "s0");
    const one = { discoveries: discoveries(a.paths), support: supportReads(a.paths) };
    expect(one.discoveries).toBe(1);
    expect(one.support.length).toBeGreaterThan(0);

    await plan(dir, "*");
    expect(discoveries(a.paths)).toBe(1);
    expect(supportReads(a.paths)).toEqual(one.support);
    expect(b.paths).toEqual([]);
  });

  it("never shares a negotiation between two hosts", async () => {
    const dir = project((i) => i % 2 === 1);
    await plan(dir, "*");
    expect(discoveries(a.paths)).toBe(1);
    expect(discoveries(b.paths)).toBe(1);
    expect(supportReads(b.paths)).toEqual(supportReads(a.paths));
    expect(supportReads(a.paths).length).toBeGreaterThan(0);
  });
});
