// Issue 25 item 1, across stacks: `takoform state mv --stack A SOURCE --to-stack B DESTINATION`.
//
// Through the command, in a two-stack app on the embedded host: a KV namespace declared in stack
// `a` moves (in the app: KV_IN=b) to stack `b`. Timeline: apply both; with the construct moved,
// `plan a b` warns (takoform.engine/rename-not-moved) with the exact `state mv` command and plans a
// delete in a and a create in b; the move runs; the host holds the same objects with the same
// uids and generations (no host write); `plan a b` then shows no changes; a second, opposite-less
// repeat is refused (the destination is occupied in b, the source gone from a).
//
// The refusals against the stores directly: a write in flight in either state, a cycle member, a
// record holding sealed values, states bound to different hosts, an occupied destination, a
// missing source — each leaves both states' records and serials unchanged.

import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { runCrossStackMove } from "../../src/engine/index.ts";
import { openLocalState, sealSensitive, type StateStore } from "../../src/state/index.ts";
import { stacksCli, stacksOk, stacksProject } from "./stacks-app.ts";

const KV = "takoform_edge_kv_namespace";
const APP = `
import { App, TerraformStack } from "cdktf";
import type { Construct } from "constructs";
import { EdgeKVNamespace, TakoformProvider } from "takoform-cdk";

class Stack extends TerraformStack {
  constructor(scope: Construct, id: string, holdsKv: boolean) {
    super(scope, id);
    new TakoformProvider(this, "takoform", {});
    new EdgeKVNamespace(this, "anchor", { name: id + "-anchor" });
    if (holdsKv) new EdgeKVNamespace(this, "kv", { name: "moving-kv" });
  }
}

const app = new App();
const inB = process.env.KV_IN === "b";
new Stack(app, "a", !inB);
new Stack(app, "b", inB);
app.synth();
`;

/** Every object of the embedded host with its uid, generation and revision: any host write changes it. */
function hostObjects(dir: string): string[] {
  const db = new Database(join(dir, ".takoform", "host", "host.db"), { readonly: true });
  try {
    return (db.prepare("SELECT kind, name, uid, generation, revision FROM resources ORDER BY name").all() as Record<string, unknown>[]).map(
      (r) => `${r.kind} ${r.name} ${r.uid} g${r.generation} r${r.revision}`,
    );
  } finally {
    db.close();
  }
}

describe("state mv between two stacks of an app, through the command", () => {
  it("moves the record without a host write; both stacks then plan no change", async () => {
    const dir = stacksProject(APP);
    const flags = ["--no-typecheck"];
    await stacksOk(dir, ["apply", "a", "b", "--auto-approve", ...flags]);
    const before = hostObjects(dir);
    expect(before.map((line) => line.split(" ").slice(0, 2).join(" "))).toEqual([
      "EdgeKVNamespace a-anchor",
      "EdgeKVNamespace b-anchor",
      "EdgeKVNamespace moving-kv",
    ]);

    // The construct moved to stack b: the plan of both says how to move its record.
    const moved = { KV_IN: "b" };
    const command = `takoform state mv --stack a ${KV}.kv --to-stack b ${KV}.kv`;
    const warned = await stacksOk(dir, ["plan", "a", "b", ...flags], moved);
    expect(warned.stdout).toContain(`# ${KV}.kv will be destroyed`);
    expect(warned.stdout).toContain(`# ${KV}.kv will be created`);
    expect(warned.stderr).toContain(
      `Warning: ${KV}.kv leaves stack "a" and ${KV}.kv arrives in stack "b" with the same ${KV} "moving-kv": destroyed and created again, not moved`,
    );
    expect(warned.stderr).toContain(`run \`${command}\``);

    const mv = await stacksOk(dir, ["state", "mv", "--stack", "a", `${KV}.kv`, "--to-stack", "b", `${KV}.kv`, ...flags], moved);
    expect(mv.stdout).toBe(`Move "${KV}.kv" (stack a) to "${KV}.kv" (stack b)\nSuccessfully moved 1 object(s).\n`);
    expect(hostObjects(dir)).toEqual(before);
    const inB = JSON.parse((await stacksOk(dir, ["state", "show", "--stack", "b", `${KV}.kv`, "--json", ...flags], moved)).stdout) as { uid: string };
    expect(before).toContain(`EdgeKVNamespace moving-kv ${inB.uid} g1 r1`);
    const listA = await stacksOk(dir, ["state", "list", "--stack", "a", ...flags], moved);
    expect(listA.stdout).toBe(`${KV}.anchor\n`);

    const after = await stacksCli(dir, ["plan", "a", "b", "-detailed-exitcode", ...flags], moved);
    expect(after.code, after.stdout + after.stderr).toBe(0);
    expect(after.stderr).not.toContain("rename-not-moved");
    expect(after.stdout).not.toContain("will be");

    // Again: the source is gone from a.
    const again = await stacksCli(dir, ["state", "mv", "--stack", "a", `${KV}.kv`, "--to-stack", "b", `${KV}.kv`, ...flags], moved);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`Error: ${KV}.kv is not in the state of stack "a"`);
    expect(hostObjects(dir)).toEqual(before);
  }, 120_000);
});

