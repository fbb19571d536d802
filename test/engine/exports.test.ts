// The engine's entry point offers the cycle resolver it plans with by default, beside the seam's
// types and the refusing resolver, so an embedder can pass either explicitly.

import { describe, expect, it } from "vitest";
import * as engine from "../../src/engine/index.ts";
import { placeholderCycles } from "../../src/engine/cycles/resolver.ts";
import type { CycleResolver, CycleSteps } from "../../src/engine/index.ts";

describe("src/engine/index.ts", () => {
  it("exports placeholderCycles (the default resolver) and refuseCycles", () => {
    expect(engine.placeholderCycles).toBe(placeholderCycles);
    const resolvers: CycleResolver[] = [engine.placeholderCycles, engine.refuseCycles];
    expect(resolvers.map((r) => r.resolvesStateCycles === true)).toEqual([true, false]);
    const steps: CycleSteps = { steps: [] };
    expect(steps.steps).toEqual([]);
    expect(typeof engine.SettleTracker).toBe("function");
  });
});
