// validate(type, config): static checks that need no host (reference §5.6, §5.7, §13.1, §13.2).
// Unknown values are skipped, never guessed.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { HostClient } from "../../src/client/client.ts";
import { type Diagnostic, parseGoDuration } from "../../src/core/index.ts";
import { UNKNOWN, type Attributes, type Value } from "../../src/core/values.ts";
import { HostProvider } from "../../src/provider/provider.ts";
import { cronProblem } from "../../src/provider/validate/cron.ts";
import { canonicalHostname } from "../../src/provider/validate/hostname.ts";
import { bundledRegistry } from "../../src/registry/bundled.ts";

const noHost = () => Promise.reject(new Error("validate must not reach the host")) as Promise<HostClient>;
const p = new HostProvider({ client: noHost, registry: bundledRegistry, defaultSpace: "default" });
const summaries = (ds: Diagnostic[]) => ds.map((d) => d.summary);

const version = (extra: Attributes = {}): Attributes => ({ revision_owner: "counter", worker: "counter", bundle: "b", handlers: ["fetch"], ...extra });

describe("TestV3DeploymentWeightSumValidator", () => {
  const deployment = (weights: Value[]): Attributes => ({ name: "d", worker: "w", versions: weights.map((w, i) => ({ worker_version: `v${i}`, weight: w })) });
  it("9999 is rejected, 4000 + 6000 accepted, unknown weights are skipped", () => {
    expect(summaries(p.validate("takoform_worker_deployment", deployment([9999])))).toContain("Invalid deployment weight total");
    expect(p.validate("takoform_worker_deployment", deployment([4000, 6000]))).toEqual([]);
    expect(p.validate("takoform_worker_deployment", deployment([4000, UNKNOWN]))).toEqual([]);
  });
});

describe("TestV3JSONObjectAttributesRejectTheLiteralNull (validate)", () => {
  it('vars_json = "null" is an attribute error mentioning null; {} is accepted', () => {
    const ds = p.validate("takoform_worker_version", version({ vars_json: "null" }));
    expect(ds).toHaveLength(1);
    expect(ds[0]!.summary).toBe("Invalid JSON object");
    expect(ds[0]!.detail).toContain("null");
    expect(ds[0]!.attribute).toBe("vars_json");
    expect(p.validate("takoform_worker_version", version({ vars_json: "{}" }))).toEqual([]);
    expect(summaries(p.validate("takoform_worker_version", version({ vars_json: "[1]" })))).toEqual(["Invalid JSON object"]);
  });
});

describe("environment namespace (§13.2)", () => {
  it("TestV3EnvironmentNamespaceRejectedAtPlanTime: across and within sources; distinct names pass", () => {
    const across = p.validate("takoform_worker_version", version({ vars_json: '{"CACHE":1}', kv_bindings: [{ name: "CACHE", target_name: "kv" }] }));
    expect(summaries(across)).toEqual(["Duplicate module environment name"]);
    expect(across[0]!.attribute).toBe("kv_bindings[0].name");
    expect(across[0]!.detail).toContain("vars_json.CACHE");
    const secret = p.validate("takoform_worker_version", version({ vars_json: '{"TOKEN":1}', required_sensitive_vars: ["TOKEN"] }));
    expect(summaries(secret)).toEqual(["Duplicate module environment name"]);
    const crossLists = p.validate(
      "takoform_worker_version",
      version({ kv_bindings: [{ name: "A", target_name: "kv" }], bucket_bindings: [{ name: "A", target_name: "b" }] }),
    );
    expect(summaries(crossLists)).toEqual(["Duplicate module environment name"]);
    const within = p.validate(
      "takoform_worker_version",
      version({
        kv_bindings: [
          { name: "A", target_name: "kv" },
          { name: "A", target_name: "kv2" },
        ],
      }),
    );
    expect(within[0]!.attribute).toBe("kv_bindings[1].name");
    expect(
      p.validate("takoform_worker_version", version({ vars_json: '{"A":1}', required_sensitive_vars: ["B"], kv_bindings: [{ name: "C", target_name: "kv" }] })),
    ).toEqual([]);
  });

  it("TestV3EnvironmentNamespaceIgnoresUnknownValues", () => {
    expect(p.validate("takoform_worker_version", version({ vars_json: UNKNOWN, kv_bindings: [{ name: "A", target_name: "kv" }] }))).toEqual([]);
    expect(p.validate("takoform_worker_version", version({ vars_json: '{"A":1}', kv_bindings: UNKNOWN }))).toEqual([]);
    expect(p.validate("takoform_worker_version", version({ vars_json: '{"A":1}', kv_bindings: [{ name: UNKNOWN, target_name: "kv" }] }))).toEqual([]);
  });

  it("TestV3EnvironmentNamespaceIsDeclaredOnce: the projecting fields come from the codec", () => {
    const codec = p.table.defaultCreate({ apiVersion: "edge.takoform-cdk.dev/v1alpha1", kind: "WorkerVersion" }).codec;
    const roles = Object.fromEntries(codec.fields.filter((f) => f.environment !== undefined).map((f) => [f.wire, f.environment]));
    expect(roles).toEqual({
      vars: "map-keys",
      requiredSensitiveVars: "items",
      kvBindings: "binding-names",
      bucketBindings: "binding-names",
      sqliteBindings: "binding-names",
      queueProducerBindings: "binding-names",
      serviceBindings: "binding-names",
    });
  });
});

