// `terraform.backend` as cdktf (and its fork cdktn) writes it: LocalBackend and PgBackend are read
// (snake_case members, literal values), any other backend type is refused naming it and the
// supported ones, and no message ever shows a conn_str.

import { describe, expect, it } from "vitest";
import * as cdktf from "cdktf";
import * as cdktn from "cdktn";
import { S3Backend, type TerraformStack } from "cdktf";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadStackConfig } from "../../../src/engine/config/load.ts";

const SECRET = "postgres://ops:hunter2-db@db.example:5432/state";

function load(terraform: unknown) {
  return loadStackConfig(JSON.stringify({ terraform, resource: { takoform_edge_kv_namespace: { a: { name: "a" } } } }));
}

/** What cdktf (or `lib`) synthesizes for a stack with `build` applied. */
function synth(build: (stack: TerraformStack) => void, lib: typeof cdktf = cdktf): string {
  const outdir = mkdtempSync(join(tmpdir(), "takoform-backend-synth-"));
  try {
    const app = new lib.App({ outdir });
    const stack = new lib.TerraformStack(app, "demo");
    build(stack);
    app.synth();
    return readFileSync(join(outdir, "stacks", "demo", "cdk.tf.json"), "utf8");
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

describe("terraform.backend", () => {
  for (const [name, lib] of [
    ["cdktf", cdktf],
    ["cdktn", cdktn as unknown as typeof cdktf],
  ] as const) {
    it(`reads what ${name}'s PgBackend synthesizes`, () => {
      const text = synth(
        (stack) =>
          new lib.PgBackend(stack, { connStr: SECRET, schemaName: "team_state", skipSchemaCreation: true, skipTableCreation: false, skipIndexCreation: true }),
        lib,
      );
      const loaded = loadStackConfig(text);
      expect(loaded.diagnostics).toEqual([]);
      expect(loaded.config!.backend).toEqual({
        type: "pg",
        connStr: SECRET,
        schemaName: "team_state",
        skipSchemaCreation: true,
        skipTableCreation: false,
        skipIndexCreation: true,
      });
    });

    it(`reads what ${name}'s LocalBackend synthesizes, and the LocalBackend it adds to every stack that names none`, () => {
      const explicit = loadStackConfig(synth((stack) => new lib.LocalBackend(stack, { path: "state/prod.db", workspaceDir: "envs" }), lib));
      expect(explicit.config!.backend).toEqual({ type: "local", path: "state/prod.db", workspaceDir: "envs" });
      const implicit = loadStackConfig(synth(() => undefined, lib));
      expect(implicit.diagnostics).toEqual([]);
      expect(implicit.config!.backend).toEqual({ type: "local", path: join(process.cwd(), "terraform.demo.tfstate") });
      expect(implicit.config!.stackName).toBe("demo");
    });
  }

  it("refuses any other backend type, naming it and the supported ones", () => {
    const loaded = loadStackConfig(synth((stack) => new S3Backend(stack, { bucket: "b", key: "k", region: "eu-west-1" })));
    expect(loaded.config).toBeNull();
    expect(loaded.diagnostics).toEqual([
      expect.objectContaining({
        severity: "error",
        code: "takoform.config/backend-unsupported",
        summary: 'The "s3" backend is not supported',
        attribute: "terraform.backend.s3",
      }),
    ]);
    expect(loaded.diagnostics[0]!.detail).toContain('"local" and "pg"');
  });

  it("refuses unknown settings, wrong types and expressions, without ever showing a conn_str", () => {
    const cases: [unknown, string][] = [
      [{ backend: { pg: { conn_str: SECRET, password: "x" } } }, 'The pg backend has no setting "password"'],
      [{ backend: { pg: { conn_str: SECRET, skip_table_creation: "yes" } } }, "The pg backend's skip_table_creation must be a boolean"],
      [{ backend: { pg: { conn_str: 42 } } }, "The pg backend's conn_str must be a string"],
      [{ backend: { pg: { conn_str: "postgres://u:${var.pw}@h/db" } } }, "The pg backend's conn_str refers to something to evaluate"],
      [{ backend: { local: {}, pg: {} } }, "terraform.backend must name exactly one backend"],
    ];
    for (const [terraform, summary] of cases) {
      const loaded = load(terraform);
      expect(loaded.config, summary).toBeNull();
      expect(
        loaded.diagnostics.some((d) => d.summary.startsWith(summary) && d.code === "takoform.config/backend-invalid"),
        `${summary}: ${JSON.stringify(loaded.diagnostics)}`,
      ).toBe(true);
      const text = JSON.stringify(loaded.diagnostics);
      expect(text).not.toContain("hunter2-db");
      expect(text).not.toContain("${var.pw}");
    }
  });

  it("a stack with no backend at all has none (the default local file)", () => {
    const loaded = loadStackConfig(JSON.stringify({ resource: { takoform_edge_kv_namespace: { a: { name: "a" } } } }));
    expect(loaded.config!.backend).toBeUndefined();
  });
});
