// dependencyMap: per configured address, what it depends on, sorted and without repeats, from a
// stack loaded as the command loads it. The map sorts and de-duplicates only lists of two or more
// (no Set per resource), so these pin that a longer list still comes out sorted and unique, a
// short one as it is, and that skipped edges (a placeholder's deferred ones) are left out.

import { describe, expect, it } from "vitest";
import { configEdges } from "../../src/engine/config/edges.ts";
import { loadConfigFile } from "../../src/engine/config/load.ts";
import type { StackConfig } from "../../src/engine/config/types.ts";
import { dependencyMap } from "../../src/engine/dependencies.ts";
import { Scratch } from "../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";

async function load(document: unknown): Promise<StackConfig> {
  const scratch = new Scratch();
  try {
    const loaded = await loadConfigFile(scratch.write("stack.json", JSON.stringify(document)));
    expect(loaded.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    return loaded.config!;
  } finally {
    scratch.cleanup();
  }
}

describe("dependencyMap", () => {
  it("lists each address's dependencies sorted, each once, and leaves out skipped edges", async () => {
    const stack = await load({
      resource: {
        [KV]: {
          c: { name: "c" },
          a: { name: "a" },
          b: { name: "b" },
          // z names c by depends_on and again by reference, and b after c: sorted, c once.
          z: { name: `\${${KV}.c.name}`, depends_on: [`${KV}.c`, `${KV}.b`, `${KV}.a`] },
          y: { name: "y", depends_on: [`${KV}.b`] },
        },
      },
    });
    const edges = configEdges(stack);
    const map = dependencyMap(stack, edges);
    expect([...map.keys()]).toEqual([...stack.resources.keys()]);
    expect(map.get(`${KV}.z`)).toEqual([`${KV}.a`, `${KV}.b`, `${KV}.c`]);
    expect(map.get(`${KV}.y`)).toEqual([`${KV}.b`]);
    expect(map.get(`${KV}.a`)).toEqual([]);

    // Skipping z's edges to c (both of them) leaves a and b.
    const skipped = dependencyMap(stack, edges, (edge) => edge.from === `${KV}.z` && edge.to === `${KV}.c`);
    expect(skipped.get(`${KV}.z`)).toEqual([`${KV}.a`, `${KV}.b`]);
  });
});