describe("bundle authoring surface", () => {
  // Module files exist: validate refuses a content_file that does not (see "local module files").
  const dir = mkdtempSync(join(tmpdir(), "takoform-validate-"));
  const x = join(dir, "x");
  const y = join(dir, "y");
  writeFileSync(x, "export default {};\n");
  writeFileSync(y, "{}");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const bundle = (modules: Value[], main = "index.js"): Attributes => ({ revision_owner: "o", main_module: main, modules });
  it("TestWorkerBundleAdmitsExactlyTheBundleMediaTypeSet", () => {
    for (const type of ["application/javascript+module", "application/octet-stream", "application/wasm", "text/plain", "application/source-map+json"]) {
      const modules = [
        { name: "index.js", content_type: "application/javascript+module", content_file: x },
        { name: "extra", content_type: type, content_file: y },
      ];
      expect(p.validate("takoform_worker_bundle", bundle(modules))).toEqual([]);
    }
    const json = p.validate("takoform_worker_bundle", bundle([{ name: "index.js", content_type: "application/json", content_file: x }]));
    expect(summaries(json)).toContain("Invalid module content type");
  });

  it("TestMainModuleMustBeLoadable: a source map is carried but is never main", () => {
    const modules = [
      { name: "index.js", content_type: "application/javascript+module", content_file: x },
      { name: "index.js.map", content_type: "application/source-map+json", content_file: y },
    ];
    expect(p.validate("takoform_worker_bundle", bundle(modules))).toEqual([]);
    expect(summaries(p.validate("takoform_worker_bundle", bundle(modules, "index.js.map")))).toEqual(["Main module is not loadable"]);
  });

  it("incomplete, empty, duplicate and unknown-main authoring", () => {
    expect(summaries(p.validate("takoform_worker_bundle", { revision_owner: "o", main_module: "index.js" }))).toEqual(["Incomplete local bundle authoring"]);
    expect(summaries(p.validate("takoform_worker_bundle", bundle([])))).toContain("Empty bundle");
    const dup = [
      { name: "index.js", content_type: "text/plain", content_file: x },
      { name: "index.js", content_type: "text/plain", content_file: y },
    ];
    expect(summaries(p.validate("takoform_worker_bundle", bundle(dup)))).toEqual(["Duplicate module name"]);
    expect(summaries(p.validate("takoform_worker_bundle", bundle([{ name: "a.js", content_type: "text/plain", content_file: x }])))).toEqual([
      "Unknown main module",
    ]);
    expect(p.validate("takoform_worker_bundle", { revision_owner: "o", manifest_digest: `sha256:${"a".repeat(64)}` })).toEqual([]);
    expect(summaries(p.validate("takoform_worker_bundle", { revision_owner: "o", manifest_digest: "sha256:nope" }))).toEqual(["Invalid manifest digest"]);
  });
});

describe("hostnames", () => {
  const domain = (hostname: Value) => p.validate("takoform_worker_custom_domain", { name: "d", worker: "w", hostname });
  it("TestHostnameValidatorRequiresTheCanonicalSpelling", () => {
    const upper = domain("API.Example.com");
    expect(summaries(upper)).toEqual(["Hostname is not canonical"]);
    expect(upper[0]!.detail).toContain('"api.example.com"');
    expect(summaries(domain("api.example.com."))).toEqual(["Hostname is not canonical"]);
    expect(summaries(domain("bücher.example"))).toEqual(["Invalid hostname"]);
    expect(domain("xn--bcher-kva.example")).toEqual([]);
    expect(domain(UNKNOWN)).toEqual([]);
  });

  it("TestCanonicalHostnameIsIdempotent", () => {
    for (const h of ["API.Example.com.", "api.example.com", "A.B.", "xn--bcher-kva.example"]) {
      expect(canonicalHostname(canonicalHostname(h))).toBe(canonicalHostname(h));
    }
  });
});

