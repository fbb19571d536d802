// Issue 24, item 2, through the command against a real PostgreSQL server on a Unix socket that
// asks the deploy role for its password (scram-sha-256 on the socket): the conn_str forms libpq
// documents — an empty host with the socket directory as a parameter, a percent-encoded socket
// path as the host (with the user and password from PGUSER/PGPASSWORD, and in the URL), and the
// keyword=value form with libpq's quoting — each reach the same state: the first applies, every
// other sees exactly that state (no changes, the same addresses). A missing password is refused by
// the server. The password, which has a space, a quote, a backslash, an @, a : and a /, appears in
// no output, no file takoform writes, no plan file and no table.

import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPgBin, startPgCluster, type PgCluster } from "../support/pg-cluster.ts";
import { runCli, Scratch, startHost, type CliResult, type TestHost } from "./harness.ts";

const PASSWORD = `De pl'oy\\@:/${process.pid}`;
const KV = "takoform_edge_kv_namespace";
const SCHEMA = "takoform_forms";

/** libpq's quoting of a keyword value: single quotes, with \ and ' escaped by a backslash. */
const quoted = (value: string): string => `'${value.replace(/[\\']/g, (c) => `\\${c}`)}'`;

function filesText(dir: string): string {
  if (!existsSync(dir)) return "";
  return readdirSync(dir)
    .map((entry) => join(dir, entry))
    .map((path) => (statSync(path).isDirectory() ? filesText(path) : readFileSync(path).toString("latin1")))
    .join("\n");
}

// Without the server binaries the pg tests skip (pg-global.ts); under CI the cluster's start fails instead.
describe.skipIf(findPgBin() === null && process.env["CI"] !== "true")("conn_str forms on a Unix socket, through the command", () => {
  let cluster: PgCluster;
  let host: TestHost;
  const scratches: Scratch[] = [];
  const outputs: string[] = [];
  beforeAll(async () => {
    cluster = startPgCluster();
    const admin = new pg.Client({ host: cluster.dir, user: "postgres", database: "postgres" });
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE deploy LOGIN PASSWORD '${PASSWORD.replace(/'/g, "''")}'`);
      await admin.query("CREATE DATABASE infra OWNER deploy");
      // The superuser keeps its trusted socket login (for these checks); deploy must give its password.
      writeFileSync(join(cluster.dir, "data", "pg_hba.conf"), "local all postgres trust\nlocal all all scram-sha-256\n");
      await admin.query("SELECT pg_reload_conf()");
    } finally {
      await admin.end();
    }
    host = await startHost();
  }, 120_000);
  afterAll(async () => {
    await host?.close();
    cluster?.stop();
    for (const s of scratches) s.cleanup();
  });

  /** A working directory whose stack keeps its state in `connStr` (or in PG_CONN_STR when `viaEnv`). */
  const project = (connStr: string, viaEnv = false): { dir: string; cli: (args: string[], env?: Record<string, string>) => Promise<CliResult> } => {
    const scratch = new Scratch();
    scratches.push(scratch);
    const backend = viaEnv ? { schema_name: SCHEMA } : { conn_str: connStr, schema_name: SCHEMA };
    scratch.write("stack.json", JSON.stringify({ terraform: { backend: { pg: backend } }, resource: { [KV]: { cache: { name: "conn-forms-cache" } } } }));
    return {
      dir: scratch.dir,
      cli: async (args, env = {}) => {
        const result = await runCli([...args, "--config", "stack.json"], {
          cwd: scratch.dir,
          env: {
            TAKOFORM_ENDPOINT: host.url,
            TAKOFORM_TOKEN: "takoform-dev-token",
            PGUSER: undefined,
            PGPASSWORD: undefined,
            PGHOST: undefined,
            ...(viaEnv ? { PG_CONN_STR: connStr } : {}),
            ...env,
          },
          timeoutMs: 120_000,
        });
        outputs.push(result.stdout, result.stderr);
        return result;
      },
    };
  };

  it("each form reaches the same state; the password is used, and is nowhere", async () => {
    const socket = encodeURIComponent(cluster.dir);
    const pw = encodeURIComponent(PASSWORD);
    const first = project(`postgres://deploy:${pw}@/infra?host=${cluster.dir}`);
    const applied = await first.cli(["apply", "--auto-approve"]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain("Apply complete! Resources: 1 added, 0 changed, 0 destroyed.");

    const others: [string, ReturnType<typeof project>, Record<string, string>][] = [
      ["a percent-encoded socket path as the host", project(`postgresql://deploy:${pw}@${socket}/infra`), {}],
      ["the same, user and password from PGUSER and PGPASSWORD", project(`postgresql://${socket}/infra`), { PGUSER: "deploy", PGPASSWORD: PASSWORD }],
      ["keyword=value pairs with libpq's quoting", project(`host=${quoted(cluster.dir)} dbname=infra user=deploy password=${quoted(PASSWORD)}`), {}],
      ["keyword=value pairs from PG_CONN_STR", project(`host=${cluster.dir}  user = deploy dbname=infra password=${quoted(PASSWORD)}`, true), {}],
    ];
    for (const [what, p, env] of others) {
      const planned = await p.cli(["plan", "--detailed-exitcode"], env);
      expect(planned.code, `${what}: ${planned.stdout}${planned.stderr}`).toBe(0);
      expect(planned.stdout, what).toContain("No changes.");
      const listed = await p.cli(["state", "list"], env);
      expect(listed.stdout.trim().split("\n"), what).toEqual([`${KV}.cache`]);
    }
    const saved = join(others[2]![1].dir, "saved.plan");
    expect((await others[2]![1].cli(["plan", "--out", saved])).code).toBe(0);

    // The server does ask: without a password the login is refused, and the run says so.
    const bare = project(`host=${cluster.dir} dbname=infra user=deploy`);
    const refused = await bare.cli(["plan"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/password/i);

    const spellings = [PASSWORD, pw, quoted(PASSWORD).slice(1, -1), "pl'oy"];
    const admin = new pg.Client({ host: cluster.dir, user: "postgres", database: "infra" });
    await admin.connect();
    let tables = "";
    try {
      for (const table of ["takoform_states", "takoform_resources", "takoform_outputs"])
        tables += JSON.stringify((await admin.query(`SELECT * FROM ${SCHEMA}.${table}`)).rows);
    } finally {
      await admin.end();
    }
    expect(tables).toContain("conn-forms-cache");
    for (const spelling of spellings) {
      expect(outputs.join("\n"), spelling).not.toContain(spelling);
      expect(readFileSync(saved, "latin1"), spelling).not.toContain(spelling);
      expect(tables, spelling).not.toContain(spelling);
      for (const s of scratches) expect(filesText(join(s.dir, ".takoform")), spelling).not.toContain(spelling);
    }
  }, 300_000);
});
