// Hand-written Terraform JSON for every construct the engine refuses: each must yield an error
// diagnostic naming the block or argument (and the resource address where there is one), saying
// why and what to do — and no config.

import { tmpdir } from "node:os";
import { describe, it, expect } from "vitest";
import type { Diagnostic } from "../../../src/core/index.ts";
import { loadConfigFile, loadStackConfig } from "../../../src/engine/config/index.ts";

const worker = (extra: Record<string, unknown> = {}) => ({ name: "w", ...extra });

function stack(extra: Record<string, unknown>, resources: Record<string, unknown> = { api: worker() }) {
  return { provider: { takoform: [{}] }, resource: { takoform_module_worker: resources }, ...extra };
}

function refused(document: unknown): Diagnostic[] {
  const loaded = loadStackConfig(JSON.stringify(document));
  expect(loaded.config).toBeNull();
  const errors = loaded.diagnostics.filter((d) => d.severity === "error");
  expect(errors.length).toBeGreaterThan(0);
  for (const error of errors) {
    expect(error.code).toMatch(/^takoform\.config\//);
    expect(error.repair, `repair of "${error.summary}"`).toBeTruthy();
  }
  return errors;
}

describe("top-level blocks", () => {
  const blocks: [string, unknown, RegExp][] = [
    ["data", { takoform_thing: { x: { name: "x" } } }, /reads one kind only, terraform_remote_state/],
    ["locals", { a: "b" }, /TypeScript constant/],
    ["module", { m: { source: "./m" } }, /constructs/],
    ["check", { c: { assert: [] } }, /assertions/],
    ["ephemeral", {}, /Unknown top-level block/],
  ];
  for (const [name, body, reason] of blocks) {
    it(`refuses \`${name}\``, () => {
      const [error] = refused(stack({ [name]: body }));
      expect(error!.code).toBe("takoform.config/unsupported-block");
      expect(error!.summary).toContain(name);
      expect(`${error!.summary} ${error!.detail} ${error!.repair}`).toMatch(reason);
    });
  }
});

describe("resource meta-arguments", () => {
  const metas: [string, unknown, RegExp][] = [
    ["count", 2, /one construct per instance/],
    ["for_each", { a: 1 }, /one construct per instance/],
    ["provisioner", [{ "local-exec": { command: "echo" } }], /runs commands on a machine/],
    ["connection", { host: "x" }, /provisioners/],
  ];
  for (const [name, value, reason] of metas) {
    it(`refuses ${name}`, () => {
      const [error] = refused(stack({}, { api: worker({ [name]: value }) }));
      expect(error).toMatchObject({ code: "takoform.config/unsupported-meta-argument", address: "takoform_module_worker.api", attribute: name });
      expect(`${error!.detail} ${error!.repair}`).toMatch(reason);
    });
  }

  it("refuses lifecycle conditions and unknown lifecycle settings", () => {
    const errors = refused(
      stack({}, { api: worker({ lifecycle: { precondition: [{ condition: "${true}", error_message: "x" }], create_before_destroy: "yes" } }) }),
    );
    expect(errors.map((e) => e.attribute).sort()).toEqual(["lifecycle.create_before_destroy", "lifecycle.precondition"]);
    expect(errors.find((e) => e.attribute === "lifecycle.precondition")!.detail).toMatch(/does not evaluate/);
  });

  it("refuses a provider other than takoform and provider aliases", () => {
    const [other] = refused(stack({}, { api: worker({ provider: "aws" }) }));
    expect(other).toMatchObject({ code: "takoform.config/unsupported-provider", address: "takoform_module_worker.api", attribute: "provider" });
    const [alias] = refused(stack({}, { api: worker({ provider: "takoform.secondary" }) }));
    expect(alias!.detail).toMatch(/aliases/);
  });

  it("refuses depends_on entries that are not resource addresses", () => {
    const errors = refused(stack({}, { api: worker({ depends_on: ["data.takoform_x.a", "var.x", "takoform_module_worker.api.name"] }) }));
    expect(errors).toHaveLength(3);
    expect(errors[0]!.code).toBe("takoform.config/unsupported-block");
    expect(errors.every((e) => e.attribute === "depends_on")).toBe(true);
  });

  it("refuses replace_triggered_by entries that are variables or expressions", () => {
    const errors = refused(stack({}, { api: worker({ lifecycle: { replace_triggered_by: ["${var.x}", '${lower("a")}', 3] } }) }));
    expect(errors.map((e) => e.detail ?? "").join(" ")).toMatch(/variable.*function lower\(\).*3/s);
  });
});

describe("expressions", () => {
  const cases: [string, unknown, RegExp][] = [
    ["a function call", '${lower("X")}', /function lower\(\)/],
    ["an operator", "${var.n * 2}", /operator/],
    ["a conditional", '${var.on ? "a" : "b"}', /conditional/],
    ["a local reference", "${local.name}", /Local values/],
    ["a data source reference", "${data.takoform_x.a.name}", /Data sources/],
    ["a template directive", "%{ for x in var.l }${x}%{ endfor }", /directives/],
  ];
  for (const [what, value, reason] of cases) {
    it(`refuses ${what} in an attribute, naming the address and the attribute path`, () => {
      const [error] = refused(stack({ variable: { n: {}, on: {}, l: {} } }, { api: worker({ labels: { team: value } }) }));
      expect(error).toMatchObject({ code: "takoform.config/unsupported-expression", address: "takoform_module_worker.api", attribute: "labels.team" });
      expect(`${error!.summary} ${error!.detail}`).toMatch(reason);
    });
  }

  it("refuses references to undeclared resources and variables, and self-references", () => {
    const errors = refused(stack({}, { api: worker({ a: "${takoform_module_worker.ghost.name}", b: "${var.nope}", c: "${takoform_module_worker.api.uid}" }) }));
    expect(errors.map((e) => [e.code, e.attribute])).toEqual([
      ["takoform.config/undeclared-reference", "a"],
      ["takoform.config/undeclared-reference", "b"],
      ["takoform.config/self-reference", "c"],
    ]);
  });

  it("reports every problem of a stack at once", () => {
    const errors = refused(stack({ locals: {} }, { api: worker({ count: 1, x: "${lower(var.a)}" }) }));
    expect(errors).toHaveLength(3);
  });
});

describe("contributions", () => {
  it("refuses malformed contributions, unknown sources and self-contributions", () => {
    const contributions = (list: unknown) => ({ "//": { takoform: { contributions: list } } });
    expect(refused(stack({}, { api: worker(contributions("nope")) }))[0]!.summary).toMatch(/Malformed contributions/);
    expect(refused(stack({}, { api: worker(contributions([{ from: "x", values: {} }])) }))[0]!.detail).toMatch(/not a resource address/);
    expect(refused(stack({}, { api: worker(contributions([{ from: "takoform_module_worker.ghost", values: {} }])) }))[0]!.summary).toMatch(/undeclared source/);
    expect(refused(stack({}, { api: worker(contributions([{ from: "takoform_module_worker.api", values: {} }])) }))[0]!.code).toBe(
      "takoform.config/self-reference",
    );
    expect(refused(stack({}, { api: worker({ "//": { takoform: { contributionz: [] } } }) }))[0]!.detail).toMatch(/contributionz/);
    const [bad] = refused(
      stack(
        {},
        {
          api: worker(),
          b: worker(contributions([{ from: "takoform_module_worker.api", values: { bindings: ["${upper(takoform_module_worker.api.name)}"] } }])),
        },
      ),
    );
    expect(bad).toMatchObject({ address: "takoform_module_worker.b", attribute: "bindings[0]" });
  });
});

describe("provider, variables, outputs and imports", () => {
  it("refuses other providers, several takoform configurations, unknown arguments and resource references", () => {
    expect(refused(stack({ provider: { aws: [{}] } }))[0]!.summary).toMatch(/"aws" is not supported/);
    expect(refused(stack({ provider: { takoform: [{}, { alias: "b" }] } }))[0]!.summary).toMatch(/configured 2 times/);
    expect(refused(stack({ provider: { takoform: [{ alias: "x" }] } }))[0]!.detail).toMatch(/aliases/);
    expect(refused(stack({ provider: { takoform: [{ endpoint: "${takoform_module_worker.api.name}" }] } }))[0]!.summary).toMatch(/refers to a resource/);
  });

  it("refuses variable validation, bad types and defaults that do not convert", () => {
    const errors = refused(
      stack({
        variable: {
          v: { type: "string", validation: [{ condition: "${length(var.v) > 1}", error_message: "x" }] },
          t: { type: "list(strin)" },
          d: { type: "number", default: "many" },
          n: { type: "string", default: null, nullable: false },
        },
      }),
    );
    expect(errors.map((e) => e.summary)).toEqual([
      'variable "d": the default does not match the type number',
      'variable "n": the default is null but nullable is false',
      'variable "t": the type cannot be read',
      'variable "v" sets validation, which is not supported',
    ]);
  });

  it("refuses output preconditions and undeclared references in outputs", () => {
    const errors = refused(stack({ output: { a: { value: "${takoform_module_worker.ghost.uid}", precondition: [] } } }));
    expect(errors.map((e) => e.code).sort()).toEqual(["takoform.config/undeclared-reference", "takoform.config/unsupported-meta-argument"]);
  });

  it("refuses imports into undeclared resources, duplicate imports and computed ids", () => {
    expect(refused(stack({ import: [{ to: "takoform_module_worker.ghost", id: "x" }] }))[0]!.summary).toMatch(/not declared/);
    expect(
      refused(
        stack({
          import: [
            { to: "takoform_module_worker.api", id: "a" },
            { to: "takoform_module_worker.api", id: "b" },
          ],
        }),
      )[0]!.summary,
    ).toMatch(/imported twice/);
    expect(refused(stack({ import: [{ to: "takoform_module_worker.api", id: "${takoform_module_worker.api.uid}" }] }))[0]!.summary).toMatch(
      /only literals and variables/,
    );
    expect(refused(stack({ import: [{ to: "takoform_module_worker.api", id: "" }] }))[0]!.summary).toMatch(/non-empty string/);
  });

  it("accepts an import id built from a variable", () => {
    const loaded = loadStackConfig(
      JSON.stringify(stack({ variable: { space: { default: "prod" } }, import: [{ to: "takoform_module_worker.api", id: "${var.space}/api" }] })),
    );
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.config!.imports[0]!.id.kind).toBe("template");
  });
});

