// Issue 25, item 1 (scenario 1 of the issue): a construct renamed with cdktf's moveFromId, moveToId
// or moveTo keeps its object. The stacks are synthesized by real cdktf 0.21 constructs and given to
// the command (`--config`), which plans `# OLD has moved to NEW` and applies it with no host write:
// the record is re-keyed in state (same uid), and a bucket a WorkerApp binds keeps its binding.

import { mkdirSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TerraformStack } from "cdktf";
import type { Construct } from "constructs";
import { ObjectBucket, WorkerApp } from "../../src/index.ts";
import { openLocalStateReadOnly } from "../../src/state/index.ts";
import { moduleSource, runCli, Scratch, SCENARIO_STACK, startHost, synthStack, type TestHost, timeline } from "../scenario/harness.ts";

const B = "takoform_edge_object_bucket";
const TOKEN = "takoform-dev-token";

describe("moved blocks through the command", () => {
  let host: TestHost;
  const p = new Scratch();
  const env = () => ({ TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: TOKEN });
  const run = (args: string[]) => runCli(args, { cwd: p.dir, env: env() });
  const records = async () => {
    const reader = openLocalStateReadOnly(p.statePath(SCENARIO_STACK));
    try {
      return await reader.list();
    } finally {
      await reader.close();
    }
  };
  const uidAt = async (address: string) => (await records()).find((r) => r.address === address)?.uid;
  /** The app: a bucket (built by `bucket`), bound by a WorkerApp, and a second bucket of its own. */
  const synth = async (bucket: (stack: Construct) => ObjectBucket, extra: (stack: Construct) => void = () => undefined) => {
    const { file } = await synthStack(p, (stack) => {
      const uploads = bucket(stack);
      new WorkerApp(stack, "app", { name: "mover", contentDir: p.path("dist"), bucketBindings: { FILES: uploads } });
      extra(stack);
    });
    return file;
  };

  beforeAll(async () => {
    host = await startHost();
    mkdirSync(p.path("dist"), { recursive: true });
    writeFileSync(p.path("dist", "index.js"), moduleSource(1));
    const file = await synth(
      (stack) => new ObjectBucket(stack, "data", { name: "uploads" }),
      (stack) => void new ObjectBucket(stack, "logs", { name: "logs" }),
    );
    const applied = await run(["apply", "-auto-approve", `-config=${file}`]);
    if (applied.code !== 0) throw new Error(applied.stderr + applied.stdout);
  }, 120_000);
  afterAll(async () => {
    await host.close();
    p.cleanup();
  });

  it("moveFromId: plans the move alone, applies it without a host write, and keeps the uid and the binding", async () => {
    const uid = await uidAt(`${B}.data`);
    expect(uid).toBeTruthy();
    const writes = host.mutations.length;
    const file = await synth(
      (stack) => {
        const renamed = new ObjectBucket(stack, "files", { name: "uploads" });
        renamed.moveFromId(`${B}.data`);
        return renamed;
      },
      (stack) => void new ObjectBucket(stack, "logs", { name: "logs" }),
    );
    const planned = await run(["plan", `-config=${file}`, "-detailed-exitcode"]);
    expect(planned.code, planned.stderr).toBe(2); // a move is a change to apply
    expect(planned.stdout).toContain(`  # ${B}.data has moved to ${B}.files\n    resource "${B}" "files" {`);
    expect(planned.stdout).toContain("Plan: 0 to add, 0 to change, 0 to destroy.");
    expect(planned.stdout).not.toContain("Resource actions are indicated");
    const json = JSON.parse((await run(["plan", `-config=${file}`, "-json"])).stdout) as {
      resource_changes: { address: string; previous_address?: string; change: { actions: string[] } }[];
      moves: unknown[];
    };
    expect(json.resource_changes.find((c) => c.address === `${B}.files`)).toMatchObject({ previous_address: `${B}.data`, change: { actions: ["no-op"] } });
    expect(json.moves).toEqual([{ from: `${B}.data`, to: `${B}.files`, blocks: [0] }]);

    const applied = await run(["apply", "-auto-approve", `-config=${file}`]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain("Apply complete! Resources: 0 added, 0 changed, 0 destroyed.");
    expect(host.mutations.length).toBe(writes); // no PUT, no DELETE: the host never heard of it
    expect(await uidAt(`${B}.files`)).toBe(uid);
    expect(await uidAt(`${B}.data`)).toBeUndefined();
    // The version that binds the bucket recorded it under its old address: renamed with it.
    const version = (await records()).find((r) => r.type === "takoform_worker_version")!;
    expect(version.dependencies).toContain(`${B}.files`);
    expect(version.dependencies).not.toContain(`${B}.data`);
    const again = await run(["plan", `-config=${file}`, "-detailed-exitcode"]);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain("No changes.");
  }, 120_000);

  it("moveToId on the old construct and moveTo with a move target, in one plan; a change of the moved object says where it came from", async () => {
    const files = await uidAt(`${B}.files`);
    const logs = await uidAt(`${B}.logs`);
    const writes = host.mutations.length;
    const file = await synth(
      (stack) => {
        const old = new ObjectBucket(stack, "files", { name: "uploads" });
        old.moveToId(`${B}.assets`);
        return new ObjectBucket(stack, "assets", { name: "uploads" });
      },
      (stack) => {
        const target = new ObjectBucket(stack, "journal", { name: "logs" });
        target.addMoveTarget("journal");
        new ObjectBucket(stack, "logs", { name: "logs" }).moveTo("journal");
      },
    );
    const planned = await run(["plan", `-config=${file}`]);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toContain(`  # ${B}.files has moved to ${B}.assets`);
    expect(planned.stdout).toContain(`  # ${B}.logs has moved to ${B}.journal`);
    const applied = await run(["apply", "-auto-approve", `-config=${file}`]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(host.mutations.length).toBe(writes);
    expect(await uidAt(`${B}.assets`)).toBe(files);
    expect(await uidAt(`${B}.journal`)).toBe(logs);

    // A chain (journal → archive → vault) is followed to its end, and a change of the moved
    // object is planned at its new address, naming where it came from.
    const chain = await synth(
      (stack) => new ObjectBucket(stack, "assets", { name: "uploads" }),
      (stack) => {
        new ObjectBucket(stack, "journal", { name: "logs" }).moveToId(`${B}.archive`);
        new ObjectBucket(stack, "vault", { name: "logs-v2" }).moveFromId(`${B}.archive`);
      },
    );
    const replaced = await run(["plan", `-config=${chain}`]);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(replaced.stdout).toContain(`  # ${B}.vault must be replaced\n  # (moved from ${B}.journal)\n-/+ resource "${B}" "vault" {`);
    expect(replaced.stdout).toContain("Plan: 1 to add, 0 to change, 1 to destroy.");
  }, 120_000);

  it("refuses at plan, naming the block: a move onto an occupied address, a cycle, a move across types, a source still declared", async () => {
    const writes = host.mutations.length;
    const serial = (await records()).length;
    const occupied = await synth(
      (stack) => {
        const assets = new ObjectBucket(stack, "assets", { name: "uploads" });
        assets.moveToId(`${B}.journal`);
        return new ObjectBucket(stack, "spare", { name: "spare" });
      },
      (stack) => void new ObjectBucket(stack, "journal", { name: "logs" }),
    );
    const onto = await run(["plan", `-config=${occupied}`]);
    expect(onto.code, onto.stdout).toBe(1);
    // A plan's errors end the plan (stdout), in place of its summary.
    expect(onto.stdout).toContain(`Error: moved[0] cannot move ${B}.assets to ${B}.journal: state already manages ${B}.journal`);
    expect(onto.stdout).toContain("Pointer: /moved/0");
    expect(onto.stdout).not.toContain("Plan:");

    const document = (moved: { from: string; to: string }[]) =>
      JSON.stringify({ resource: { [B]: { assets: { name: "uploads" }, journal: { name: "logs" } } }, moved });
    p.write(
      "cycle.json",
      document([
        { from: `${B}.a`, to: `${B}.b` },
        { from: `${B}.b`, to: `${B}.a` },
      ]),
    );
    const cycle = await run(["plan", "-config=cycle.json"]);
    expect(cycle.code).toBe(1);
    expect(cycle.stderr).toContain("Error: Cyclic dependency in move statements");
    expect(cycle.stderr).toContain(`moved[0] (${B}.a → ${B}.b), moved[1] (${B}.b → ${B}.a)`);
    p.write("types.json", document([{ from: `${B}.old`, to: "takoform_edge_kv_namespace.old" }]));
    const types = await run(["plan", "-config=types.json"]);
    expect(types.code).toBe(1);
    expect(types.stderr).toContain(`Error: Resource type mismatch: moved[0] (${B}.old → takoform_edge_kv_namespace.old)`);
    p.write("still.json", document([{ from: `${B}.journal`, to: `${B}.elsewhere` }]));
    const still = await run(["plan", "-config=still.json"]);
    expect(still.code).toBe(1);
    expect(still.stderr).toContain(`Error: Moved object still exists: moved[0] (${B}.journal → ${B}.elsewhere)`);
    expect(host.mutations.length).toBe(writes);
    expect((await records()).length).toBe(serial);
  }, 120_000);

  it("a saved plan carries its moves; with --target, both addresses of a move must be targeted", async () => {
    const uid = await uidAt(`${B}.assets`);
    const writes = host.mutations.length;
    const file = await synth(
      (stack) => {
        const media = new ObjectBucket(stack, "media", { name: "uploads" });
        media.moveFromId(`${B}.assets`);
        return media;
      },
      (stack) => void new ObjectBucket(stack, "journal", { name: "logs" }),
    );
    const half = await run(["plan", `-config=${file}`, `-target=${B}.media`]);
    expect(half.code).toBe(1);
    expect(half.stdout).toContain("Error: Moved resource instances excluded by targeting");
    expect(half.stdout).toContain(`--target=${B}.assets`);
    const saved = await run(["plan", `-config=${file}`, `-target=${B}.assets`, `-target=${B}.media`, "-out=moves.tfplan"]);
    expect(saved.code, saved.stdout + saved.stderr).toBe(0);
    expect(saved.stdout).toContain(`  # ${B}.assets has moved to ${B}.media`);
    const applied = await run(["apply", "moves.tfplan"]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(await uidAt(`${B}.media`)).toBe(uid);
    expect(host.mutations.length).toBe(writes);
  }, 120_000);

  it("a rename no block declares is pointed out with the exact move that keeps the object; nothing is moved on its own", async () => {
    const file = await synth(
      (stack) => new ObjectBucket(stack, "store", { name: "uploads" }),
      (stack) => void new ObjectBucket(stack, "journal", { name: "logs" }),
    );
    const planned = await run(["plan", `-config=${file}`]);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toContain(`Warning: ${B}.media leaves and ${B}.store arrives with the same ${B} "uploads": destroyed and created again, not moved`);
    expect(planned.stdout).toContain(`on the construct scenario/store: .moveFromId("${B}.media")`);
    expect(planned.stdout).toContain(`.moveToId("${B}.store")`);
    expect(planned.stdout).toContain(`"moved": [{ "from": "${B}.media", "to": "${B}.store" }]`);
    // The plan is what the configuration says: the object is destroyed and created again.
    expect(planned.stdout).toContain(`  # ${B}.media will be destroyed (not in configuration)`);
    expect(planned.stdout).toContain(`  # ${B}.store will be created`);
    const json = JSON.parse((await run(["plan", `-config=${file}`, "-json"])).stdout) as { moves?: unknown; diagnostics: { code: string }[] };
    expect(json.moves).toBeUndefined();
    expect(json.diagnostics.map((d) => d.code)).toContain("takoform.engine/rename-not-moved");
    // Declared on purpose (a removed block that destroys), the same delete and create, without the warning.
    const restartFile = await synth(
      (stack) => new ObjectBucket(stack, "store", { name: "uploads" }),
      (stack) => {
        new ObjectBucket(stack, "journal", { name: "logs" });
        (stack as TerraformStack).addOverride("removed", [{ from: `${B}.media`, lifecycle: { destroy: true } }]);
      },
    );
    const restart = await run(["plan", `-config=${restartFile}`]);
    expect(restart.code, restart.stderr).toBe(0);
    expect(restart.stdout).not.toContain("not moved");
    expect(restart.stdout).toContain(`  # ${B}.media will be destroyed (not in configuration)`);
    expect(restart.stdout).toContain(`  # ${B}.store will be created`);
  }, 120_000);

  it("over the whole file the host saw only the first apply's bucket creates", () => {
    // The two creates are independent and run at once, so their order on the wire is not fixed.
    expect(
      timeline(host.mutations)
        .filter((m) => m.includes("ObjectBucket"))
        .sort(),
    ).toEqual(["PUT ObjectBucket logs 201", "PUT ObjectBucket uploads 201"]);
  });
});
