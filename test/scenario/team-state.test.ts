// Team state in PostgreSQL, through the command as a team uses it. The worker example with a
// `new PgBackend(this, {...})` line is deployed from one working directory; a second one sees the
// same state; two applies at once are refused cleanly (one proceeds, the other waits up to
// --lock-timeout, then fails naming the holder); an apply killed with kill -9 on "another machine"
// is taken over when its lease expires; workspaces share one schema without seeing each other;
// and the conn_str's password never appears in any output, file takoform writes, plan file or
// state.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPgStateReadOnly } from "../../src/state/index.ts";
import { describePg, dropSchemasAfterAll, freshSchema, PG_PASSWORD_URL, pgUrl, schemaText, urlWithPassword, withClient } from "../support/pg.ts";
import { runCli, spawnCli, startHost, type CliResult, type TestHost } from "./harness.ts";
import { exampleProject } from "../support/node-modules.ts";

const PASSWORD = `pg-pass-${process.pid}-Zq7`;

/** Every file under `dir` (recursively) as text. */
function filesText(dir: string, skip: RegExp): string {
  if (!existsSync(dir)) return "";
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (skip.test(path)) continue;
    out.push(statSync(path).isDirectory() ? filesText(path, skip) : readFileSync(path).toString("latin1"));
  }
  return out.join("\n");
}

/** A copy of examples/worker-app whose stack keeps its state in PostgreSQL. */
function workerProject(schema: string, connStr: string): string {
  const dir = mkdtempSync(join(tmpdir(), "takoform-team-"));
  exampleProject("worker-app", dir, "team");
  const main = join(dir, "main.ts");
  const source = readFileSync(main, "utf8")
    .replace('import { App, TerraformOutput, TerraformStack } from "cdktf";', 'import { App, PgBackend, TerraformOutput, TerraformStack } from "cdktf";')
    .replace(
      "    super(scope, id);\n",
      `    super(scope, id);\n    new PgBackend(this, { connStr: ${JSON.stringify(connStr)}, schemaName: ${JSON.stringify(schema)} });\n`,
    );
  expect(source).toContain("new PgBackend(this, {");
  writeFileSync(main, source);
  return dir;
}

