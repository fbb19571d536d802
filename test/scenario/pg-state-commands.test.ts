// The state commands main gained (state mv, show, output -json, the binding's lane) on state kept
// in PostgreSQL, through the command: each reads or writes the state the stack's backend names,
// not the project's local file — which is never created.

import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openPgStateReadOnly } from "../../src/state/index.ts";
import { describePg, dropSchemasAfterAll, freshSchema, pgUrl } from "../support/pg.ts";
import { runCli, startHost, type TestHost } from "./harness.ts";

const KV = "takoform_edge_kv_namespace";
const Q = "takoform_at_least_once_queue";

describePg("state mv, show and output on state in PostgreSQL", () => {
  dropSchemasAfterAll();
  let host: TestHost;
  let dir: string;
  let schema: string;
  const stack = (kvName: string) => ({
    terraform: { backend: { pg: { conn_str: pgUrl(), schema_name: schema } } },
    resource: {
      [KV]: { [kvName]: { name: "pg-mv-kv" } },
      [Q]: { q: { name: "pg-mv-q", message_retention_seconds: 60, depends_on: [`${KV}.${kvName}`] } },
    },
    output: { kv_uid: { value: `\${${KV}.${kvName}.uid}` } },
  });
  const run = (args: string[]) =>
    runCli([...args, "--config", "stack.json"], { cwd: dir, env: { TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: "takoform-dev-token" }, timeoutMs: 120_000 });
  const reader = () => openPgStateReadOnly({ connStr: pgUrl(), schemaName: schema });

  beforeAll(async () => {
    host = await startHost();
    dir = mkdtempSync(join(tmpdir(), "takoform-pg-mv-"));
    schema = freshSchema("mv");
    writeFileSync(join(dir, "stack.json"), JSON.stringify(stack("old")));
    const applied = await run(["apply", "--auto-approve"]);
    if (applied.code !== 0) throw new Error(applied.stderr);
  }, 120_000);
  afterAll(async () => {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("records the lane the command negotiated in the binding, and pulls it", async () => {
    const state = await reader();
    try {
      const binding = (await state.hostBinding())!;
      expect(binding.lane).toMatch(/^forms\.takoform\.com\/v1(beta1|alpha3)$/);
      const pulled = await run(["state", "pull"]);
      expect(pulled.code, pulled.stderr).toBe(0);
      expect(JSON.parse(pulled.stdout).host.lane).toBe(binding.lane);
    } finally {
      await state.close();
    }
  });

  it("show --json and output --json read the pg state", async () => {
    const shown = await run(["show", "--json"]);
    expect(shown.code, shown.stderr).toBe(0);
    const resources = JSON.parse(shown.stdout).values.root_module.resources as { address: string }[];
    expect(resources.map((r) => r.address).sort()).toEqual([`${Q}.q`, `${KV}.old`]);
    const outputs = await run(["output", "--json"]);
    expect(outputs.code, outputs.stderr).toBe(0);
    expect(JSON.parse(outputs.stdout).kv_uid).toMatchObject({ sensitive: false, type: "string" });
  }, 60_000);

  it("state mv moves the record and the edge naming it in PostgreSQL; the renamed configuration then plans no changes", async () => {
    const before = await reader();
    const serial = await before.serial();
    const uid = (await before.get(`${KV}.old`))!.uid;
    await before.close();
    const moved = await run(["state", "mv", `${KV}.old`, `${KV}.new`]);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toContain(`Move "${KV}.old" to "${KV}.new"`);
    const after = await reader();
    try {
      expect(await after.serial()).toBe(serial + 1);
      expect((await after.list()).map((r) => r.address)).toEqual([`${Q}.q`, `${KV}.new`]);
      expect((await after.get(`${KV}.new`))!.uid).toBe(uid);
      expect((await after.get(`${Q}.q`))!.dependencies).toEqual([`${KV}.new`]);
    } finally {
      await after.close();
    }
    const refused = await run(["state", "mv", `${KV}.old`, `${KV}.other`]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${KV}.old is not in state`);
    writeFileSync(join(dir, "stack.json"), JSON.stringify(stack("new")));
    const planned = await run(["plan", "--detailed-exitcode"]);
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    expect(existsSync(join(dir, ".takoform", "state.db"))).toBe(false);
  }, 90_000);
});
