// Two commands on one project with the embedded host: the second may get the state lock a moment
// before the first has closed the embedded host's data directory. It waits for that briefly
// (src/automation/connect.ts) instead of failing, and still fails, naming the holder, when the data stays
// held.

import { afterEach, describe, expect, it } from "vitest";
import { LocalHost } from "../../src/host/index.ts";
import { runCli, Scratch } from "../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";
const bare = { TAKOFORM_ENDPOINT: undefined, TAKOFORM_TOKEN: undefined, TAKOFORM_SPACE: undefined };

describe("the embedded host's data directory, held by another process", () => {
  const scratches: Scratch[] = [];
  afterEach(() => {
    for (const s of scratches.splice(0)) s.cleanup();
  });

  it("a command waits for a holder that lets go within the grace period", async () => {
    const p = new Scratch();
    scratches.push(p);
    p.write("stack.json", JSON.stringify({ resource: { [KV]: { e: { name: "waits" } } } }));
    const held = await LocalHost.open({ data: p.path(".takoform", "host") });
    const release = setTimeout(() => void held.close(), 800);
    try {
      const applied = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: p.dir, env: bare });
      expect(applied.code, applied.stderr).toBe(0);
      expect(applied.stdout).toContain("Apply complete! Resources: 1 added, 0 changed, 0 destroyed.");
    } finally {
      clearTimeout(release);
      await held.close();
    }
  }, 60_000);

  it("a holder that keeps it is named after the grace period, and nothing is written", async () => {
    const p = new Scratch();
    scratches.push(p);
    p.write("stack.json", JSON.stringify({ resource: { [KV]: { e: { name: "held" } } } }));
    const held = await LocalHost.open({ data: p.path(".takoform", "host") });
    try {
      const started = Date.now();
      const applied = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: p.dir, env: bare });
      expect(applied.code).toBe(1);
      expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
      expect(applied.stdout + applied.stderr).toContain(`is in use by process ${process.pid}`);
      expect(held.controls.resourceCount()).toBe(0);
    } finally {
      await held.close();
    }
  }, 60_000);
});
