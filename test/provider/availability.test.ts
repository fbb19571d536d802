// Availability (`GET /forms`) is asked once per provider instance for each (space, exact FormRef,
// operation): a positive answer is remembered, a refusal never is, and a write the host refuses
// with form_unavailable surfaces as it is and makes the next write ask again.

import { describe, expect, it } from "vitest";
import { TransportError } from "../../src/client/errors.ts";
import type { FormAvailability } from "../../src/client/resource-shape.ts";
import { hasErrors } from "../../src/core/index.ts";
import { HostProvider } from "../../src/provider/provider.ts";
import { AvailabilityMemo } from "../../src/provider/write/availability-memo.ts";
import { bundledRegistry } from "../../src/registry/bundled.ts";
import { CALLER, converge, errorsOf, mustCreate, refOf, show, useRig, type Rig } from "./harness.ts";

const KV = "takoform_edge_kv_namespace";
const QUEUE = "takoform_at_least_once_queue";

/** Availability calls: exact `GET {api}/forms?…` (not the API root's `forms.takoform.com`). */
function availabilityCalls(r: Rig): number {
  return r.calls("GET").filter((e) => e.path.endsWith("/forms")).length;
}

describe("availability is remembered per run", () => {
  const r = useRig();

  it("asks once for many creates of one Form, including concurrent ones", async () => {
    await mustCreate(r, KV, { name: "kv-0" });
    expect(availabilityCalls(r)).toBe(1);
    const created = await Promise.all(Array.from({ length: 12 }, (_, i) => converge(r, KV, { name: `kv-${i + 1}` }, null)));
    for (const c of created) expect(errorsOf(c.diagnostics), show(c.diagnostics)).toEqual([]);
    expect(availabilityCalls(r)).toBe(1);
    expect(r.calls("PUT").filter((e) => e.path.includes("/EdgeKVNamespace/"))).toHaveLength(13);
  });

  it("shares the first ask among concurrent creates of a fresh provider", async () => {
    const created = await Promise.all(Array.from({ length: 10 }, (_, i) => converge(r, KV, { name: `kv-${i}` }, null)));
    for (const c of created) expect(errorsOf(c.diagnostics), show(c.diagnostics)).toEqual([]);
    expect(availabilityCalls(r)).toBe(1);
  });

  it("keys the answer by space and operation", async () => {
    const q = await mustCreate(r, QUEUE, { name: "q", message_retention_seconds: 3600 });
    await mustCreate(r, QUEUE, { name: "q2", message_retention_seconds: 3600 });
    expect(availabilityCalls(r)).toBe(1);
    await mustCreate(r, QUEUE, { name: "q", space: "other", message_retention_seconds: 3600 });
    expect(availabilityCalls(r)).toBe(2);
    const updated = await converge(r, QUEUE, { name: "q", message_retention_seconds: 7200 }, q);
    expect(updated.action).toBe("update");
    expect(errorsOf(updated.diagnostics), show(updated.diagnostics)).toEqual([]);
    expect(availabilityCalls(r)).toBe(3);
    const again = await converge(r, QUEUE, { name: "q", message_retention_seconds: 600 }, updated.state);
    expect(errorsOf(again.diagnostics), show(again.diagnostics)).toEqual([]);
    expect(availabilityCalls(r)).toBe(3);
  });

  it("never remembers a refusal", async () => {
    const first = await mustCreate(r, KV, { name: "kv-a" });
    const ref = refOf(first);
    // A fresh provider over the same client, so nothing is remembered yet.
    r.provider = new HostProvider({ client: r.client, registry: bundledRegistry, defaultSpace: "default" });
    const before = availabilityCalls(r);
    r.host.controls.setFormAvailable(CALLER, ref, false);
    const refused = await converge(r, KV, { name: "kv-b" }, null);
    expect(hasErrors(refused.diagnostics)).toBe(true);
    expect(show(refused.diagnostics)).toContain("availableToPrincipal=false");
    expect(availabilityCalls(r)).toBe(before + 1);
    r.host.controls.setFormAvailable(CALLER, ref, true);
    await mustCreate(r, KV, { name: "kv-b" });
    expect(availabilityCalls(r)).toBe(before + 2);
  });

  it("surfaces a later form_unavailable from the write itself, then asks again", async () => {
    const first = await mustCreate(r, KV, { name: "kv-a" });
    const ref = refOf(first);
    r.host.controls.setFormAvailable(CALLER, ref, false);
    const refused = await converge(r, KV, { name: "kv-b" }, null);
    expect(availabilityCalls(r)).toBe(1); // remembered: the write itself was refused
    expect(refused.state).toBeNull();
    const error = errorsOf(refused.diagnostics)[0]!;
    expect(error.host?.code).toBe("form_unavailable");
    r.host.controls.setFormAvailable(CALLER, ref, true);
    await mustCreate(r, KV, { name: "kv-b" });
    expect(availabilityCalls(r)).toBe(2); // the refusal dropped the remembered answer
    await mustCreate(r, KV, { name: "kv-c" });
    expect(availabilityCalls(r)).toBe(2);
  });
});

describe("AvailabilityMemo", () => {
  const REF = { apiVersion: "edge.example/v1", kind: "Thing", definitionVersion: "1.0.0", schemaDigest: `sha256:${"a".repeat(64)}` };
  const OK = {} as FormAvailability;

  it("lets a write whose shared ask failed in transport ask under its own options", async () => {
    const memo = new AvailabilityMemo();
    let asks = 0;
    let fail!: (err: unknown) => void;
    const first = memo.gate("s", REF, "create").pass(() => {
      asks++;
      return new Promise<FormAvailability>((_, reject) => (fail = reject));
    });
    const second = memo.gate("s", REF, "create").pass(async () => {
      asks++;
      return OK;
    });
    fail(new TransportError("deadline", "deadline passed"));
    await expect(first).rejects.toBeInstanceOf(TransportError);
    await second;
    expect(asks).toBe(2);
    await memo.gate("s", REF, "create").pass(async () => {
      asks++;
      return OK;
    });
    expect(asks).toBe(2);
  });

  it("shares the host's refusal with concurrent writes, and forgets it", async () => {
    const memo = new AvailabilityMemo();
    let asks = 0;
    const refusal = new Error("refused");
    const ask = async (): Promise<FormAvailability> => {
      asks++;
      await new Promise((resolve) => setImmediate(resolve));
      throw refusal;
    };
    const both = await Promise.allSettled([memo.gate("s", REF, "create").pass(ask), memo.gate("s", REF, "create").pass(ask)]);
    expect(both.map((b) => b.status)).toEqual(["rejected", "rejected"]);
    expect(asks).toBe(1);
    await memo.gate("s", REF, "create").pass(async () => OK);
    await memo.gate("s", REF, "create").pass(async () => {
      throw new Error("not asked again");
    });
  });
});
