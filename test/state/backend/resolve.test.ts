// From a stack's backend block and the environment to one state: Terraform's pg environment
// variables and precedence, cdktf's implicit LocalBackend, workspaces, and names that never carry
// a password.

import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { backendIdentity, BackendError, describeBackend, resolveBackend, stateLocation } from "../../../src/state/backend/resolve.ts";
import { redactConnStr } from "../../../src/state/pg/conn-str.ts";

const PROJECT = "/work/project";
const URL_WITH_PASSWORD = "postgresql://deploy:s3cr%40t-pw@db.internal:6432/infra?sslmode=require&application_name=x";

describe("resolveBackend", () => {
  it("keeps a stack's state in its own .takoform/stacks/<stack>/state.db without a backend, and for cdktf's implicit LocalBackend", () => {
    const none = resolveBackend(null, { projectDir: PROJECT, env: {} });
    expect(none).toEqual({ type: "local", path: join(PROJECT, ".takoform", "state.db"), workspace: "default", configuredPath: null, workspaceDir: null });
    const implicit = resolveBackend({ type: "local", path: "/somewhere/else/terraform.demo.tfstate" }, { projectDir: PROJECT, stackName: "demo", env: {} });
    expect(implicit.type === "local" && implicit.path).toBe(join(PROJECT, ".takoform", "stacks", "demo", "state.db"));
    expect(resolveBackend(null, { projectDir: PROJECT, stackName: "api", env: { TAKOFORM_WORKSPACE: "qa" } })).toMatchObject({
      path: join(PROJECT, ".takoform", "stacks", "api", "workspaces", "qa", "state.db"),
    });
    // The stack that owns the project's state from before stacks had their own keeps it.
    const legacy = resolveBackend({ type: "local", path: "/x/terraform.demo.tfstate" }, { projectDir: PROJECT, stackName: "demo", legacy: true, env: {} });
    expect(legacy.type === "local" && legacy.path).toBe(join(PROJECT, ".takoform", "state.db"));
    expect(resolveBackend(null, { projectDir: PROJECT, stackName: "demo", legacy: true, env: { TF_WORKSPACE: "qa" } })).toMatchObject({
      path: join(PROJECT, ".takoform", "workspaces", "qa", "state.db"),
    });
    for (const bad of ["", ".", "..", "a/b", "a\\b", "a\u0000b"])
      expect(() => resolveBackend(null, { projectDir: PROJECT, stackName: bad, env: {} })).toThrow(BackendError);
  });

  it("places states so that two specs name one state exactly when their locations are equal", () => {
    const pg = (connStr: string, env: NodeJS.ProcessEnv = {}) =>
      stateLocation(resolveBackend({ type: "pg", connStr, schemaName: "s" }, { projectDir: PROJECT, env }), env);
    expect(pg("postgres://a:pw1@DB.internal:6432/infra")).toBe(pg("postgresql://b@db.internal:6432/infra?sslmode=require"));
    expect(pg("postgres://a@db.internal/infra")).toBe(pg("postgres://a@db.internal:5432/infra"));
    expect(pg("postgres://a@db.internal/infra")).not.toBe(pg("postgres://a@db.internal/other"));
    expect(pg("", { PGHOST: "db.internal", PGDATABASE: "infra" })).toBe(pg("postgres://x@db.internal/infra"));
    expect(pg("postgres://a@db.internal/infra", { TAKOFORM_WORKSPACE: "qa" })).not.toBe(pg("postgres://a@db.internal/infra"));
    expect(pg("postgres://a:secret-pw@db.internal/infra")).not.toContain("secret-pw");
    const local = (stackName: string, path?: string) =>
      stateLocation(resolveBackend(path === undefined ? null : { type: "local", path }, { projectDir: PROJECT, stackName, env: {} }));
    expect(local("a")).not.toBe(local("b"));
    expect(local("a", "one.db")).toBe(local("b", "one.db"));
  });

  it("uses a LocalBackend path as the state file, and workspace_dir for other workspaces", () => {
    expect(resolveBackend({ type: "local", path: "state/prod.db" }, { projectDir: PROJECT, stackName: "demo", env: {} })).toMatchObject({
      path: join(PROJECT, "state", "prod.db"),
      configuredPath: "state/prod.db",
    });
    expect(
      resolveBackend({ type: "local", path: "state/prod.db", workspaceDir: "envs" }, { projectDir: PROJECT, env: { TAKOFORM_WORKSPACE: "qa" } }),
    ).toMatchObject({ path: join(PROJECT, "envs", "qa", "state.db"), workspace: "qa" });
    expect(resolveBackend(null, { projectDir: PROJECT, env: { TF_WORKSPACE: "qa" } })).toMatchObject({
      path: join(PROJECT, ".takoform", "workspaces", "qa", "state.db"),
    });
  });

  it("takes the pg settings from the stack, else from Terraform's environment variables, else the defaults", () => {
    const env = {
      PG_CONN_STR: "postgres://env@h/db",
      PG_SCHEMA_NAME: "from_env",
      PG_SKIP_SCHEMA_CREATION: "true",
      PG_SKIP_TABLE_CREATION: "0",
      PG_SKIP_INDEX_CREATION: "T",
    };
    expect(
      resolveBackend({ type: "pg", connStr: URL_WITH_PASSWORD, schemaName: "from_stack", skipSchemaCreation: false }, { projectDir: PROJECT, env }),
    ).toEqual({
      type: "pg",
      connStr: URL_WITH_PASSWORD,
      connStrFrom: "conn_str",
      schemaName: "from_stack",
      skipSchemaCreation: false,
      skipTableCreation: false,
      skipIndexCreation: true,
      workspace: "default",
    });
    expect(resolveBackend({ type: "pg" }, { projectDir: PROJECT, env })).toMatchObject({
      connStr: "postgres://env@h/db",
      connStrFrom: "PG_CONN_STR",
      schemaName: "from_env",
      skipSchemaCreation: true,
    });
    expect(resolveBackend({ type: "pg" }, { projectDir: PROJECT, env: {} })).toMatchObject({
      connStr: "",
      connStrFrom: "environment",
      schemaName: "terraform_remote_state",
      skipSchemaCreation: false,
      skipTableCreation: false,
      skipIndexCreation: false,
    });
  });

  it("refuses what it cannot use, never quoting a connection string", () => {
    // libpq's keyword=value form is read (issue 24); one that does not parse is refused unquoted.
    expect(resolveBackend({ type: "pg", connStr: "host=db user=x password=hunter2" }, { projectDir: PROJECT, env: {} })).toMatchObject({ type: "pg" });
    expect(() => resolveBackend({ type: "pg", connStr: "host=db user=x password='hunter2" }, { projectDir: PROJECT, env: {} })).toThrow(BackendError);
    expect(() => resolveBackend({ type: "pg", connStr: "host=db user=x password='hunter2" }, { projectDir: PROJECT, env: {} })).toThrow(
      /^the pg backend's conn_str opens a quoted value of password and never closes it; give a postgres:\/\/ URL .* or keyword=value pairs/,
    );
    try {
      resolveBackend({ type: "pg", connStr: "mysql://u:hunter2@h/db" }, { projectDir: PROJECT, env: {} });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toContain('scheme "mysql:"');
      expect((error as Error).message).not.toContain("hunter2");
    }
    expect(() => resolveBackend({ type: "pg" }, { projectDir: PROJECT, env: { PG_CONN_STR: "nonsense hunter2" } })).toThrow(
      /PG_CONN_STR is neither a URL nor keyword=value pairs/,
    );
    expect(() => resolveBackend({ type: "pg" }, { projectDir: PROJECT, env: { PG_SKIP_TABLE_CREATION: "maybe" } })).toThrow(BackendError);
    expect(() => resolveBackend(null, { projectDir: PROJECT, env: { TAKOFORM_WORKSPACE: "../escape" } })).toThrow(/workspace name/);
  });

  it("names a backend, and records its identity, without the password", () => {
    const spec = resolveBackend({ type: "pg", connStr: URL_WITH_PASSWORD, schemaName: "s" }, { projectDir: PROJECT, env: { TAKOFORM_WORKSPACE: "prod" } });
    const shown = describeBackend(spec, PROJECT);
    expect(shown).toBe('PostgreSQL at postgresql://deploy@db.internal:6432/infra?sslmode=require&application_name=x, schema "s", workspace "prod"');
    const identity = backendIdentity({ type: "pg", connStr: URL_WITH_PASSWORD, schemaName: "s" }, spec);
    expect(identity).toEqual({ type: "pg", conn_str: "postgresql://deploy@db.internal:6432/infra?sslmode=require&application_name=x", schema_name: "s" });
    expect(JSON.stringify([shown, identity])).not.toMatch(/s3cr/);
    expect(redactConnStr("postgres://u@h/db?password=inquery&sslmode=disable")).toBe("postgres://u@h/db?sslmode=disable");
    expect(describeBackend(resolveBackend(null, { projectDir: PROJECT, env: {} }), PROJECT)).toBe("the local state file .takoform/state.db");
  });
});
