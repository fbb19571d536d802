// Conformance: a saved plan is bound to the state it was made against. Through the engine, with a
// real host: a plan file applies while the state is as it was, and is refused once the state moved
// (a write, a whole-state replacement, another lineage), whichever store holds it.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadStackConfig } from "../../../src/engine/config/load.ts";
import { decodePlanFile, encodePlanFile } from "../../../src/engine/plan/file.ts";
import { runApply, runPlan } from "../../../src/engine/run.ts";
import type { StateDocument, StateStore } from "../../../src/state/index.ts";
import { engineFor, startHost, type Engine, type TestHost } from "../../scenario/harness.ts";
import { plain } from "./fixtures.ts";
import type { StoreTarget } from "./target.ts";

export function planFileContract(target: StoreTarget): void {
  describe("saved plans", () => {
    let host: TestHost;
    let engine: Engine;
    beforeAll(async () => {
      host = await startHost();
      engine = await engineFor(host.url);
    });
    afterAll(async () => {
      engine.close();
      await host.close();
    });

    async function saved(store: StateStore, name: string) {
      const stack = loadStackConfig(
        JSON.stringify({ resource: { takoform_edge_kv_namespace: { [name]: { name: `planfile-${target.name}-${name}` } } } }),
      ).config!;
      const setup = engine.setup(stack);
      const { plan } = await runPlan(setup, store);
      const text = JSON.stringify(stack);
      return { setup, file: decodePlanFile(encodePlanFile({ plan, stackDocument: text, variables: setup.variables, mode: "normal", refresh: true })) };
    }

    it("applies while the state is as it was, and is refused once it moved: a write, a replaced state, another lineage", async () => {
      const place = target.place();
      const store = await place.open();
      try {
        const first = await saved(store, "a");
        const applied = await runApply(first.setup, store, { saved: first.file, lock: { holder: "test" } });
        expect(applied.status, JSON.stringify(applied.diagnostics)).toBe("applied");

        const moved = await saved(store, "b");
        await store.putResource("takoform_x.other", plain("other"));
        const afterWrite = await runApply(moved.setup, store, { saved: moved.file, lock: { holder: "test" } });
        expect(afterWrite.status).toBe("stale-plan");
        expect(afterWrite.diagnostics[0]).toMatchObject({ code: "takoform.engine/plan-file-stale" });

        const replaced = await saved(store, "c");
        const document = await store.pull();
        await store.replaceState(document); // the same contents, pushed again: the serial still moves
        expect((await runApply(replaced.setup, store, { saved: replaced.file, lock: { holder: "test" } })).status).toBe("stale-plan");

        const foreign = await saved(store, "d");
        const other: StateDocument = {
          ...(await store.pull()),
          lineage: "00000000-0000-4000-8000-00000000000f",
          serial: 0,
          resources: [],
          outputs: {},
          host: null,
        };
        const fresh = target.place();
        const elsewhere = await fresh.open();
        try {
          await elsewhere.replaceState(other);
          const refused = await runApply(foreign.setup, elsewhere, { saved: foreign.file, lock: { holder: "test" } });
          expect(refused.status).toBe("stale-plan");
          expect(refused.diagnostics[0]!.detail).toContain("lineage");
        } finally {
          await elsewhere.close();
          fresh.cleanup();
        }
      } finally {
        await store.close();
        place.cleanup();
      }
    }, 60_000);
  });
}
