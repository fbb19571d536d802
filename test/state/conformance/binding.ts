// The host binding (state layout 2) and the Host API lane it records (layout 3): written by a
// fenced write, read back exactly — by this handle, another one and a reader — and carried
// through pull and replaceState (`state push`, `state migrate`), on every store alike.

import { describe, expect, it } from "vitest";
import type { HostBinding, StateDocument } from "../../../src/state/index.ts";
import { LANE, usePlace } from "./fixtures.ts";
import type { StoreTarget } from "./target.ts";

const BINDING: HostBinding = { origin: "https://host.example", hostId: "h-1", space: "prod", tenant: "acme", credential: null, lane: LANE };

export function bindingContract(target: StoreTarget): void {
  const ctx = usePlace(target);

  describe("host binding", () => {
    it("is null until bound, then round-trips, is pulled with the state, and bumps the serial", async () => {
      const s = ctx.store;
      expect(await s.hostBinding()).toBeNull();
      expect((await s.pull()).host).toBeNull();
      const serial = await s.serial();
      await s.bindHost(BINDING);
      expect(await s.serial()).toBe(serial + 1);
      const bound = (await s.hostBinding())!;
      expect(bound).toEqual({ ...BINDING, boundAt: bound.boundAt });
      expect(Date.parse(bound.boundAt)).not.toBeNaN();
      expect((await s.pull()).host).toEqual(bound);
      await s.bindHost({ ...BINDING, origin: "embedded", hostId: null, tenant: null, credential: "hmac-sha256:00" });
      expect(await (await ctx.reader()).hostBinding()).toMatchObject({
        origin: "embedded",
        hostId: null,
        tenant: null,
        credential: "hmac-sha256:00",
        lane: LANE,
      });
    });

    it("records the lane exactly as given: each lane, and null for a binding made before lanes were recorded", async () => {
      const s = ctx.store;
      const other = await ctx.open();
      for (const lane of ["forms.takoform.com/v1alpha3", "forms.takoform.com/v1beta1", null]) {
        await s.bindHost({ ...BINDING, lane });
        expect((await s.hostBinding())!.lane).toBe(lane);
        expect((await other.hostBinding())!.lane).toBe(lane);
        expect((await (await ctx.reader()).pull()).host!.lane).toBe(lane);
      }
    });

    it("keeps the lane through replaceState, and reads a document pulled before lanes were recorded as lane null", async () => {
      const s = ctx.store;
      await s.bindHost({ ...BINDING, lane: "forms.takoform.com/v1alpha3" });
      const pulled = await s.pull();
      const copy = target.place();
      try {
        const store = await copy.open();
        try {
          await store.replaceState(pulled);
          expect(await store.hostBinding()).toEqual(pulled.host);
          expect((await store.hostBinding())!.lane).toBe("forms.takoform.com/v1alpha3");
          const { lane: _dropped, ...older } = pulled.host!;
          await store.replaceState({ ...pulled, host: older } as unknown as StateDocument);
          expect(await store.hostBinding()).toEqual({ ...older, lane: null });
        } finally {
          await store.close();
        }
      } finally {
        copy.cleanup();
      }
    });

    it("is a fenced write: refused while another run holds the lock, changing nothing", async () => {
      const other = await ctx.open();
      await other.acquire({ holder: "other", leaseMs: 60_000 });
      await expect(ctx.store.bindHost(BINDING)).rejects.toThrow(/holds no lease/);
      expect(await ctx.store.hostBinding()).toBeNull();
      await other.release();
      await ctx.store.bindHost(BINDING);
      expect((await ctx.store.hostBinding())!.lane).toBe(LANE);
    });
  });
}
