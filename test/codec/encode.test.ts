import { describe, it, expect } from "vitest";
import { UNKNOWN, type Attributes } from "../../src/core/values.ts";
import { formRefKey } from "../../src/core/index.ts";
import { decodeOutputs, decodeSpec, encodeSpec, jsonObjectProblems } from "../../src/provider/codec/index.ts";
import { resourceTypeSchema } from "../../src/registry/index.ts";
import { bundledCodecTable } from "../../src/registry/bundled.ts";
import type { FormCodec } from "../../src/registry/codec-types.ts";
import { loadDefinitions } from "../../src/forms/catalog.ts";
import { bundledDoc, bundledModel, codec, codecOf, EDGE, MESH, PACKAGES } from "./support.ts";

/** Every attribute of a codec set to null, then the given values. */
function values(c: FormCodec, given: Attributes): Attributes {
  const out: Attributes = {};
  for (const f of c.fields) out[f.attribute] = null;
  return { ...out, ...given };
}

const version = codec("WorkerVersion");
const versionBase = (extra: Attributes = {}) =>
  values(version, { worker: "counter", bundle: "bundle-abababababab-efe899c74558", handlers: ["fetch"], ...extra });

describe("encodeSpec", () => {
  it("row 14: create sends the full current field set; an update of state bound to a prior definition sends only that definition's fields, under its own ref", () => {
    const current = codec("AtLeastOnceQueue");
    // A prior definition of the same line that declared only messageRetentionSeconds.
    const priorDoc = bundledDoc("edge", "at-least-once-queue");
    priorDoc.definitionVersion = "0.0.9";
    delete priorDoc.desiredSchema.properties.deliveryDelaySeconds;
    delete priorDoc.negativeConformanceFixtures;
    delete priorDoc.conformanceFixtures;
    const prior = codecOf(priorDoc, "at-least-once-queue");
    expect(prior.ref.definitionVersion).toBe("0.0.9");
    expect(prior.ref.schemaDigest).not.toBe(current.ref.schemaDigest);

    const table = bundledCodecTable().withCodec(prior);
    const plan: Attributes = { message_retention_seconds: 3600, delivery_delay_seconds: 30 };
    const create = table.defaultCreate(current.ref);
    expect(create.ref.definitionVersion).toBe("0.1.0");
    expect(encodeSpec(create.codec, plan).spec).toEqual({ messageRetentionSeconds: 3600, deliveryDelaySeconds: 30 });

    const served = table.forStateRef(prior.ref);
    expect(served.ref.definitionVersion).toBe("0.0.9");
    expect(served.ref.schemaDigest).toBe(prior.ref.schemaDigest);
    const update = encodeSpec(served.codec, plan);
    expect(update.errors).toEqual([]);
    expect(update.spec).toEqual({ messageRetentionSeconds: 3600 });

    // One resource type serves both definitions (the prior one is carried by the surface).
    const schema = resourceTypeSchema("takoform_at_least_once_queue", [current, prior], current);
    expect(Object.keys(schema.attributes)).toContain("delivery_delay_seconds");
  });

  it("row 29: a JSON object attribute refuses the literal null before anything is sent; {} is accepted", () => {
    const refused = encodeSpec(version, versionBase({ vars_json: "null" }));
    expect(refused.errors).toHaveLength(1);
    expect(refused.errors[0]!.summary).toBe("Invalid JSON object");
    expect(refused.errors[0]!.detail).toContain("not the literal null");
    expect(refused.errors[0]!.attribute).toBe("vars_json");
    expect(jsonObjectProblems("vars_json", "null")[0]!.detail).toContain("null");
    expect(jsonObjectProblems("vars_json", "[1]")[0]!.summary).toBe("Invalid JSON object");
    expect(jsonObjectProblems("vars_json", '{"a":1,"a":2}')).toHaveLength(1);
    expect(jsonObjectProblems("vars_json", "{}")).toEqual([]);
    const accepted = encodeSpec(version, versionBase({ vars_json: "{}" }));
    expect(accepted.errors).toEqual([]);
    expect(accepted.spec.vars).toEqual({});
  });

  it("row 30: every reference carries the exact group — top level, in object lists, and in binding lists", () => {
    const deployment = encodeSpec(codec("WorkerDeployment"), { worker: "counter", versions: [{ worker_version: "version-1", weight: 10000 }] });
    expect(deployment.errors).toEqual([]);
    expect(deployment.spec).toEqual({
      worker: { apiVersion: EDGE, kind: "ModuleWorker", name: "counter" },
      versions: [{ workerVersion: { apiVersion: EDGE, kind: "WorkerVersion", name: "version-1" }, weight: 10000 }],
    });
    const mesh = encodeSpec(
      codec("Service", MESH),
      values(codec("Service", MESH), { entrypoint: "x", service_bindings: [{ name: "PEER", service: "peer", version: null }] }),
    );
    expect(mesh.spec.serviceBindings).toEqual([{ name: "PEER", service: { apiVersion: MESH, kind: "Service", name: "peer" } }]);
  });

  it("row 9: a binding element is {name, resource: ref} — never target; worker is the 3-member ref", () => {
    const { spec, errors } = encodeSpec(version, versionBase({ kv_bindings: [{ name: "CACHE", target_name: "cache" }] }));
    expect(errors).toEqual([]);
    expect(spec.kvBindings).toEqual([{ name: "CACHE", resource: { apiVersion: EDGE, kind: "EdgeKVNamespace", name: "cache" } }]);
    expect(JSON.stringify(spec)).not.toContain('"target');
    expect(spec.worker).toEqual({ apiVersion: EDGE, kind: "ModuleWorker", name: "counter" });
  });

  it("rows 42, 44: WorkerVersion's seven defaulted attributes are sent (empty collections included) and read back unchanged", () => {
    const defaulted = version.fields.filter((f) => f.default !== undefined);
    expect(defaulted.map((f) => f.attribute).sort()).toEqual([
      "bucket_bindings",
      "kv_bindings",
      "queue_producer_bindings",
      "required_sensitive_vars",
      "service_bindings",
      "sqlite_bindings",
      "vars_json",
    ]);
    // Planned values as the plan carries them: the static defaults materialized.
    const planned = versionBase(Object.fromEntries(defaulted.map((f) => [f.attribute, f.default!])));
    const { spec, errors } = encodeSpec(version, planned);
    expect(errors).toEqual([]);
    expect(spec).toEqual({
      worker: { apiVersion: EDGE, kind: "ModuleWorker", name: "counter" },
      bundle: { apiVersion: EDGE, kind: "WorkerBundle", name: "bundle-abababababab-efe899c74558" },
      handlers: ["fetch"],
      vars: {},
      requiredSensitiveVars: [],
      kvBindings: [],
      bucketBindings: [],
      sqliteBindings: [],
      queueProducerBindings: [],
      serviceBindings: [],
    });
    const decoded = decodeSpec(version, structuredClone(spec));
    for (const f of defaulted) expect(decoded[f.attribute], f.attribute).toEqual(planned[f.attribute]);
  });

  it("row 41: every defaulted field of every bundled Form survives default → wire → echo → state without a diff", () => {
    let checked = 0;
    for (const l of bundledModel().lines) {
      for (const c of l.codecs) {
        const definition = bundledModel().codecs.find((x) => formRefKey(x.ref) === formRefKey(c.ref))!;
        for (const field of definition.fields.filter((f) => f.default !== undefined)) {
          checked++;
          if (c === l.defaultCodec) {
            const attribute = l.schema.attributes[field.attribute]!;
            expect(attribute.mode, field.attribute).toBe("optional-computed");
            expect(attribute.default).toEqual(field.default);
          }
          const declared = declaredDefault(c, field.wire);
          const wire = encodeSpec(c, { ...values(c, {}), [field.attribute]: field.default! }, { mode: "plan" }).spec[field.wire];
          expect(wire, `${c.ref.kind}.${field.wire}`).toEqual(declared);
          expect(decodeSpec(c, { [field.wire]: structuredClone(wire)! })[field.attribute]).toEqual(field.default);
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(10);
  });

  it("sorts string sets, omits null and empty strings, and names a field the attributes cannot carry", () => {
    const { spec } = encodeSpec(version, versionBase({ handlers: ["scheduled", "fetch", "fetch"], required_sensitive_vars: ["Z_KEY", "A_KEY"] }));
    expect(spec.handlers).toEqual(["fetch", "scheduled"]);
    expect(spec.requiredSensitiveVars).toEqual(["A_KEY", "Z_KEY"]);
    const consumer = codec("QueueConsumer");
    const omitted = encodeSpec(consumer, values(consumer, { queue: "q", worker: "w", dead_letter_queue: null, max_batch_size: 10 }));
    expect(Object.keys(omitted.spec).sort()).toEqual(["maxBatchSize", "queue", "worker"]);
    const domain = encodeSpec(codec("WorkerCustomDomain"), { worker: "w", hostname: "" });
    expect(domain.spec).toEqual({ worker: { apiVersion: EDGE, kind: "ModuleWorker", name: "w" } });
    const missing = encodeSpec(consumer, { queue: "q" });
    expect(missing.errors.map((e) => e.summary)).toContain("Form codec declares a field this provider build cannot carry");
  });

  it("an empty collection is sent only when the declared default is that empty collection", () => {
    const doc = bundledDoc("edge", "worker-version");
    delete doc.desiredSchema.properties.kvBindings.default;
    const withoutDefault = codecOf(doc, "worker-version");
    expect(encodeSpec(withoutDefault, versionBase({ kv_bindings: [] })).spec).not.toHaveProperty("kvBindings");
    expect(encodeSpec(version, versionBase({ kv_bindings: [] })).spec.kvBindings).toEqual([]);
  });

  it("an unknown value leaves the spec unresolved: silent at plan, `Unknown <Kind> field` at apply", () => {
    const attrs = versionBase({ bundle: UNKNOWN, kv_bindings: [{ name: "KV", target_name: UNKNOWN }] });
    const plan = encodeSpec(version, attrs, { mode: "plan" });
    expect(plan.unresolved).toBe(true);
    expect(plan.errors).toEqual([]);
    const apply = encodeSpec(version, attrs);
    expect(apply.unresolved).toBe(true);
    expect(apply.errors.map((e) => [e.summary, e.attribute])).toEqual([
      ["Unknown WorkerVersion field", "bundle"],
      ["Unknown WorkerVersion field", "kv_bindings[0].target_name"],
    ]);
    expect(apply.errors[0]!.detail).toBe("bundle must be wholly known before the provider can apply this Form.");
    expect(encodeSpec(version, versionBase()).unresolved).toBe(false);
  });

  it("refuses wrongly typed values with the attribute path", () => {
    const queue = codec("AtLeastOnceQueue");
    expect(encodeSpec(queue, { message_retention_seconds: "60", delivery_delay_seconds: 0 }).spec).toEqual({
      messageRetentionSeconds: 60,
      deliveryDelaySeconds: 0,
    });
    const bad = encodeSpec(queue, { message_retention_seconds: 1.5, delivery_delay_seconds: null });
    expect(bad.errors[0]!.summary).toBe("Invalid AtLeastOnceQueue field");
    expect(bad.errors[0]!.attribute).toBe("message_retention_seconds");
    expect(encodeSpec(version, versionBase({ kv_bindings: [null] })).errors[0]!.attribute).toBe("kv_bindings[0]");
  });
});

describe("decodeSpec", () => {
  it("projects a host spec back: refs to names, binding resource.name to target_name, JSON maps with sorted keys, sets sorted, empty strings null", () => {
    const decoded = decodeSpec(version, {
      worker: { apiVersion: EDGE, kind: "ModuleWorker", name: "counter" },
      bundle: { apiVersion: EDGE, kind: "WorkerBundle", name: "b" },
      handlers: ["scheduled", "fetch"],
      vars: { b: 1, a: { y: "<&>", x: [1, 2] } },
      kvBindings: [{ name: "KV", resource: { apiVersion: EDGE, kind: "EdgeKVNamespace", name: "cache" } }],
    });
    expect(decoded.worker).toBe("counter");
    expect(decoded.handlers).toEqual(["fetch", "scheduled"]);
    expect(decoded.vars_json).toBe('{"a":{"x":[1,2],"y":"\\u003c\\u0026\\u003e"},"b":1}');
    expect(decoded.kv_bindings).toEqual([{ name: "KV", target_name: "cache" }]);
    // Absent fields with a declared default decode to it.
    expect(decoded.service_bindings).toEqual([]);
    const deployment = decodeSpec(codec("WorkerDeployment"), {
      worker: { apiVersion: EDGE, kind: "ModuleWorker", name: "w" },
      versions: [{ workerVersion: { apiVersion: EDGE, kind: "WorkerVersion", name: "v" }, weight: 1 }],
    });
    expect(deployment.versions).toEqual([{ worker_version: "v", weight: 1 }]);
    expect(decodeSpec(codec("WorkerCustomDomain"), { hostname: "" }).hostname).toBeNull();
    expect(() => decodeSpec(codec("AtLeastOnceQueue"), { messageRetentionSeconds: "60" })).toThrow(/messageRetentionSeconds: expected a whole number/);
  });

  it("decodeOutputs types declared outputs and names each one the response fails", () => {
    const endpoint = codec("WorkerEndpoint");
    expect(decodeOutputs(endpoint, { hostname: "a.example.com", url: "https://a.example.com/" })).toEqual({
      attributes: { hostname: "a.example.com", url: "https://a.example.com/" },
      problems: [],
    });
    expect(decodeOutputs(endpoint, undefined).problems[0]).toEqual({
      output: "hostname",
      detail: "the response carries no status.outputs document, so it carries no outputs",
    });
    expect(decodeOutputs(endpoint, { url: "https://a.example.com/" }).problems).toEqual([{ output: "hostname", detail: "status.outputs omits it" }]);
    expect(decodeOutputs(endpoint, { hostname: null, url: "x" }).problems[0]!.detail).toBe("status.outputs carries it as null");
    expect(decodeOutputs(endpoint, { hostname: 8443, url: "x" }).problems[0]!.detail).toBe("it is declared string and the host returned the number 8443");
    expect(decodeOutputs(codec("ModuleWorker"), {})).toEqual({ attributes: {}, problems: [] });
  });
});

const definitions = new Map(loadDefinitions(PACKAGES).forms.map((f) => [formRefKey(f.ref), f.definition]));

/** The default the definition document itself declares for a wire field. */
function declaredDefault(c: FormCodec, wire: string): unknown {
  return (definitions.get(formRefKey(c.ref))!.desiredSchema.properties as Record<string, { default?: unknown }>)[wire]!.default;
}
