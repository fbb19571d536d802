// The stack a state belongs to (docs/stacks.md): null until a stack claims it, claimed at most
// once and atomically (of two claims, the first wins and the second is told its name), visible to
// every handle and reader, and not a data write: no serial bump, no lease, no fence.

import { describe, expect, it } from "vitest";
import { usePlace } from "./fixtures.ts";
import type { StoreTarget } from "./target.ts";

export function stackContract(target: StoreTarget): void {
  const ctx = usePlace(target);

  describe("the stack a state belongs to", () => {
    it("is null until claimed; the first claim wins and the serial stays as it is", async () => {
      const s = ctx.store;
      expect(await s.stack()).toBeNull();
      const serial = await s.serial();
      expect(await s.claimStack("shared")).toBe("shared");
      expect(await s.claimStack("shared")).toBe("shared");
      expect(await s.claimStack("api")).toBe("shared");
      expect(await s.stack()).toBe("shared");
      expect(await s.serial()).toBe(serial);
      expect(await (await ctx.reader()).stack()).toBe("shared");
      const other = await ctx.open();
      expect(await other.claimStack("api")).toBe("shared");
    });

    it("is claimed while another run holds the lock (it is not fenced)", async () => {
      const holder = await ctx.open();
      await holder.acquire({ holder: "other run", leaseMs: 60_000 });
      expect(await ctx.store.claimStack("api")).toBe("api");
      expect(await holder.stack()).toBe("api");
      await holder.release();
    });

    it("of claims made at once by several handles, exactly one wins and every handle is told the winner", async () => {
      const handles = [ctx.store, await ctx.open(), await ctx.open(), await ctx.open()];
      const names = ["a", "b", "c", "d"];
      const told = await Promise.all(handles.map((h, i) => h.claimStack(names[i]!)));
      expect(new Set(told).size).toBe(1);
      expect(names).toContain(told[0]);
      expect(await ctx.store.stack()).toBe(told[0]);
    });
  });
}
