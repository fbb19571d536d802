// Refresh against the local host over HTTP, with `asRecorded` (what a plan asks for): a read
// that finds the record unchanged keeps the record's own state, so the copy read is garbage as
// soon as it is compared; a resource changed or gone on the host keeps what the host said. Without
// the option every state is the copy read (rebind compares it itself).

import { describe, expect, it } from "vitest";
import { refreshRecords } from "../../src/engine/refresh.ts";
import { apply, stackOf, useEngine, withScratch } from "../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";

describe("refresh as recorded", () => {
  const ctx = useEngine();

  it("keeps the record's state for an unchanged read, and the host's answer for one gone", () =>
    withScratch(async (local, store) => {
      const stack = await stackOf(local, { resource: { [KV]: { kept: { name: "asrec-kept" }, gone: { name: "asrec-gone" } } } });
      expect((await apply(ctx.engine, stack, store)).result?.ok).toBe(true);
      const gone = (await store.get(`${KV}.gone`))!;
      ctx.host.host.controls.deleteOutOfBand({ tenant: "dev", space: "default", apiVersion: gone.ref!.apiVersion, kind: gone.ref!.kind, name: "asrec-gone" });
      const records = await store.list();
      const kept = records.find((r) => r.address === `${KV}.kept`)!;
      const { provider } = ctx.engine.setup(stack);
      const lineage = store.lineage;

      const compared = await refreshRecords(provider, records, 4, { asRecorded: { lineage } });
      expect(compared.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      expect([...compared.unchanged]).toEqual([`${KV}.kept`]);
      expect(compared.states.get(`${KV}.kept`)!.attributes).toBe(kept.attributes);
      expect(compared.states.get(`${KV}.gone`)).toBeNull();

      const plain = await refreshRecords(provider, records, 4);
      expect([...plain.unchanged]).toEqual([]);
      const read = plain.states.get(`${KV}.kept`)!;
      expect(read.attributes).not.toBe(kept.attributes);
      expect(read.attributes["uid"]).toBe(kept.attributes["uid"]);
    }));
});