describePg("team state in PostgreSQL, through the command", () => {
  dropSchemasAfterAll();
  let host: TestHost;
  const dirs: string[] = [];
  const outputs: string[] = [];
  beforeAll(async () => {
    host = await startHost();
  });
  afterAll(async () => {
    await host.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const env = () => ({ TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: "takoform-dev-token" });
  const cli = async (dir: string, args: string[], extra: Record<string, string> = {}): Promise<CliResult> => {
    const result = await runCli(args, { cwd: dir, env: { ...env(), ...extra }, timeoutMs: 120_000 });
    outputs.push(result.stdout, result.stderr);
    return result;
  };

  it("deploys the worker example with its state in PostgreSQL; a second working directory sees it; concurrent applies are refused cleanly; the password is nowhere", async () => {
    const schema = freshSchema("worker");
    const connStr = urlWithPassword(PASSWORD);
    const a = workerProject(schema, connStr);
    const b = workerProject(schema, connStr);
    dirs.push(a, b);

    const first = await cli(a, ["apply", "--auto-approve"]);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toContain("Apply complete! Resources: 6 added, 0 changed, 0 destroyed.");
    // The state is in PostgreSQL, and nowhere in the working directory.
    expect(existsSync(join(a, ".takoform", "state.db"))).toBe(false);
    const reader = await openPgStateReadOnly({ connStr: pgUrl(), schemaName: schema });
    const records = await reader.list();
    expect(records).toHaveLength(6);
    expect(records.every((r) => r.status === "ready" && r.uid !== null && r.ref !== null)).toBe(true);
    const serial = await reader.serial();
    await reader.close();

    // The second working directory sees the same state: nothing to change, the same addresses.
    const plan = await cli(b, ["plan", "--detailed-exitcode"]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain("No changes.");
    const listed = await cli(b, ["state", "list"]);
    expect(listed.stdout.trim().split("\n")).toEqual(records.map((r) => r.address));
    const saved = join(b, "saved.plan");
    expect((await cli(b, ["plan", "--out", saved])).code).toBe(0);

    // The same code change in both directories; A's writes are held at the host, so A holds the lock.
    for (const dir of [a, b]) {
      const code = join(dir, "dist", "index.js");
      writeFileSync(code, readFileSync(code, "utf8").replace("request number", "request #"));
    }
    let open!: () => void;
    host.gate = new Promise<void>((resolve) => (open = resolve));
    const applyA = spawnCli(["apply", "--auto-approve"], { cwd: a, env: env(), timeoutMs: 120_000 });
    const holder = await waitForHolder(schema);
    expect(holder.holder).toBe(`takoform apply (pid ${applyA.pid} on ${hostname()})`);

    const refused = await cli(b, ["apply", "--auto-approve", "--lock-timeout", "1s"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("The state is locked by another run");
    expect(refused.stderr).toContain(
      `Lock holder: "takoform apply (pid ${applyA.pid} on ${hostname()})", pid ${applyA.pid} on host ${hostname()}, since ${new Date(holder.acquiredAt).toISOString()}`,
    );
    expect(refused.stderr).toContain("This run waited 1s (--lock-timeout) and that run still holds a live lease");
    expect(refused.stdout).not.toContain("Apply complete");

    // A patient one waits for A, then proceeds: A already made the change, so it finds none.
    const waiting = spawnCli(["apply", "--auto-approve", "--lock-timeout", "120s"], { cwd: b, env: env(), timeoutMs: 120_000 });
    open();
    host.gate = null;
    const doneA = await applyA.done;
    outputs.push(doneA.stdout, doneA.stderr);
    expect(doneA.code, doneA.stdout + doneA.stderr).toBe(0);
    expect(doneA.stdout).toContain("Apply complete! Resources: 2 added, 1 changed, 2 destroyed.");
    const doneB = await waiting.done;
    outputs.push(doneB.stdout, doneB.stderr);
    expect(doneB.code, doneB.stdout + doneB.stderr).toBe(0);
    expect(doneB.stdout).toContain("No changes.");

    // The plan saved before A's apply is refused: the state moved.
    const stale = await cli(b, ["apply", saved]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain("The saved plan is stale: state changed since it was made");

    // Nothing takoform wrote or printed holds the password: outputs, .takoform/, the plan file, the state.
    const state = await schemaText(schema);
    expect(state).toContain(records[0]!.address); // the grep reads the real tables
    for (const dir of [a, b]) expect(filesText(join(dir, ".takoform"), /$^/)).not.toContain(PASSWORD);
    expect(readFileSync(saved, "utf8")).not.toContain(PASSWORD);
    expect(readFileSync(saved, "utf8")).toContain(schema); // the plan file names the backend, without the password
    expect(state).not.toContain(PASSWORD);
    expect(outputs.join("\n")).not.toContain(PASSWORD);
    // …while the synthesized stack the user's app wrote does hold it (the grep would see it).
    expect(filesText(join(a, "cdktf.out"), /$^/)).toContain(PASSWORD);
    expect(serial).toBeGreaterThan(0);
  }, 240_000);

  it("a run killed with kill -9 on another machine is taken over when its lease expires, and its write is finished", async () => {
    const schema = freshSchema("kill");
    const dir = mkdtempSync(join(tmpdir(), "takoform-team-"));
    dirs.push(dir);
    const stack = (name: string) => ({
      terraform: { backend: { pg: { conn_str: pgUrl(), schema_name: schema } } },
      resource: { takoform_edge_kv_namespace: { a: { name: `${name}-a` }, b: { name: `${name}-b` } } },
    });
    writeFileSync(join(dir, "stack.json"), JSON.stringify(stack("kill")));
    const killed = await cli(dir, ["apply", "--config", "stack.json", "--auto-approve"], { TAKOFORM_TEST_CRASH_AFTER_INTENTS: "1", TAKOFORM_LOCK_LEASE: "3s" });
    expect(killed.signal).toBe("SIGKILL");
    // As if that run had been on another machine: its pid cannot be checked from here. Its lease
    // is set an hour out, so the next run meets it held however slowly that run starts.
    const leaseEndsIn = (ms: number) =>
      withClient((client) =>
        client.query(`UPDATE "${schema}".takoform_states SET lock_expires_at = (extract(epoch from clock_timestamp()) * 1000)::bigint + $1::bigint`, [ms]),
      );
    await withClient((client) => client.query(`UPDATE "${schema}".takoform_states SET lock_hostname = 'build-agent-7'`));
    await leaseEndsIn(3_600_000);

    const refused = await cli(dir, ["apply", "--config", "stack.json", "--auto-approve"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("on host build-agent-7");
    expect(refused.stderr).toContain("wait for it with --lock-timeout");

    // Its lease now ends in 3 s: a run that waits takes it over then.
    await leaseEndsIn(3_000);
    const recovered = await cli(dir, ["apply", "--config", "stack.json", "--auto-approve", "--lock-timeout", "60s"]);
    expect(recovered.code, recovered.stdout + recovered.stderr).toBe(0);
    expect(recovered.stderr).toContain("Took over the state lock of a run whose lease expired");
    expect(recovered.stderr).toContain("build-agent-7");
    expect(recovered.stdout).toContain("write(s) an interrupted apply had left unfinished were resolved first");
    const reader = await openPgStateReadOnly({ connStr: pgUrl(), schemaName: schema });
    expect((await reader.list()).map((r) => `${r.address}:${r.status}`)).toEqual(["takoform_edge_kv_namespace.a:ready", "takoform_edge_kv_namespace.b:ready"]);
    await reader.close();
    expect(host.host.controls.resourceCount()).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it("workspaces share one schema without seeing each other's records", async () => {
    const schema = freshSchema("ws");
    const dir = mkdtempSync(join(tmpdir(), "takoform-team-"));
    dirs.push(dir);
    const stack = (name: string) => ({
      terraform: { backend: { pg: { conn_str: pgUrl(), schema_name: schema } } },
      resource: { takoform_edge_kv_namespace: { [name]: { name: `ws-${name}` } } },
    });
    writeFileSync(join(dir, "staging.json"), JSON.stringify(stack("staging")));
    writeFileSync(join(dir, "prod.json"), JSON.stringify(stack("prod")));
    expect((await cli(dir, ["apply", "--config", "staging.json", "--auto-approve"], { TAKOFORM_WORKSPACE: "staging" })).code).toBe(0);
    expect((await cli(dir, ["apply", "--config", "prod.json", "--auto-approve"], { TF_WORKSPACE: "prod" })).code).toBe(0);
    expect((await cli(dir, ["state", "list", "--config", "staging.json"], { TAKOFORM_WORKSPACE: "staging" })).stdout.trim()).toBe(
      "takoform_edge_kv_namespace.staging",
    );
    expect((await cli(dir, ["state", "list", "--config", "prod.json"], { TAKOFORM_WORKSPACE: "prod" })).stdout.trim()).toBe("takoform_edge_kv_namespace.prod");
    // The default workspace of the same schema holds nothing.
    const none = await cli(dir, ["state", "list", "--config", "prod.json"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("No state: nothing has been applied in this project yet (PostgreSQL at");
    const rows = await withClient((client) => client.query(`SELECT name FROM "${schema}".takoform_states ORDER BY name`));
    expect(rows.rows.map((r: { name: string }) => r.name)).toEqual(["prod", "staging"]);
    // Destroying one workspace leaves the other's object alone.
    expect((await cli(dir, ["destroy", "--config", "staging.json", "--auto-approve"], { TAKOFORM_WORKSPACE: "staging" })).code).toBe(0);
    const prod = await cli(dir, ["plan", "--config", "prod.json", "--detailed-exitcode"], { TAKOFORM_WORKSPACE: "prod" });
    expect(prod.code, prod.stdout + prod.stderr).toBe(0);
  }, 120_000);
});

describe.skipIf(PG_PASSWORD_URL === null)("a conn_str whose server checks the password", () => {
  dropSchemasAfterAll();
  let host: TestHost;
  let dir: string;
  beforeAll(async () => {
    host = await startHost();
    dir = mkdtempSync(join(tmpdir(), "takoform-team-"));
  });
  afterAll(async () => {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("logs in with it; a saved plan carries no password and applies with the one of the stack file it was made from, else PGPASSWORD", async () => {
    const url = new URL(PG_PASSWORD_URL!);
    const password = decodeURIComponent(url.password);
    const schema = freshSchema("pw");
    const env = { TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: "takoform-dev-token" };
    const stack = (names: string[]) =>
      JSON.stringify({
        terraform: { backend: { pg: { conn_str: url.toString(), schema_name: schema } } },
        resource: { takoform_edge_kv_namespace: Object.fromEntries(names.map((n) => [n, { name: `pw-${n}` }])) },
      });
    const seen: string[] = [];
    const run = async (args: string[], extra: Record<string, string> = {}) => {
      // Well under the server's 60 s authentication_timeout: a refused login must not hold the command open.
      const result = await runCli(args, { cwd: dir, env: { ...env, ...extra }, timeoutMs: 45_000 });
      seen.push(result.stdout, result.stderr);
      return result;
    };
    writeFileSync(join(dir, "stack.json"), stack(["a"]));
    expect((await run(["plan", "--config", "stack.json", "--out", "first.plan"])).code).toBe(0);
    expect(readFileSync(join(dir, "first.plan"), "utf8")).not.toContain(password);
    const applied = await run(["apply", "first.plan"]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain("Apply complete! Resources: 1 added");

    // The stack file is gone: the plan's own copy has no password, and the server refuses the login…
    writeFileSync(join(dir, "stack.json"), stack(["a", "b"]));
    expect((await run(["plan", "--config", "stack.json", "--out", "second.plan"])).code).toBe(0);
    rmSync(join(dir, "stack.json"));
    const refused = await run(["apply", "second.plan"]);
    expect(refused.signal).toBeNull(); // it exited by itself
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Cannot open the state in PostgreSQL at postgresql://${url.username}@127.0.0.1:${url.port}/postgres`);
    expect(refused.stderr).toContain("PGPASSWORD");
    // …until PGPASSWORD gives it.
    const withEnv = await run(["apply", "second.plan"], { PGPASSWORD: password });
    expect(withEnv.code, withEnv.stdout + withEnv.stderr).toBe(0);
    expect(withEnv.stdout).toContain("Apply complete! Resources: 1 added");

    // A wrong password is refused by the server, and the right one is never shown.
    writeFileSync(join(dir, "wrong.json"), stack(["a", "b"]).replace(encodeURIComponent(password), "not-the-password"));
    const wrong = await run(["plan", "--config", "wrong.json"]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("password authentication failed");
    expect(seen.join("\n")).not.toContain(password);
    expect(seen.join("\n")).not.toContain("not-the-password");
    expect(await schemaText(schema)).not.toContain(password);
  }, 120_000);
});

describe("backends the command does not have", () => {
  it("are refused at plan, naming the type and the supported ones; nothing is written", async () => {
    const dir = mkdtempSync(join(tmpdir(), "takoform-team-"));
    try {
      writeFileSync(
        join(dir, "stack.json"),
        JSON.stringify({ terraform: { backend: { s3: { bucket: "b", key: "k" } } }, resource: { takoform_edge_kv_namespace: { a: { name: "s3-a" } } } }),
      );
      const planned = await runCli(["plan", "--config", "stack.json"], { cwd: dir });
      expect(planned.code).toBe(1);
      expect(planned.stderr).toContain('The "s3" backend is not supported');
      expect(planned.stderr).toContain('"local" and "pg"');
      expect(planned.stderr).toContain("takoform.config/backend-unsupported");
      expect(existsSync(join(dir, ".takoform"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("a PostgreSQL server that cannot be reached", () => {
  it("is named without its password, with what to check; nothing is planned", async () => {
    const dir = mkdtempSync(join(tmpdir(), "takoform-team-"));
    try {
      const secret = "unreachable-pw-Qx9";
      writeFileSync(
        join(dir, "stack.json"),
        JSON.stringify({
          terraform: { backend: { pg: { conn_str: `postgres://deploy:${secret}@127.0.0.1:1/infra` } } },
          resource: { takoform_edge_kv_namespace: { a: { name: "down-a" } } },
        }),
      );
      const planned = await runCli(["plan", "--config", "stack.json"], { cwd: dir });
      expect(planned.code).toBe(1);
      expect(planned.stderr).toContain(
        'Cannot open the state in PostgreSQL at postgres://deploy@127.0.0.1:1/infra, schema "terraform_remote_state", workspace "default"',
      );
      expect(planned.stderr).toContain("takoform.engine/backend-unavailable");
      expect(planned.stderr).toContain("ECONNREFUSED");
      expect(planned.stderr).toContain("PGPASSWORD");
      expect(planned.stdout).not.toContain("Plan:");
      expect(planned.stdout + planned.stderr).not.toContain(secret);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

async function waitForHolder(schema: string): Promise<{ holder: string; acquiredAt: number }> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const row = await withClient((client) =>
      client.query(`SELECT lock_holder, lock_acquired_at FROM "${schema}".takoform_states WHERE name = 'default'`),
    ).catch(() => ({ rows: [] as { lock_holder: string | null; lock_acquired_at: string }[] }));
    const found = row.rows[0] as { lock_holder: string | null; lock_acquired_at: string } | undefined;
    if (found?.lock_holder) return { holder: found.lock_holder, acquiredAt: Number(found.lock_acquired_at) };
    if (Date.now() > deadline) throw new Error("the first apply never took the lock");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
