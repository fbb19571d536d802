// Real cdktf synthesis (App / TerraformStack / TerraformResource / TerraformProvider /
// TerraformOutput / TerraformVariable) read back through the loader.

import { describe, it, expect, afterAll } from "vitest";
import { rmSync } from "node:fs";
import { TerraformOutput, TerraformVariable, Fn } from "cdktf";
import { UNKNOWN, type Value } from "../../../src/core/values.ts";
import {
  configEdges,
  evaluate,
  loadConfigFile,
  loadStackConfig,
  resolveVariables,
  valueAtPath,
  type InterpolationExpr,
  type StackConfig,
} from "../../../src/engine/config/index.ts";
import { buildDependencyGraph, orderGraph } from "../../../src/engine/graph/index.ts";
import { synthStack, TestTakoformProvider, TestWorker } from "./fixtures/constructs.ts";

const outdirs: string[] = [];
afterAll(() => outdirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function synthDemo() {
  const synth = synthStack(
    (stack) => {
      const token = new TerraformVariable(stack, "api_token", { type: "string", sensitive: true, description: "bearer token" });
      const replicas = new TerraformVariable(stack, "replicas", { type: "number", default: 2, nullable: false });
      new TerraformVariable(stack, "tags", { type: "map(string)", default: { team: "edge" } });
      new TestTakoformProvider(stack, "takoform", { endpoint: "http://127.0.0.1:8080", space: "default", token: token.stringValue });
      const api = new TestWorker(stack, "api", {
        name: "api",
        replicas: replicas.numberValue,
        lifecycle: { createBeforeDestroy: true, preventDestroy: true, ignoreChanges: ["replicas"] },
      });
      const auth = new TestWorker(stack, "auth", {
        name: `${api.workerName}-auth`,
        replicas: api.replicas,
        bindings: [{ service: api.workerName, weight: api.replicas }],
        dependsOn: [api],
        lifecycle: { replaceTriggeredBy: [api, api.workerName] },
      });
      // The RFC 0011 cycle: each worker contributes a binding to the other.
      api.contribute(auth, { bindings: [{ service: auth.workerName }] });
      auth.contribute(api, { bindings: [{ service: api.workerName }] });
      auth.importFrom('{"name":"auth","space":"default"}');
      new TerraformOutput(stack, "api_name", { value: api.workerName });
      new TerraformOutput(stack, "auth_uid", { value: auth.uid, sensitive: true });
    },
    { skipValidation: true },
  ); // importFrom adds a validation that shells out to `terraform version`
  outdirs.push(synth.outdir);
  return synth;
}

describe("a real cdktf synthesis", () => {
  const synth = synthDemo();
  const loaded = loadStackConfig(synth.text, { file: synth.file });

  it("loads without diagnostics", () => {
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.config).not.toBeNull();
    expect(loaded.config!.stackName).toBe("demo");
    expect([...loaded.config!.resources.keys()]).toEqual(["takoform_module_worker.api", "takoform_module_worker.auth"]);
  });

  const stack = loaded.config as StackConfig;

  it("reads the resource's own attributes, keeping the construct path for messages", () => {
    const api = stack.resources.get("takoform_module_worker.api")!;
    expect(api.type).toBe("takoform_module_worker");
    expect(api.name).toBe("api");
    expect(api.constructPath).toBe("demo/api");
    expect(api.attributes.name).toEqual({ kind: "literal", value: "api" });
    expect(api.attributes.replicas).toMatchObject({ kind: "variable", name: "replicas" });
    expect(Object.keys(api.attributes).sort()).toEqual(["name", "replicas"]);
    expect(api.lifecycle).toEqual({ createBeforeDestroy: true, preventDestroy: true, ignoreChanges: [["replicas"]], replaceTriggeredBy: [] });
  });

  it("reads references, depends_on and replace_triggered_by", () => {
    const auth = stack.resources.get("takoform_module_worker.auth")!;
    expect(auth.attributes.replicas).toMatchObject({ kind: "reference", address: "takoform_module_worker.api", path: ["replicas"] });
    expect(auth.attributes.name).toMatchObject({ kind: "template" });
    expect(auth.dependsOn).toEqual(["takoform_module_worker.api"]);
    expect(auth.lifecycle.replaceTriggeredBy.map((r) => [r.address, r.path])).toEqual([
      ["takoform_module_worker.api", []],
      ["takoform_module_worker.api", ["name"]],
    ]);
  });

  it("keeps contributions apart from the resource's own configuration", () => {
    const api = stack.resources.get("takoform_module_worker.api")!;
    expect(api.attributes.bindings).toBeUndefined();
    expect(api.contributions).toHaveLength(1);
    expect(api.contributions[0]!.from).toBe("takoform_module_worker.auth");
    expect(api.contributions[0]!.values.bindings).toMatchObject({ kind: "list" });
  });

  it("reads variables, outputs, the provider block and import blocks", () => {
    expect(stack.variables.get("api_token")).toMatchObject({ type: { kind: "string" }, sensitive: true, description: "bearer token", nullable: true });
    expect(stack.variables.get("api_token")!.default).toBeUndefined();
    expect(stack.variables.get("replicas")).toMatchObject({ default: 2, nullable: false });
    expect(stack.variables.get("tags")).toMatchObject({ type: { kind: "map", element: { kind: "string" } }, default: { team: "edge" } });
    expect(stack.outputs.get("auth_uid")).toMatchObject({
      sensitive: true,
      value: { kind: "reference", address: "takoform_module_worker.auth", path: ["uid"] },
    });
    expect(stack.outputs.get("api_name")!.sensitive).toBe(false);
    expect(stack.provider).toEqual({
      endpoint: { kind: "literal", value: "http://127.0.0.1:8080" },
      space: { kind: "literal", value: "default" },
      token: { kind: "variable", name: "api_token", path: [], text: "var.api_token" },
    });
    expect(stack.imports).toEqual([{ to: "takoform_module_worker.auth", id: { kind: "literal", value: '{"name":"auth","space":"default"}' } }]);
    expect(JSON.parse((stack.imports[0]!.id as { value: string }).value)).toEqual({ name: "auth", space: "default" });
  });

  it("evaluates a number reference to a number and an unknown to UNKNOWN", () => {
    const vars = resolveVariables(stack.variables, { env: { TF_VAR_api_token: "tok" } });
    expect(vars.diagnostics).toEqual([]);
    const known: Record<string, Record<string, Value>> = { "takoform_module_worker.api": { name: "api", replicas: 2, uid: UNKNOWN } };
    const resolve = (ref: InterpolationExpr) =>
      ref.kind === "variable" ? valueAtPath(vars.values.get(ref.name), ref.path) : valueAtPath(known[ref.address], ref.path);
    const auth = stack.resources.get("takoform_module_worker.auth")!;
    const attributes = Object.fromEntries(Object.entries(auth.attributes).map(([k, e]) => [k, evaluate(e, resolve)]));
    expect(attributes).toEqual({ name: "api-auth", replicas: 2, bindings: [{ service: "api", weight: 2 }] });
    const contributed = evaluate(stack.resources.get("takoform_module_worker.api")!.contributions[0]!.values.bindings!, (ref) =>
      ref.kind === "reference" && ref.address === "takoform_module_worker.auth" ? UNKNOWN : undefined,
    );
    expect(contributed).toEqual([{ service: UNKNOWN }]);
  });

  it("produces typed edges whose only cycle runs through contributions", () => {
    const edges = configEdges(stack);
    const describe = edges.map((e) => `${e.from}->${e.to}:${e.kind}:${e.attribute}`).sort();
    expect(describe).toEqual([
      "takoform_module_worker.api->takoform_module_worker.auth:contribution:bindings",
      "takoform_module_worker.auth->takoform_module_worker.api:contribution:bindings",
      "takoform_module_worker.auth->takoform_module_worker.api:depends_on:depends_on",
      "takoform_module_worker.auth->takoform_module_worker.api:reference:bindings",
      "takoform_module_worker.auth->takoform_module_worker.api:reference:lifecycle.replace_triggered_by",
      "takoform_module_worker.auth->takoform_module_worker.api:reference:name",
      "takoform_module_worker.auth->takoform_module_worker.api:reference:replicas",
    ]);
    const graph = buildDependencyGraph(stack.resources.keys(), edges);
    expect(orderGraph(graph, "apply").groups).toEqual([{ addresses: ["takoform_module_worker.api", "takoform_module_worker.auth"], cyclic: true }]);
    // Without contribution edges the configuration is a plain chain: api before auth.
    const contribution = 2;
    expect(orderGraph(graph, "apply", (e) => graph.edgeKind[e] !== contribution).groups.map((g) => g.addresses)).toEqual([
      ["takoform_module_worker.api"],
      ["takoform_module_worker.auth"],
    ]);
  });

  it("loads the same stack from its file", async () => {
    const fromFile = await loadConfigFile(synth.file);
    expect(fromFile.diagnostics).toEqual([]);
    expect(fromFile.config!.file).toBe(synth.file);
    expect([...fromFile.config!.resources.keys()]).toEqual([...stack.resources.keys()]);
  });
});