describe("TestCronValidatorRejectsWhatTheHostRejects", () => {
  it("the six offenders are refused and the ordinary expressions accepted", () => {
    for (const bad of ["0 24 * * *", "60 0 * * *", "5-1 * * * *", "*/0 * * * *", "0 0 32 * *", "0 0 * * 7"]) {
      expect(cronProblem(bad), bad).toBeDefined();
      expect(summaries(p.validate("takoform_worker_cron_trigger", { name: "c", worker: "w", cron: bad }))).toEqual(["Invalid cron expression"]);
    }
    for (const good of ["* * * * *", "0 * * * *", "*/5 * * * *", "0 9-17 * * 1-5", "0,30 0-6/2 1 1-12 0"]) {
      expect(cronProblem(good), good).toBeUndefined();
      expect(p.validate("takoform_worker_cron_trigger", { name: "c", worker: "w", cron: good })).toEqual([]);
    }
    for (const bad of ["* * * *", "* * * * * *", "*  * * * *", "MON * * * *", "1-2-3 * * * *", "5/2 * * * *", ",1 * * * *"])
      expect(cronProblem(bad), bad).toBeDefined();
  });

  it("agrees with the host's parser at the edges: steps run 1..(max − min), two-digit numbers may lead with 0", () => {
    for (const bad of ["*/60 * * * *", "* */24 * * *", "* * * */12 *", "* * * * */7", "100 * * * *"]) expect(cronProblem(bad), bad).toBeDefined();
    for (const good of ["*/59 * * * *", "05 09 * * *", "* * * * */6", "0 0 01 01 00"]) expect(cronProblem(good), good).toBeUndefined();
  });
});

describe("timeouts, names and the envelope", () => {
  it("Go durations: positive values pass, anything else is Invalid operation timeout", () => {
    expect(parseGoDuration("20m")).toBe(1_200_000);
    expect(parseGoDuration("1h30m")).toBe(5_400_000);
    expect(parseGoDuration("400ms")).toBe(400);
    expect(parseGoDuration("1.5s")).toBe(1500);
    expect(parseGoDuration(".5s")).toBe(500);
    expect(parseGoDuration("0")).toBe(0);
    for (const bad of ["", "20", "m", "1d", "-", "1.s.", "."]) expect(parseGoDuration(bad), bad).toBeUndefined();
    for (const bad of ["0", "-5m", "soon", "20"]) {
      const ds = p.validate("takoform_module_worker", { name: "w", create_timeout: bad });
      expect(summaries(ds)).toEqual(["Invalid operation timeout"]);
      expect(ds[0]!.detail).toBe('create_timeout must be a positive Go duration such as "20m".');
    }
    expect(p.validate("takoform_module_worker", { name: "w", create_timeout: "90s", delete_timeout: UNKNOWN })).toEqual([]);
  });

  it("exactly one of name and name_prefix, each in its grammar", () => {
    expect(summaries(p.validate("takoform_module_worker", {}))).toEqual(["Missing name"]);
    expect(summaries(p.validate("takoform_module_worker", { name: "a", name_prefix: "a-" }))).toEqual(["Conflicting name and name_prefix"]);
    expect(summaries(p.validate("takoform_module_worker", { name: UNKNOWN, name_prefix: "a-" }))).toEqual(["Conflicting name and name_prefix"]);
    expect(p.validate("takoform_module_worker", { name_prefix: "api-" })).toEqual([]);
    expect(summaries(p.validate("takoform_module_worker", { name: "Bad_Name" }))).toEqual(["Invalid resource name"]);
    expect(summaries(p.validate("takoform_module_worker", { name_prefix: `a${"b".repeat(55)}` }))).toEqual(["Invalid name prefix"]);
    expect(summaries(p.validate("takoform_module_worker", { name: "w", space: "bad/space" }))).toEqual(["Invalid or missing SpaceID"]);
  });

  it("revision_owner is a token; required desired fields are required; integer bounds and counts", () => {
    expect(summaries(p.validate("takoform_worker_version", version({ revision_owner: "two words" })))).toEqual(["Invalid revision owner"]);
    expect(summaries(p.validate("takoform_worker_version", version({ handlers: null })))).toEqual(["Missing required argument"]);
    expect(summaries(p.validate("takoform_worker_version", version({ handlers: [] })))).toEqual(["Too few items"]);
    expect(summaries(p.validate("takoform_worker_version", version({ handlers: ["fetch", "sleep"] })))).toEqual(["Invalid attribute value"]);
    expect(summaries(p.validate("takoform_at_least_once_queue", { name: "q", message_retention_seconds: 59 }))).toEqual(["Invalid attribute value"]);
    expect(p.validate("takoform_at_least_once_queue", { name: "q", message_retention_seconds: 60 })).toEqual([]);
    const many = Array.from({ length: 9 }, (_, i) => ({ worker_version: `v${i}`, weight: i === 0 ? 2000 : 1000 }));
    expect(summaries(p.validate("takoform_worker_deployment", { name: "d", worker: "w", versions: many }))).toContain("Too many items");
  });

  it("an unknown type is reported, not thrown", () => {
    expect(summaries(p.validate("takoform_nope", {}))).toEqual(["Unknown resource type takoform_nope"]);
  });
});