describe("state mv between two stacks: the refusals change neither state", () => {
  const stores: StateStore[] = [];
  afterAll(async () => {
    for (const store of stores) await store.close();
  });
  const LOCK = { holder: "test", leaseMs: 30_000, timeoutMs: 0, forceUnlock: false };
  const BINDING = { origin: "embedded", hostId: "h1", space: "default", tenant: "dev", credential: null, lane: "forms.takoform.com/v1beta1" };
  const kv = (name: string, extra: Record<string, unknown> = {}) => ({ type: KV, status: "ready" as const, attributes: { name, space: "default", ...extra } });

  async function pair(): Promise<{ a: StateStore; b: StateStore }> {
    const a = openLocalState(":memory:");
    const b = openLocalState(":memory:");
    stores.push(a, b);
    await a.bindHost(BINDING);
    await b.bindHost(BINDING);
    await a.putResource(`${KV}.kv`, kv("k"));
    await b.putResource(`${KV}.other`, kv("o"));
    return { a, b };
  }
  async function snapshot(store: StateStore) {
    return { serial: await store.serial(), records: await store.list() };
  }
  async function refused(a: StateStore, b: StateStore, from: string, to: string, code: string, summary: string) {
    const before = [await snapshot(a), await snapshot(b)];
    const result = await runCrossStackMove({ stack: "a", store: a }, { stack: "b", store: b }, from, to, LOCK);
    expect(result.ok).toBe(false);
    const error = result.diagnostics.find((d) => d.severity === "error")!;
    expect(error.code).toBe(code);
    expect(error.summary).toContain(summary);
    expect([await snapshot(a), await snapshot(b)]).toEqual(before);
  }

  it("refuses a missing source, an occupied destination and states bound to different hosts", async () => {
    const { a, b } = await pair();
    await refused(a, b, `${KV}.nope`, `${KV}.nope`, "takoform.engine/move-source-missing", `${KV}.nope is not in the state of stack "a"`);
    await refused(a, b, `${KV}.kv`, `${KV}.other`, "takoform.engine/move-target-exists", `the state of stack "b" already manages ${KV}.other`);
    await b.bindHost({ ...BINDING, hostId: "h2" });
    await refused(a, b, `${KV}.kv`, `${KV}.kv`, "takoform.engine/move-invalid", "are bound to different hosts");
  });

  it("refuses while a write is in flight in either state", async () => {
    const { a, b } = await pair();
    const write = {
      operation: "create" as const,
      type: KV,
      space: "default",
      name: "w",
      ref: { apiVersion: "edge.takoform-cdk.dev/v1beta1", kind: "EdgeKVNamespace", definitionVersion: "1", schemaDigest: `sha256:${"0".repeat(64)}` },
      uid: "",
      idempotencyKey: "k",
      request: { method: "PUT", path: "/x", headers: {} },
    };
    await b.setIntent(`${KV}.w`, "creating", { stepId: "create:w", write });
    await refused(a, b, `${KV}.kv`, `${KV}.kv`, "takoform.engine/move-in-flight", 'in flight in stack "b"');
    await a.setIntent(`${KV}.w`, "creating", { stepId: "create:w", write });
    await refused(a, b, `${KV}.kv`, `${KV}.kv`, "takoform.engine/move-in-flight", 'in flight in stack "a"');
  });

  it("refuses a cycle member and a record holding sealed values", async () => {
    const { a, b } = await pair();
    await a.putResource(`${KV}.c1`, { ...kv("c1"), contributions: [{ from: `${KV}.c2`, fields: ["tags"] }] });
    await a.putResource(`${KV}.c2`, kv("c2"));
    await refused(a, b, `${KV}.c2`, `${KV}.c2`, "takoform.engine/move-invalid", "member of a dependency cycle");
    await refused(a, b, `${KV}.c1`, `${KV}.c1`, "takoform.engine/move-invalid", "member of a dependency cycle");
    await a.putResource(`${KV}.s`, kv("s", { token: sealSensitive("secret", a.lineage) }));
    await refused(a, b, `${KV}.s`, `${KV}.s`, "takoform.engine/move-invalid", "holds sealed sensitive values");
  });

  it("moves the record with its deposed objects, the source first, and keeps the destination's host binding", async () => {
    const { a, b } = await pair();
    await a.putResource(`${KV}.kv#deposed:d1`, kv("k-old"));
    const serials = [await a.serial(), await b.serial()];
    const result = await runCrossStackMove({ stack: "a", store: a }, { stack: "b", store: b }, `${KV}.kv`, `${KV}.moved`, LOCK);
    expect(result.ok, JSON.stringify(result.diagnostics)).toBe(true);
    expect(result.move?.moved).toEqual([
      { from: `${KV}.kv#deposed:d1`, to: `${KV}.moved#deposed:d1` },
      { from: `${KV}.kv`, to: `${KV}.moved` },
    ]);
    expect((await a.list()).map((r) => r.address)).toEqual([]);
    expect((await b.list()).map((r) => r.address)).toEqual([`${KV}.moved`, `${KV}.moved#deposed:d1`, `${KV}.other`]);
    expect([await a.serial(), await b.serial()]).toEqual([serials[0]! + 2, serials[1]! + 2]);
  });
});
