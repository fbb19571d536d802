// contribute() with real cdktf synthesis: contributions survive synthesis under the reserved
// `"//"` member (which Terraform ignores), apart from the resource's own attributes; lists
// collect across calls; `from` is the resource whose value is contributed; misuse is collected
// and listed at synth, every call's problems at once. The engine reads the synthesized file back
// and keeps config and contributions apart.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { App, TerraformStack } from "cdktf";
import { MeshContainer } from "../../src/constructs/generated/mesh-container.gen.ts";
import { MeshService } from "../../src/constructs/generated/mesh-service.gen.ts";
import { MeshWorker } from "../../src/constructs/generated/mesh-worker.gen.ts";
import { configEdges } from "../../src/engine/config/edges.ts";
import { resolveVariables } from "../../src/engine/config/variables/resolve.ts";
import { evaluateResource } from "../../src/engine/evaluate.ts";
import { UNKNOWN } from "../../src/core/values.ts";
import { readJson, Scratch, synthStack } from "../scenario/harness.ts";
import { synthProblems } from "../constructs/validation.ts";
import { CONTAINER, SVC, WORKER } from "./fixtures.ts";

type Resources = Record<string, Record<string, Record<string, unknown>>>;

describe("contribute()", () => {
  let scratch: Scratch;
  beforeEach(() => {
    scratch = new Scratch();
  });
  afterEach(() => scratch.cleanup());

  it("writes contributions under the reserved // member, apart from the resource's own attributes", async () => {
    const { stack, file } = await synthStack(scratch, (s) => {
      const a = new MeshService(s, "a", { name: "a", entrypoint: "a.js" });
      const b = new MeshService(s, "b", { name: "b", entrypoint: "b.js" });
      a.contribute({ serviceBindings: [{ name: "B", service: b }] });
      b.contribute({ serviceBindings: [{ name: "A", service: a, version: a.versionId }] });
    });
    const resources = (readJson(file) as { resource: Resources }).resource;
    const a = resources[SVC]!["a"]!;
    expect(a["service_bindings"]).toBeUndefined();
    expect(a["entrypoint"]).toBe("a.js");
    const comment = a["//"] as Record<string, unknown>;
    expect(comment["metadata"]).toMatchObject({ path: "scenario/a" });
    expect(comment["takoform"]).toEqual({
      contributions: [{ from: `${SVC}.b`, values: { service_bindings: [{ name: "B", service: `\${${SVC}.b.name}`, version: null }] } }],
    });
    expect((resources[SVC]!["b"]!["//"] as { takoform: unknown }).takoform).toEqual({
      contributions: [{ from: `${SVC}.a`, values: { service_bindings: [{ name: "A", service: `\${${SVC}.a.name}`, version: `\${${SVC}.a.version_id}` }] } }],
    });

    // The engine keeps them apart: the placeholder is the own configuration.
    const loaded = stack.resources.get(`${SVC}.a`)!;
    expect(Object.keys(loaded.attributes).sort()).toEqual(["entrypoint", "name"]);
    expect(loaded.contributions.map((c) => c.from)).toEqual([`${SVC}.b`]);
    expect(configEdges(stack).map((e) => `${e.from} -> ${e.to} ${e.kind} ${e.attribute}`)).toEqual([
      `${SVC}.a -> ${SVC}.b contribution service_bindings`,
      `${SVC}.b -> ${SVC}.a contribution service_bindings`,
    ]);
  });

  it("collects a list field across calls, after the constructor's own entries", async () => {
    const { stack } = await synthStack(scratch, (s) => {
      const c = new MeshService(s, "c", { name: "c", entrypoint: "c.js" });
      const d = new MeshService(s, "d", { name: "d", entrypoint: "d.js" });
      const own = new MeshService(s, "own", { name: "own", entrypoint: "own.js" });
      const a = new MeshService(s, "a", { name: "a", entrypoint: "a.js", serviceBindings: [{ name: "OWN", service: own }] });
      a.contribute({ serviceBindings: [{ name: "C", service: c }] });
      a.contribute({ serviceBindings: [{ name: "D", service: d }] });
    });
    const a = stack.resources.get(`${SVC}.a`)!;
    expect(a.contributions.map((c) => c.from)).toEqual([`${SVC}.c`, `${SVC}.d`]);
    const names = (address: string) =>
      address === `${SVC}.own` ? { name: "own" } : address === `${SVC}.c` ? { name: "c" } : address === `${SVC}.d` ? { name: "d" } : undefined;
    const evaluated = evaluateResource(a, resolveVariables(stack.variables, {}), names);
    const services = (v: unknown) => (v as { service: unknown }[]).map((b) => b.service);
    expect(services(evaluated.attributes["service_bindings"])).toEqual(["own", "c", "d"]);
    expect(services(evaluated.placeholder["service_bindings"])).toEqual(["own"]);
    // A peer not known yet makes its contributed value unknown, never a placeholder string.
    const partial = evaluateResource(a, resolveVariables(stack.variables, {}), (x) => (x === `${SVC}.d` ? undefined : names(x)));
    expect(services(partial.attributes["service_bindings"])).toEqual(["own", "c", UNKNOWN]);
  });

  it("takes `from` from a construct, else from an attribute token, else from the option", async () => {
    const { stack } = await synthStack(scratch, (s) => {
      const worker = new MeshWorker(s, "worker", { name: "worker", entrypoint: "worker.js" });
      const sandbox = new MeshContainer(s, "sandbox", { name: "sandbox", image: "img:1" });
      worker.contribute({ containers: [{ className: "Sandbox", container: sandbox }] });
      sandbox.contribute({ namespaceId: worker.namespaceId });
      const caller = new MeshService(s, "caller", { name: "caller", entrypoint: "caller.js" });
      const named = new MeshService(s, "named", { name: "named", entrypoint: "named.js" });
      // The value names the peer only by a literal: `from` must say who contributes it.
      caller.contribute({ serviceBindings: [{ name: "N", service: "named" }] }, { from: named });
    });
    expect(stack.resources.get(`${WORKER}.worker`)!.contributions.map((c) => c.from)).toEqual([`${CONTAINER}.sandbox`]);
    expect(stack.resources.get(`${CONTAINER}.sandbox`)!.contributions.map((c) => c.from)).toEqual([`${WORKER}.worker`]);
    expect(stack.resources.get(`${SVC}.caller`)!.contributions.map((c) => c.from)).toEqual([`${SVC}.named`]);
    // No reference inside: no edge, whatever `from` says.
    expect(configEdges(stack).filter((e) => e.from === `${SVC}.caller`)).toEqual([]);
  });

  it("lists every misuse at synth, numbered by call, and records none of the refused contributions", () => {
    const problems = synthProblems((s) => {
      const a = new MeshService(s, "a", { name: "a", entrypoint: "a.js" });
      const b = new MeshService(s, "b", { name: "b", entrypoint: "b.js" });
      const c = new MeshContainer(s, "c", { name: "c", image: "img:1", namespaceId: "ns-0000000000000000" });
      const w2 = new MeshWorker(s, "w", { name: "w", entrypoint: "w.js" });
      a.contribute({ nope: 1 });
      a.contribute({ name: "x" });
      a.contribute({});
      a.contribute({ serviceBindings: undefined });
      a.contribute({ serviceBindings: { name: "B", service: b } });
      a.contribute({ serviceBindings: [{ name: "B", service: "b" }] });
      a.contribute({ serviceBindings: [{ name: "A", service: a }] });
      a.contribute({ serviceBindings: [{ name: "B", service: b }] }, { from: a });
      a.contribute({ serviceBindings: [{ name: "W", service: w2 as unknown as MeshService }] });
      c.contribute({ namespaceId: w2.namespaceId });
      const d = new MeshContainer(s, "d", { name: "d", image: "img:1" });
      d.contribute({ namespaceId: w2.namespaceId });
      d.contribute({ namespaceId: w2.namespaceId });
    });
    const fields = "contributions fill fields of the Form's desired state (entrypoint, tier, serviceBindings).";
    const noSource =
      "the contribution names no other resource, so it has no source. Set the value in the constructor, or pass { from } to say which resource contributes it.";
    expect(problems).toEqual([
      `[demo/a] contribute() #1: nope is not a field of Service that can be contributed; ${fields}`,
      `[demo/a] contribute() #2: name is not a field of Service that can be contributed; ${fields}`,
      "[demo/a] contribute() #3: no value was given; pass one or more fields to contribute.",
      "[demo/a] contribute() #4: no value was given; pass one or more fields to contribute.",
      "[demo/a] contribute() #5: the contributed serviceBindings must be a list; contributions to a list are collected.",
      `[demo/a] contribute() #6: ${noSource}`,
      `[demo/a] contribute() #7: ${noSource}`,
      "[demo/a] contribute() #8: a resource cannot contribute to itself; set the value in its constructor.",
      "[demo/a] contribute() #9: serviceBindings[0].service refers to a takoform_mesh_worker; it must be a takoform_mesh_service (or a name).",
      "[demo/c] contribute() #1: namespaceId is already set; only list fields collect several contributions, any other field takes one value.",
      "[demo/d] contribute() #2: namespaceId is already set; only list fields collect several contributions, any other field takes one value.",
    ]);
  });

  it("records a contribution only when it has no problem", () => {
    class Receiving extends MeshService {
      get recorded() {
        return this.contributions;
      }
    }
    const s = new TerraformStack(new App({ outdir: scratch.path("recorded") }), "recorded");
    const a = new Receiving(s, "a", { name: "a", entrypoint: "a.js" });
    const b = new MeshService(s, "b", { name: "b", entrypoint: "b.js" });
    a.contribute({ serviceBindings: [{ name: "B", service: b }], tier: "edge" }, { from: a });
    a.contribute({ tier: "edge", serviceBindings: [{ name: "B", service: b }] });
    // The first call was refused whole (a resource cannot contribute to itself), so tier was still free.
    expect(a.recorded.map((c) => [c.from, Object.keys(c.values)])).toEqual([[`${SVC}.b`, ["tier", "service_bindings"]]]);
  });
});
