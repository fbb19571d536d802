// Measures the client's per-call cost for resource reads against the embedded local host:
// over loopback HTTP (keep-alive pool) sequentially and 10 at a time, and through the
// in-process transport. Run: npx tsx test/client/bench/read-throughput.ts
// A read is GET + strict I-JSON decode + closed-shape verification + ETag check.

import { readFileSync } from "node:fs";
import { HostClient } from "../../../src/client/client.ts";
import { inProcessTransport } from "../../../src/client/transport.ts";
import { verifyResourceResponse } from "../../../src/client/resource-shape.ts";
import { WireReader } from "../../../src/client/wire-reader.ts";
import { digestCanonical } from "../../../src/forms/digest.ts";
import { LocalHost } from "../../../src/host/local-host.ts";

const def = JSON.parse(readFileSync(new URL("../../../registry/packages/forms/edge/v1alpha1/at-least-once-queue/definition.json", import.meta.url), "utf8"));
const ref = { apiVersion: def.apiVersion, kind: def.kind, definitionVersion: def.definitionVersion, schemaDigest: digestCanonical(def) };
const CALLS = Number(process.env["CALLS"] ?? 3000);

async function measure(label: string, client: HostClient, concurrency: number): Promise<void> {
  for (let i = 0; i < 200; i++) await client.getResource("default", ref, "bench");
  const started = process.hrtime.bigint();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < CALLS) await client.getResource("default", ref, "bench");
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(
    `${label}: ${CALLS} reads in ${seconds.toFixed(2)} s = ${Math.round(CALLS / seconds)} calls/s (${((seconds / CALLS) * 1e6 * concurrency).toFixed(0)} µs per call in flight)`,
  );
}

const host = await LocalHost.open({ data: ":memory:" });
const { url } = await host.listen("127.0.0.1", 0);
const http = await HostClient.connect({ endpoint: url, token: "takoform-dev-token" });
await http.applyResource({ ref, name: "bench", space: "default", spec: { messageRetentionSeconds: 600 } });
const local = await HostClient.connect({ endpoint: url, token: "takoform-dev-token", transport: inProcessTransport((r) => host.handle(r)) });
await measure("loopback HTTP, sequential", http, 1);
await measure("loopback HTTP, 10 in flight", http, 10);
await measure("in-process transport, sequential", local, 1);

// The client's own share: strict decode + verification of one read answer, no transport, no host.
const body = new TextEncoder().encode(JSON.stringify(await http.getResource("default", ref, "bench")));
const decodeStarted = process.hrtime.bigint();
for (let i = 0; i < CALLS; i++) {
  const reader = new WireReader("bench", 200);
  verifyResourceResponse(reader, reader.json(body), "", { ref, name: "bench", space: "default" });
}
const decodeSeconds = Number(process.hrtime.bigint() - decodeStarted) / 1e9;
console.log(`decode + verify only (${body.byteLength}-byte answer): ${((decodeSeconds / CALLS) * 1e6).toFixed(1)} µs per call`);
http.close();
await host.close();
