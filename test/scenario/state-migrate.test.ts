// Moving whole states through the command: `state migrate` from the local file to PostgreSQL and
// back, keeping lineage and serial (refused while a write is in flight, and into a target of
// another lineage); a stack whose backend changed is refused until the state is migrated; and
// `state pull` / `state push` on both stores, with Terraform's lineage and serial checks.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLocalStateReadOnly, openPgState, openPgStateReadOnly, type StateDocument } from "../../src/state/index.ts";
import { describePg, dropSchemasAfterAll, freshSchema, pgUrl } from "../support/pg.ts";
import { pgTarget, sqliteTarget, type StoreTarget } from "../state/conformance/target.ts";
import { runCli, startHost, type CliResult, type TestHost } from "./harness.ts";

const KV = "takoform_edge_kv_namespace";

function stackWith(backend: Record<string, unknown> | undefined, names: string[]): string {
  return JSON.stringify({
    ...(backend !== undefined ? { terraform: { backend } } : {}),
    resource: { [KV]: Object.fromEntries(names.map((n) => [n, { name: `mig-${n}` }])) },
    output: { first: { value: `\${${KV}.${names[0]}.uid}` } },
  });
}

describePg("state migrate: local → PostgreSQL → local", () => {
  dropSchemasAfterAll();
  let host: TestHost;
  let dir: string;
  beforeAll(async () => {
    host = await startHost();
    dir = mkdtempSync(join(tmpdir(), "takoform-migrate-"));
  });
  afterAll(async () => {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const env = () => ({ TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: "takoform-dev-token" });
  const cli = (args: string[], extra: Record<string, string> = {}): Promise<CliResult> => runCli(args, { cwd: dir, env: { ...env(), ...extra } });
  const local = async () => {
    const reader = openLocalStateReadOnly(join(dir, ".takoform", "state.db"));
    try {
      return await reader.pull();
    } finally {
      await reader.close();
    }
  };

  it("moves the state there and back with the same lineage and serial, refusing what it must on the way", async () => {
    const schema = freshSchema("mig");
    const pg = { pg: { conn_str: pgUrl(), schema_name: schema } };
    const remote = async () => {
      const reader = await openPgStateReadOnly({ connStr: pgUrl(), schemaName: schema });
      try {
        return await reader.pull();
      } finally {
        await reader.close();
      }
    };

    writeFileSync(join(dir, "stack.json"), stackWith(undefined, ["a", "b"]));
    expect((await cli(["apply", "--config", "stack.json", "--auto-approve"])).code).toBe(0);
    const before = await local();
    expect(before.resources).toHaveLength(2);

    // The stack now names PostgreSQL: every command is refused until the state is moved.
    writeFileSync(join(dir, "stack.json"), stackWith(pg, ["a", "b"]));
    const refused = await cli(["plan", "--config", "stack.json"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("takoform.engine/backend-changed");
    expect(refused.stderr).toContain("State was last used through the local state file .takoform/state.db");
    expect(refused.stderr).toContain("takoform state migrate");

    // A write in flight in the state being moved: refused, naming it.
    writeFileSync(join(dir, "stack.json"), stackWith(undefined, ["a", "b", "c"]));
    const crashed = await cli(["apply", "--config", "stack.json", "--auto-approve"], { TAKOFORM_TEST_CRASH_AFTER_INTENTS: "1" });
    expect(crashed.signal).toBe("SIGKILL");
    writeFileSync(join(dir, "stack.json"), stackWith(pg, ["a", "b", "c"]));
    const inFlight = await cli(["state", "migrate", "--config", "stack.json"]);
    expect(inFlight.code).toBe(1);
    expect(inFlight.stderr).toContain("1 write is in flight in the state being moved");
    expect(inFlight.stderr).toContain(`${KV}.c (creating`);
    writeFileSync(join(dir, "stack.json"), stackWith(undefined, ["a", "b", "c"]));
    expect((await cli(["apply", "--config", "stack.json", "--auto-approve"])).code).toBe(0);
    const settled = await local();
    expect(settled.resources.every((r) => r.intent === null)).toBe(true);

    // Moved: the same lineage, serial, records, outputs and binding.
    writeFileSync(join(dir, "stack.json"), stackWith(pg, ["a", "b", "c"]));
    const moved = await cli(["state", "migrate", "--config", "stack.json"]);
    expect(moved.code, moved.stdout + moved.stderr).toBe(0);
    expect(moved.stdout).toContain(
      `Moved the state (lineage ${settled.lineage}, serial ${settled.serial}, 3 records) from the local state file .takoform/state.db to PostgreSQL at`,
    );
    const there = await remote();
    expect(there).toEqual(settled);
    const plan = await cli(["plan", "--config", "stack.json", "--detailed-exitcode"]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);

    // Work goes on in PostgreSQL.
    writeFileSync(join(dir, "stack.json"), stackWith(pg, ["a", "b", "c", "d"]));
    expect((await cli(["apply", "--config", "stack.json", "--auto-approve"])).code).toBe(0);
    const advanced = await remote();
    expect(advanced.serial).toBeGreaterThan(settled.serial);
    expect((await local()).serial).toBe(settled.serial); // the old copy was left as it was

    // And back: the local copy is of the same lineage and older, so it is brought up to date.
    writeFileSync(join(dir, "stack.json"), stackWith(undefined, ["a", "b", "c", "d"]));
    const back = await cli(["state", "migrate", "--config", "stack.json"]);
    expect(back.code, back.stdout + back.stderr).toBe(0);
    const home = await local();
    expect(home).toEqual(advanced);
    expect(home.lineage).toBe(before.lineage);
    expect((await cli(["plan", "--config", "stack.json", "--detailed-exitcode"])).code).toBe(0);
    const again = await cli(["state", "migrate", "--config", "stack.json"]);
    expect(again.stdout).toContain("The state is already in the local state file .takoform/state.db; nothing to move.");
  }, 180_000);

  it("refuses a target that holds another lineage, and --reconfigure switches without moving anything", async () => {
    const schema = freshSchema("other");
    // Another state already lives in that schema.
    const other = await openPgState({ connStr: pgUrl(), schemaName: schema });
    await other.putResource(`${KV}.foreign`, { type: KV, status: "ready", attributes: { name: "foreign" } });
    const otherLineage = other.lineage;
    await other.close();

    writeFileSync(join(dir, "stack.json"), stackWith({ pg: { conn_str: pgUrl(), schema_name: schema } }, ["a", "b", "c", "d"]));
    const refused = await cli(["state", "migrate", "--config", "stack.json"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("The target backend already holds another state");
    expect(refused.stderr).toContain(`lineage ${otherLineage}`);
    const reader = await openPgStateReadOnly({ connStr: pgUrl(), schemaName: schema });
    expect((await reader.list()).map((r) => r.address)).toEqual([`${KV}.foreign`]);
    await reader.close();

    const reconfigured = await cli(["state", "migrate", "--config", "stack.json", "--reconfigure"]);
    expect(reconfigured.code).toBe(0);
    expect(reconfigured.stdout).toContain("no state was moved");
    const listed = await cli(["state", "list", "--config", "stack.json"]);
    expect(listed.stdout.trim()).toBe(`${KV}.foreign`);
  }, 120_000);
});

function pushPull(target: StoreTarget): void {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "takoform-push-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("lists, shows, pulls and removes; pushes a pulled state back, refusing a lower serial or another lineage unless --force", async () => {
    const place = target.place(dir);
    writeFileSync(join(dir, "stack.json"), stackWith(place.backendBlock(), ["a"]));
    const cli = (args: string[]) => runCli([...args, "--config", "stack.json"], { cwd: dir });
    const store = await place.open();
    await store.putResource(`${KV}.a`, { type: KV, status: "ready", attributes: { name: "mig-a", space: "default", uid: "u-a" } });
    await store.putResource(`${KV}.b`, { type: KV, status: "ready", attributes: { name: "mig-b", space: "default", uid: "u-b" } });
    await store.close();

    const listed = await cli(["state", "list"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.trim().split("\n")).toEqual([`${KV}.a`, `${KV}.b`]);
    const shown = await cli(["state", "show", `${KV}.b`]);
    expect(shown.stdout).toContain(`resource "${KV}" "b" {`);
    expect(shown.stdout).toContain('name  = "mig-b"');

    const pulled = await cli(["state", "pull"]);
    expect(pulled.code, pulled.stderr).toBe(0);
    const document = JSON.parse(pulled.stdout) as StateDocument;
    expect(document.serial).toBe(2);
    writeFileSync(join(dir, "pulled.json"), pulled.stdout);

    const same = await cli(["state", "push", "pulled.json"]);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toContain("already holds this document");

    // The state moves on; the older document is refused, then forced.
    const rm = await cli(["state", "rm", `${KV}.b`]);
    expect(rm.code, rm.stderr).toBe(0);
    const older = await cli(["state", "push", "pulled.json"]);
    expect(older.code).toBe(1);
    expect(older.stderr).toContain("cannot import state with serial 2 over newer state with serial 3");
    const forced = await cli(["state", "push", "pulled.json", "--force"]);
    expect(forced.code, forced.stderr).toBe(0);
    const after = JSON.parse((await cli(["state", "pull"])).stdout) as StateDocument;
    expect(after.resources.map((r) => r.address)).toEqual([`${KV}.a`, `${KV}.b`]);
    expect(after.serial).toBe(4); // past the state's 3: a plan saved before the push is refused
    expect(after.lineage).toBe(document.lineage);

    const foreign = await cli(["state", "push", write(dir, "foreign.json", { ...after, lineage: "00000000-0000-4000-8000-000000000000", serial: 99 })]);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toContain(
      `cannot import state with lineage "00000000-0000-4000-8000-000000000000" over unrelated state with lineage "${document.lineage}"`,
    );
    const broken = await cli(["state", "push", write(dir, "broken.json", { ...after, outputs: { leak: { value: "clear-secret", sensitive: true } } })]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain("output.leak");
    place.cleanup();
  }, 120_000);
}

function write(dir: string, name: string, value: unknown): string {
  writeFileSync(join(dir, name), JSON.stringify(value));
  return name;
}

describe("state pull and push: the local file", () => pushPull(sqliteTarget));
describePg("state pull and push: PostgreSQL", () => {
  dropSchemasAfterAll();
  pushPull(pgTarget);
});
