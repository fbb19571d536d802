// `moveResource` (`takoform state mv`): a record, its deposed objects and every edge naming them
// move in one fenced write with one serial; a move that must be refused changes nothing. The
// same rules on every store (src/state/move.ts).

import { describe, expect, it } from "vitest";
import { StateLockedError, StateMoveError, type ResourceInput } from "../../../src/state/index.ts";
import { rejection, usePlace, writeIntent } from "./fixtures.ts";
import type { StoreTarget } from "./target.ts";

const KV = "takoform_edge_kv_namespace";

function kv(uid: string, name: string, extra: Partial<ResourceInput> = {}): ResourceInput {
  return {
    type: KV,
    status: "ready",
    attributes: { uid, name, space: "default", form_api_version: "edge.takoform-cdk.dev/v1alpha1", form_kind: "EdgeKVNamespace" },
    ...extra,
  };
}

export function moveContract(target: StoreTarget): void {
  const ctx = usePlace(target);

  describe("moving a record", () => {
    it("moves a resource with its deposed objects in one write, and renames the edges naming them", async () => {
      const s = ctx.store;
      await s.putResource(`${KV}.a`, kv("u1", "one"));
      await s.putResource(`${KV}.a#deposed:k1`, kv("u0", "zero"));
      await s.putResource(`${KV}.ab`, {
        ...kv("u2", "two"),
        contributions: [
          { from: `${KV}.a`, fields: ["x"] },
          { from: `${KV}.b`, fields: ["y"] },
        ],
        dependencies: [`${KV}.a`, `${KV}.a#deposed:k1`],
      });
      const before = (await s.get(`${KV}.a`))!;
      const serial = await s.serial();
      const move = await s.moveResource(`${KV}.a`, `${KV}.b`);
      expect(move).toEqual({
        moved: [
          { from: `${KV}.a`, to: `${KV}.b` },
          { from: `${KV}.a#deposed:k1`, to: `${KV}.b#deposed:k1` },
        ],
        edges: [`${KV}.ab`],
      });
      expect(await s.serial()).toBe(serial + 1);
      const reader = await ctx.reader();
      expect((await reader.list()).map((r) => r.address)).toEqual([`${KV}.ab`, `${KV}.b`, `${KV}.b#deposed:k1`]);
      // The record itself is unchanged but for its address and serial.
      expect(await reader.get(`${KV}.b`)).toEqual({ ...before, address: `${KV}.b`, serial: serial + 1 });
      // An edge that already named the new address merges with the renamed one.
      const ab = (await reader.get(`${KV}.ab`))!;
      expect(ab.contributions).toEqual([{ from: `${KV}.b`, fields: ["x", "y"] }]);
      expect(ab.dependencies).toEqual([`${KV}.b`, `${KV}.b#deposed:k1`]);
      expect(ab.serial).toBe(serial + 1);
      // `_` in an address is not a wildcard: takoform_edge_kv_namespace.ab is not a deposed object of .a.
      const gone = await rejection(s.moveResource(`${KV}.a`, `${KV}.c`));
      expect(gone).toBeInstanceOf(StateMoveError);
      expect((gone as Error).message).toContain("state has no record at that address");
    });

    it("renames the edges of a moved record that name itself, and leaves records that name neither alone", async () => {
      const s = ctx.store;
      await s.putResource(`${KV}.self`, kv("u1", "one", { dependencies: [`${KV}.self#deposed:k9`] }));
      await s.putResource(`${KV}.other`, kv("u2", "two", { dependencies: [`${KV}.selfish`] }));
      const move = await s.moveResource(`${KV}.self`, `${KV}.renamed`);
      expect(move).toEqual({ moved: [{ from: `${KV}.self`, to: `${KV}.renamed` }], edges: [] });
      expect((await s.get(`${KV}.renamed`))!.dependencies).toEqual([`${KV}.renamed#deposed:k9`]);
      expect((await s.get(`${KV}.other`))!.dependencies).toEqual([`${KV}.selfish`]);
    });

    it("refuses a missing source, a taken target (or a deposed object under it) and any write in flight, changing nothing", async () => {
      const s = ctx.store;
      await s.putResource(`${KV}.a`, kv("u1", "one"));
      await s.putResource(`${KV}.b`, kv("u2", "two"));
      await s.putResource(`${KV}.c#deposed:k1`, kv("u3", "three"));
      const serial = await s.serial();
      const before = await s.pull();

      const missing = await rejection(s.moveResource(`${KV}.none`, `${KV}.z`));
      expect(missing).toMatchObject({ reason: "source-missing" });
      const taken = await rejection(s.moveResource(`${KV}.a`, `${KV}.b`));
      expect(taken).toMatchObject({ reason: "target-exists", addresses: [`${KV}.b`] });
      const deposed = await rejection(s.moveResource(`${KV}.a`, `${KV}.c`));
      expect(deposed).toMatchObject({ reason: "target-exists", addresses: [`${KV}.c#deposed:k1`] });

      await s.setIntent("takoform_worker_version.busy", "creating", { stepId: "create:busy", write: writeIntent("busy") });
      const busy = await rejection(s.moveResource(`${KV}.a`, `${KV}.z`));
      expect(busy).toBeInstanceOf(StateMoveError);
      expect(busy).toMatchObject({ reason: "in-flight", addresses: ["takoform_worker_version.busy"] });
      expect(await s.serial()).toBe(serial + 1); // the intent only
      const after = await s.pull();
      expect(after.resources.filter((r) => r.address.startsWith(KV))).toEqual(before.resources);
    });

    it("is a fenced write: refused while another run holds the lock", async () => {
      await ctx.store.putResource(`${KV}.a`, kv("u1", "one"));
      const other = await ctx.open();
      await other.acquire({ holder: "other", leaseMs: 60_000 });
      const refused = await rejection(ctx.store.moveResource(`${KV}.a`, `${KV}.b`));
      expect(refused).toBeInstanceOf(StateLockedError);
      expect((await ctx.store.list()).map((r) => r.address)).toEqual([`${KV}.a`]);
      await other.moveResource(`${KV}.a`, `${KV}.b`);
      await other.release();
      expect((await ctx.store.list()).map((r) => r.address)).toEqual([`${KV}.b`]);
    });
  });
}
