// The apply summary counts only the steps that wrote: the settle passes of a dependency cycle
// (RFC 0011) that found nothing to change are not "changed" resources. Checked with the real
// command over HTTP against examples/cycles, whose summary must equal the host's own count of
// the writes it answered (201 created, 200 updated, 204 deleted).

import { spawnSync } from "node:child_process";
import { copyFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, Scratch, startHost, type TestHost } from "../scenario/harness.ts";

const EXAMPLE = fileURLToPath(new URL("../../examples/cycles/main.ts", import.meta.url));
const TSX = fileURLToPath(new URL("../../node_modules/tsx/dist/cli.mjs", import.meta.url));

describe("apply summary", () => {
  let host: TestHost;
  const scratch = new Scratch();
  beforeAll(async () => {
    host = await startHost();
  });
  afterAll(async () => {
    await host.close();
    scratch.cleanup();
  });

  it("examples/cycles: added and changed are the writes the host answered, settle passes with no change are not counted", async () => {
    const outdir = scratch.path("cdktf.out");
    const synth = spawnSync(process.execPath, [TSX, EXAMPLE], { env: { ...process.env, CDKTF_OUTDIR: outdir }, encoding: "utf8" });
    expect(synth.status, synth.stderr).toBe(0);
    copyFileSync(scratch.path("cdktf.out", "stacks", "mesh", "cdk.tf.json"), scratch.path("stack.json"));
    const env = { TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: "takoform-dev-token" };
    const count = (status: number, method = "PUT") => host.mutations.filter((m) => m.method === method && m.status === status).length;

    host.mutations.length = 0;
    const applied = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: scratch.dir, env });
    expect(applied.code, applied.stderr).toBe(0);
    // Two members start as placeholders and are finalized: 4 creates, 2 updates, whatever the settle passes found.
    expect([count(201), count(200)]).toEqual([4, 2]);
    expect(applied.stdout).toContain("No change needed after");
    expect(applied.stdout).toContain(`Apply complete! Resources: ${count(201)} added, ${count(200)} changed, 0 destroyed.`);

    host.mutations.length = 0;
    const json = await runCli(["destroy", "--config", "stack.json", "--auto-approve", "--json"], { cwd: scratch.dir, env });
    expect(json.code, json.stderr).toBe(0);
    const summary = JSON.parse(json.stdout) as { added: number; changed: number; destroyed: number; steps: { action: string; noop?: boolean }[] };
    // A destroy reverts every member to its placeholder first (updates), then deletes all four.
    expect({ changed: summary.changed, destroyed: summary.destroyed }).toEqual({ changed: count(200), destroyed: count(204, "DELETE") });
    expect(summary.destroyed).toBe(4);
  }, 90_000);
});
