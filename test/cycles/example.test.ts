// examples/cycles synthesizes with real cdktf (its own process, as `takoform synth` runs an app),
// deploys against the local host, plans nothing afterwards, and destroys without a refusal.

import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadConfigFile } from "../../src/engine/config/load.ts";
import { apply, plan } from "../scenario/harness.ts";
import { noDependencyInUse, stepSequence, world } from "./fixtures.ts";

const EXAMPLE = fileURLToPath(new URL("../../examples/cycles/main.ts", import.meta.url));
const TSX = fileURLToPath(new URL("../../node_modules/tsx/dist/cli.mjs", import.meta.url));

describe("examples/cycles", () => {
  it("deploys two services that bind to each other and a worker with its container, then destroys them", async () => {
    const w = await world();
    try {
      const outdir = w.scratch.path("cdktf.out");
      const synth = spawnSync(process.execPath, [TSX, EXAMPLE], { env: { ...process.env, CDKTF_OUTDIR: outdir }, encoding: "utf8" });
      expect(synth.status, synth.stderr).toBe(0);
      const loaded = await loadConfigFile(join(outdir, "stacks", "mesh", "cdk.tf.json"));
      expect(loaded.config, loaded.diagnostics.map((d) => d.summary).join("; ")).not.toBeNull();
      const stack = loaded.config!;

      const planned = await plan(w.engine, stack, w.store);
      const sequence = stepSequence(planned.plan);
      expect(sequence.slice(0, 4)).toEqual([
        "create-placeholder takoform_mesh_container.sandbox",
        "create-placeholder takoform_mesh_service.api",
        "create takoform_mesh_service.auth",
        "create takoform_mesh_worker.worker",
      ]);
      expect(sequence.filter((s) => s.startsWith("finalize")).sort()).toEqual([
        "finalize takoform_mesh_container.sandbox",
        "finalize takoform_mesh_service.api",
      ]);
      expect(sequence.filter((s) => s.startsWith("settle")).length).toBe(12);
      const run = await apply(w.engine, stack, w.store);
      expect(run.result!.ok, run.diagnostics.map((d) => d.summary).join("; ")).toBe(true);
      expect(run.result!.outputs["namespace"]!.value).toMatch(/^ns-[0-9a-f]{16}$/);
      expect((await plan(w.engine, stack, w.store)).plan.steps).toEqual([]);

      const destroyed = await apply(w.engine, stack, w.store, { plan: { mode: "destroy" } });
      expect(destroyed.result!.ok).toBe(true);
      noDependencyInUse(w.host);
      expect(w.host.host.controls.resourceCount()).toBe(0);
    } finally {
      await w.close();
    }
  }, 60_000);
});