describe("cdktf features the engine refuses, synthesized for real", () => {
  it("refuses Fn.* calls with the resource address and attribute", () => {
    const synth = synthStack((stack) => {
      new TestTakoformProvider(stack, "takoform");
      const api = new TestWorker(stack, "api", { name: "api" });
      new TestWorker(stack, "low", { name: Fn.lower(api.workerName) });
    });
    outdirs.push(synth.outdir);
    const loaded = loadStackConfig(synth.text);
    expect(loaded.config).toBeNull();
    expect(loaded.diagnostics).toHaveLength(1);
    expect(loaded.diagnostics[0]).toMatchObject({
      severity: "error",
      code: "takoform.config/unsupported-expression",
      address: "takoform_module_worker.low",
      attribute: "name",
    });
    expect(loaded.diagnostics[0]!.summary).toContain("takoform_module_worker.low (construct demo/low)");
    expect(loaded.diagnostics[0]!.detail).toContain("function lower()");
  });

  it("refuses count with a repair that says to loop in TypeScript", () => {
    const synth = synthStack((stack) => {
      new TestTakoformProvider(stack, "takoform");
      new TestWorker(stack, "many", { name: "many", count: 3 });
    });
    outdirs.push(synth.outdir);
    const loaded = loadStackConfig(synth.text);
    expect(loaded.config).toBeNull();
    const diagnostic = loaded.diagnostics.find((d) => d.code === "takoform.config/unsupported-meta-argument")!;
    expect(diagnostic).toMatchObject({ address: "takoform_module_worker.many", attribute: "count" });
    expect(diagnostic.repair).toMatch(/one construct per instance/);
  });
});