describe("what is accepted or only warned about", () => {
  it("reads the backend, ignores required_providers and required_version silently, and warns about other terraform settings", () => {
    const loaded = loadStackConfig(
      JSON.stringify(
        stack({
          terraform: { backend: { local: { path: "/abs/x.tfstate" } }, required_providers: { takoform: { source: "x" } }, required_version: ">=1", cloud: {} },
        }),
      ),
    );
    expect(loaded.config).not.toBeNull();
    expect(loaded.config!.backend).toEqual({ type: "local", path: "/abs/x.tfstate" });
    expect(loaded.diagnostics).toHaveLength(1);
    expect(loaded.diagnostics[0]).toMatchObject({ severity: "warning", code: "takoform.config/ignored-setting", summary: "terraform.cloud is ignored" });
  });

  it("accepts hand-written depends_on with ${} and bare replace_triggered_by traversals", () => {
    const loaded = loadStackConfig(
      JSON.stringify(
        stack(
          {},
          {
            a: worker(),
            b: worker({
              depends_on: ["${takoform_module_worker.a}"],
              lifecycle: { replace_triggered_by: ["takoform_module_worker.a.name"], ignore_changes: "all" },
            }),
          },
        ),
      ),
    );
    expect(loaded.diagnostics).toEqual([]);
    const b = loaded.config!.resources.get("takoform_module_worker.b")!;
    expect(b.dependsOn).toEqual(["takoform_module_worker.a"]);
    expect(b.lifecycle.replaceTriggeredBy[0]).toMatchObject({ address: "takoform_module_worker.a", path: ["name"] });
    expect(b.lifecycle.ignoreChanges).toBe("all");
  });

  it("reports invalid JSON, non-object documents and unreadable files", async () => {
    expect(loadStackConfig("{ nope").diagnostics[0]).toMatchObject({ code: "takoform.config/invalid-json" });
    expect(loadStackConfig("[]").diagnostics[0]).toMatchObject({ code: "takoform.config/invalid-structure" });
    const missing = await loadConfigFile("/nonexistent/cdk.tf.json");
    expect(missing.config).toBeNull();
    // A missing file is file-not-found, not invalid-json (issue 14); another read failure is file-unreadable.
    expect(missing.diagnostics[0]).toMatchObject({
      code: "takoform.config/file-not-found",
      summary: "The configuration file /nonexistent/cdk.tf.json does not exist",
    });
    const directory = await loadConfigFile(tmpdir());
    expect(directory.diagnostics[0]).toMatchObject({ code: "takoform.config/file-unreadable", summary: `Cannot read the configuration file ${tmpdir()}` });
  });
});
