// Issue 14, item 7: `state mv` (a record, its deposed objects and the edges naming it move; an
// existing target, another type and an in-flight write are refused), `output -json` as
// Terraform's, and `show` of the state or a plan file, human and -json — through the command
// against the local host served over HTTP.

import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLocalState, openLocalStateReadOnly } from "../../src/state/index.ts";
import { runCli, Scratch, startHost, type TestHost } from "../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";
const Q = "takoform_at_least_once_queue";
const TOKEN = "takoform-dev-token";

const stack = (kvName: string) => ({
  variable: { secret: { type: "string", sensitive: true } },
  resource: {
    [KV]: { [kvName]: { name: "mv-kv" } },
    // The queue depends on the namespace: state records the edge under the namespace's address.
    [Q]: { q: { name: "mv-q", message_retention_seconds: 60, depends_on: [`${KV}.${kvName}`] } },
  },
  output: {
    kv_uid: { value: `\${${KV}.${kvName}.uid}` },
    retention: { value: `\${${Q}.q.message_retention_seconds}` },
    pair: { value: { name: "mv-kv", tags: ["a", 1, true] } },
    token: { value: "${var.secret}", sensitive: true },
  },
});

describe("state mv, output -json and show", () => {
  let host: TestHost;
  const p = new Scratch();
  const env = () => ({ TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: TOKEN, TF_VAR_secret: "s3cr3t-value" });
  const run = (args: string[], extra: Record<string, string> = {}) => runCli(args, { cwd: p.dir, env: { ...env(), ...extra } });
  const records = async () => {
    const reader = openLocalStateReadOnly(p.path(".takoform", "state.db"));
    try {
      return await reader.list();
    } finally {
      await reader.close();
    }
  };
  beforeAll(async () => {
    host = await startHost();
    p.write("stack.json", JSON.stringify(stack("old")));
    const applied = await run(["apply", "-auto-approve", "-config=stack.json"]);
    if (applied.code !== 0) throw new Error(applied.stderr);
  });
  afterAll(async () => {
    await host.close();
    p.cleanup();
  });

  it("output -json prints {name: {sensitive, type, value}}, a sensitive one with its value given its variable; -json NAME and -raw NAME print the value", async () => {
    const all = await run(["output", "-json"]);
    expect(all.code, all.stderr).toBe(0);
    const outputs = JSON.parse(all.stdout) as Record<string, Record<string, unknown>>;
    expect(outputs["retention"]).toEqual({ sensitive: false, type: "number", value: 60 });
    expect(outputs["pair"]).toEqual({
      sensitive: false,
      type: ["object", { name: "string", tags: ["tuple", ["string", "number", "bool"]] }],
      value: { name: "mv-kv", tags: ["a", 1, true] },
    });
    // The sensitive variable is in the environment, so its output is printed as Terraform prints it
    // (test/cli/sensitive-outputs.test.ts covers the rest).
    expect(outputs["token"]).toEqual({ sensitive: true, type: "string", value: "s3cr3t-value" });
    expect(outputs["kv_uid"]).toMatchObject({ sensitive: false, type: "string" });

    const one = await run(["output", "-json", "pair"]);
    expect(JSON.parse(one.stdout)).toEqual({ name: "mv-kv", tags: ["a", 1, true] });
    const raw = await run(["output", "-raw", "retention"]);
    expect(raw.stdout).toBe("60");
    const secret = await run(["output", "-json", "token"], { TF_VAR_secret: "another-value" });
    expect(secret.code).toBe(1);
    // With -json the refusal is itself JSON on stdout (docs/cli.md "One diagnostic per cause").
    const refusal = JSON.parse(secret.stdout) as { ok: boolean; diagnostics: { summary: string }[] };
    expect(refusal.ok).toBe(false);
    expect(refusal.diagnostics[0]!.summary).toContain('The values of "secret" differ from those output "token" was stored with');
    const rawObject = await run(["output", "-raw", "pair"]);
    expect(rawObject.code).toBe(1);
    expect(rawObject.stderr).toContain("Unsupported value for raw output");
  }, 60_000);

  it("show prints the state as resource blocks and outputs, and -json as terraform show -json", async () => {
    const human = await run(["show"]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(`# ${KV}.old:\nresource "${KV}" "old" {`);
    expect(human.stdout).toContain(`resource "${Q}" "q" {`);
    expect(human.stdout).toContain("Outputs:\n\nkv_uid = ");
    expect(human.stdout).toContain("token = (sensitive value)");
    const json = JSON.parse((await run(["show", "-json"])).stdout) as {
      format_version: string;
      takoform_version: string;
      values: { outputs: Record<string, unknown>; root_module: { resources: Record<string, unknown>[] } };
    };
    expect(json.format_version).toBe("1.0");
    // The version is the package's own (src/cli/package-manifest.ts reads it from package.json).
    expect(json.takoform_version).toBe((JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version);
    expect(json.values.outputs["token"]).toEqual({ sensitive: true, type: "dynamic" });
    const resources = json.values.root_module.resources;
    expect(resources.map((r) => r["address"])).toEqual([`${Q}.q`, `${KV}.old`]);
    expect(resources[0]).toMatchObject({
      mode: "managed",
      type: Q,
      name: "q",
      depends_on: [`${KV}.old`],
      values: { name: "mv-q", message_retention_seconds: 60 },
    });
    // With no state at all: Terraform's "No state." and a JSON document of the format version only.
    const empty = new Scratch();
    try {
      expect((await runCli(["show"], { cwd: empty.dir })).stdout.trim()).toBe("No state.");
      expect(JSON.parse((await runCli(["show", "-json"], { cwd: empty.dir })).stdout)).toEqual({ format_version: "1.0" });
    } finally {
      empty.cleanup();
    }
  }, 60_000);

  it("show PLAN-FILE prints the saved plan, and -json exactly what plan -json printed", async () => {
    p.write(
      "changed.json",
      JSON.stringify({
        ...stack("old"),
        resource: { ...stack("old").resource, [Q]: { q: { name: "mv-q", message_retention_seconds: 120, depends_on: [`${KV}.old`] } } },
      }),
    );
    const planned = await run(["plan", "-config=changed.json", "-out=tfplan", "-json"]);
    expect(planned.code, planned.stderr).toBe(0);
    const shown = await run(["show", "-json", "tfplan"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual(JSON.parse(planned.stdout));
    const human = await run(["show", "tfplan"]);
    expect(human.stdout).toContain(`# ${Q}.q will be updated in-place`);
    expect(human.stdout).toContain("Plan: 0 to add, 1 to change, 0 to destroy.");
    const missing = await run(["show", "nope.tfplan"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("Cannot read the plan file nope.tfplan");
  }, 60_000);

  it("state mv moves the record and the edges naming it; the renamed configuration then plans no changes", async () => {
    const before = await records();
    const uid = before.find((r) => r.address === `${KV}.old`)!.uid;
    const moved = await run(["state", "mv", `${KV}.old`, `${KV}.new`]);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toBe(`Move "${KV}.old" to "${KV}.new"\nSuccessfully moved 1 object(s).\nRenamed it in the recorded dependencies of ${Q}.q.\n`);
    const after = await records();
    expect(after.map((r) => r.address)).toEqual([`${Q}.q`, `${KV}.new`]);
    expect(after.find((r) => r.address === `${KV}.new`)!.uid).toBe(uid);
    expect(after.find((r) => r.address === `${Q}.q`)!.dependencies).toEqual([`${KV}.new`]);
    p.write("stack.json", JSON.stringify(stack("new")));
    const planned = await run(["plan", "-config=stack.json", "-detailed-exitcode"]);
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    expect(host.mutations.filter((m) => m.kind === "EdgeKVNamespace").map((m) => m.method)).toEqual(["PUT"]);
  }, 60_000);

  it("state mv refuses an existing target, another type, an unknown source and a write in flight, changing nothing", async () => {
    const serial = async () => {
      const reader = openLocalStateReadOnly(p.path(".takoform", "state.db"));
      try {
        return await reader.serial();
      } finally {
        await reader.close();
      }
    };
    const start = await serial();
    const taken = await run(["state", "mv", `${KV}.new`, `${Q}.q`]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain(`Cannot move ${KV}.new to ${Q}.q: resource types don't match`);
    // An existing target of the same type: recorded through the store as an import would.
    const store = openLocalState(p.path(".takoform", "state.db"));
    const q = (await store.get(`${Q}.q`))!;
    await store.putResource(`${Q}.other`, { type: Q, status: "ready", attributes: { ...q.attributes, uid: "u-other", name: "mv-other" } });
    await store.close();
    const exists = await run(["state", "mv", `${Q}.q`, `${Q}.other`, "-json"]);
    expect(exists.code).toBe(1);
    expect(JSON.parse(exists.stdout)).toMatchObject({ ok: false, moved: [], diagnostics: [{ code: "takoform.engine/move-target-exists" }] });
    const unknown = await run(["state", "mv", `${Q}.absent`, `${Q}.elsewhere`]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`Error: ${Q}.absent is not in state`);
    const rm = await run(["state", "rm", `${Q}.other`]);
    expect(rm.code).toBe(0);
    const middle = await serial();
    expect(middle).toBe(start + 2); // the put and the rm; no refused move wrote anything

    // A write in flight: an apply killed right after it recorded its first intent.
    p.write(
      "stack.json",
      JSON.stringify({ ...stack("new"), resource: { ...stack("new").resource, [KV]: { new: { name: "mv-kv" }, extra: { name: "mv-extra" } } } }),
    );
    const crashed = await run(["apply", "-auto-approve", "-config=stack.json"], { TAKOFORM_TEST_CRASH_AFTER_INTENTS: "1" });
    expect(crashed.signal ?? crashed.code).toBe("SIGKILL");
    const busy = await run(["state", "mv", `${Q}.q`, `${Q}.renamed`]);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain("Cannot move a record while a host write is in flight");
    expect(busy.stderr).toContain(`${KV}.extra`);
    expect((await records()).map((r) => r.address)).toContain(`${Q}.q`);
  }, 90_000);
});

describe("the store's move", () => {
  it("moves a resource with its deposed objects in one write, and renames contribution edges", async () => {
    const scratch = new Scratch();
    const store = scratch.state();
    try {
      const attributes = (uid: string, name: string) => ({
        uid,
        name,
        space: "default",
        form_api_version: "edge.takoform-cdk.dev/v1alpha1",
        form_kind: "EdgeKVNamespace",
      });
      await store.putResource(`${KV}.a`, { type: KV, status: "ready", attributes: attributes("u1", "one") });
      await store.putResource(`${KV}.a#deposed:k1`, { type: KV, status: "ready", attributes: attributes("u0", "zero") });
      await store.putResource(`${KV}.ab`, {
        type: KV,
        status: "ready",
        attributes: attributes("u2", "two"),
        contributions: [
          { from: `${KV}.a`, fields: ["x"] },
          { from: `${KV}.b`, fields: ["y"] },
        ],
        dependencies: [`${KV}.a`],
      });
      const serial = await store.serial();
      const move = await store.moveResource(`${KV}.a`, `${KV}.b`);
      expect(move).toEqual({
        moved: [
          { from: `${KV}.a`, to: `${KV}.b` },
          { from: `${KV}.a#deposed:k1`, to: `${KV}.b#deposed:k1` },
        ],
        edges: [`${KV}.ab`],
      });
      expect(await store.serial()).toBe(serial + 1);
      expect((await store.list()).map((r) => r.address)).toEqual([`${KV}.ab`, `${KV}.b`, `${KV}.b#deposed:k1`]);
      // An edge that already named the new address merges with the renamed one.
      expect((await store.get(`${KV}.ab`))!.contributions).toEqual([{ from: `${KV}.b`, fields: ["x", "y"] }]);
      expect((await store.get(`${KV}.ab`))!.dependencies).toEqual([`${KV}.b`]);
      // `_` in an address is not a wildcard: takoform_edge_kv_namespace.ab is not a deposed object of .a.
      await expect(store.moveResource(`${KV}.a`, `${KV}.c`)).rejects.toThrow("state has no record at that address");
    } finally {
      await store.close();
      scratch.cleanup();
    }
  });
});
