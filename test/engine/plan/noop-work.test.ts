// A no-op plan does no per-resource work beyond the one read the protocol requires: against the
// local host over HTTP, after an apply, a plan of the same stack reads each resource once, writes
// nothing, encodes no spec, and has the provider validate each configuration once — in the
// validate phase, before the host is asked anything — never a second time while planning it.
// Counted through the provider's work counters and the host's own request log, not timed.

import { describe, expect, it } from "vitest";
import type { HostRequest, HostResponse } from "../../../src/host/index.ts";
import { providerWork } from "../../../src/provider/index.ts";
import { apply, plan, stackOf, useEngine, withScratch } from "../../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";
const Q = "takoform_at_least_once_queue";

describe("a no-op plan", () => {
  const ctx = useEngine();

  it("reads each resource once and neither encodes a spec nor validates a configuration twice", () =>
    withScratch(async (local, store) => {
      // Chains through depends_on, a variable in a name, and a queue whose configuration is
      // all literals: twelve resources, none referring to another's attributes.
      const kv: Record<string, unknown> = {};
      for (let i = 0; i < 10; i++) kv[`r${i}`] = { name: `noop-\${var.prefix}-${i}`, ...(i > 0 ? { depends_on: [`${KV}.r${i - 1}`] } : {}) };
      const stack = await stackOf(local, {
        variable: { prefix: { type: "string", default: "w" } },
        resource: {
          [KV]: kv,
          [Q]: { a: { name: "noop-q-a", message_retention_seconds: 3600 }, b: { name: "noop-q-b", message_retention_seconds: 600, depends_on: [`${Q}.a`] } },
        },
      });
      const created = await apply(ctx.engine, stack, store);
      expect(created.diagnostics.filter((d) => d.severity === "error").map((d) => d.summary)).toEqual([]);
      expect(created.result?.ok).toBe(true);
      const records = await store.list();
      expect(records).toHaveLength(12);

      const requests: string[] = [];
      const host = ctx.host.host;
      const handle = host.handle;
      host.handle = (request: HostRequest): Promise<HostResponse> => {
        requests.push(`${request.method} ${request.url.split("?")[0]}`);
        return handle.call(host, request);
      };
      const before = { ...providerWork };
      try {
        const { plan: p, ok } = await plan(ctx.engine, stack, store);
        expect(ok).toBe(true);
        expect(p.resourceChanges.map((c) => c.actions.join(","))).toEqual(Array<string>(12).fill("no-op"));
      } finally {
        host.handle = handle;
      }
      // Each configuration validated once (the validate phase), none again while planned.
      expect(providerWork.configsValidated - before.configsValidated).toBe(12);
      expect(providerWork.specsEncoded - before.specsEncoded).toBe(0);

      // The host: one GET per resource, and the support profiles (one per Form, cached) — no
      // write, and no resource read twice.
      const resourceReads = requests.filter((r) => /^GET \/apis\/forms\.takoform\.com\/[^/]+\/resources\//.test(r));
      expect(resourceReads).toHaveLength(12);
      expect(new Set(resourceReads).size).toBe(12);
      for (const record of records) expect(resourceReads.some((r) => r.endsWith(`/${record.name}`))).toBe(true);
      expect(requests.filter((r) => !r.startsWith("GET ") && !r.startsWith("HEAD "))).toEqual([]);
      const other = requests.filter((r) => !resourceReads.includes(r));
      expect(other.every((r) => /\/support\//.test(r))).toBe(true);
      expect(other.length).toBeLessThanOrEqual(4);
    }));
});
