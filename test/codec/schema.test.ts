import { describe, it, expect } from "vitest";
import {
  CodecSurfaceError,
  ENVELOPE_ATTRIBUTES,
  RESERVED_ATTRIBUTES,
  resourceTypeSchema,
  revisionNamePrefix,
  schemasFor,
  undeclaredFieldProblems,
} from "../../src/registry/index.ts";
import type { AttributeSchema } from "../../src/provider/types.ts";
import { bundledCodecTable } from "../../src/registry/bundled.ts";
import { bundledDoc, bundledModel, codec, codecOf, EDGE, line, MESH, OTHER, syntheticDoc } from "./support.ts";

const lines = () => bundledModel().lines;

function surfaceError(fn: () => unknown): CodecSurfaceError {
  try {
    fn();
  } catch (error) {
    if (error instanceof CodecSurfaceError) return error;
    throw error;
  }
  throw new Error("expected a CodecSurfaceError");
}

/** Attributes a line's schema owes to its Form (desired fields and outputs), not to the envelope. */
function formAttributes(l: ReturnType<typeof line>): Set<string> {
  const c = l.defaultCodec;
  return new Set([...c.fields.filter((f) => !(c.artifactBacked && f.wire === "manifestDigest")).map((f) => f.attribute), ...c.outputs.map((o) => o.attribute)]);
}

describe("resource type schemas", () => {
  it("row 13: there is no generic takoform_resource; form_* are never Optional or Required; there is no spec_json", () => {
    expect(lines().map((l) => l.type)).not.toContain("takoform_resource");
    for (const l of lines()) {
      expect(l.schema.attributes).not.toHaveProperty("spec_json");
      for (const name of ["form_api_version", "form_kind", "form_definition_version", "form_schema_digest", "form_package_digest"]) {
        expect(l.schema.attributes[name]!.mode, `${l.type}.${name}`).toBe("computed");
        expect(l.schema.attributes[name]!.useStateForUnknown).toBe(true);
      }
    }
  });

  it("row 34: declared outputs are typed Computed attributes, never Optional, with no default", () => {
    expect(line("WorkerEndpoint").schema.attributes.hostname).toEqual(expect.objectContaining({ mode: "computed", type: { kind: "string" }, forceNew: false }));
    expect(line("WorkerEndpoint").schema.attributes.url!.mode).toBe("computed");
    expect(Object.keys(line("Worker", MESH).schema.attributes)).toEqual(expect.arrayContaining(["namespace_id", "version_id"]));
    for (const l of lines()) {
      for (const output of l.defaultCodec.outputs) {
        const attribute = l.schema.attributes[output.attribute]!;
        expect(attribute.mode).toBe("computed");
        expect(attribute.default).toBeUndefined();
      }
    }
  });

  it("row 35: the reserved list covers every envelope attribute, and a Form field or output taking one is refused", () => {
    for (const l of lines()) {
      const own = formAttributes(l);
      for (const name of Object.keys(l.schema.attributes)) {
        if (own.has(name)) continue;
        const allowed = l.defaultCodec.artifactBacked ? [...RESERVED_ATTRIBUTES, "manifest_digest", "main_module", "modules", "files"] : RESERVED_ATTRIBUTES;
        expect(allowed, `${l.type}.${name}`).toContain(name);
      }
    }
    for (const name of ENVELOPE_ATTRIBUTES) expect(RESERVED_ATTRIBUTES).toContain(name);
    for (const field of ["space", "uid", "namePrefix", "outputsJson", "revisionOwner", "count", "dependsOn"]) {
      const c = codecOf(syntheticDoc("Widget", { [field]: { type: "string", description: "x" } }));
      expect(surfaceError(() => resourceTypeSchema("takoform_widget", [c], c)).code, field).toBe("reserved-attribute");
    }
    const output = codecOf(syntheticDoc("Widget", { size: { type: "integer", default: 1 } }, { update: true, outputs: { size: { type: "integer" } } }));
    const collision = surfaceError(() => resourceTypeSchema("takoform_widget", [output], output));
    expect(collision.code).toBe("output-collision");
    expect(collision.message).toContain("Form output collides with an existing attribute");
    const envelopeOutput = codecOf(syntheticDoc("Widget", {}, { outputs: { ready: { type: "boolean" } } }));
    expect(surfaceError(() => resourceTypeSchema("takoform_widget", [envelopeOutput], envelopeOutput)).code).toBe("output-collision");
  });

  it("row 40: Forms without outputs declare no output attributes", () => {
    for (const l of lines()) {
      if (l.defaultCodec.outputs.length > 0) continue;
      const own = formAttributes(l);
      const extra = Object.entries(l.schema.attributes).filter(([name, a]) => own.has(name) && a.mode === "computed");
      expect(extra, l.type).toEqual([]);
    }
    expect(Object.keys(line("ModuleWorker").schema.attributes).every((n) => RESERVED_ATTRIBUTES.includes(n))).toBe(true);
  });

  it("row 43: update_timeout exists iff the Form declares update; no-update Forms replace on every desired attribute", () => {
    const updatable = lines()
      .filter((l) => l.schema.declaresUpdate)
      .map((l) => l.type)
      .sort();
    expect(updatable).toEqual([
      "takoform_at_least_once_queue",
      "takoform_mesh_container",
      "takoform_mesh_service",
      "takoform_mesh_worker",
      "takoform_queue_consumer",
      "takoform_worker_cron_trigger",
      "takoform_worker_deployment",
    ]);
    for (const l of lines()) {
      expect(Object.hasOwn(l.schema.attributes, "update_timeout"), l.type).toBe(l.schema.declaresUpdate);
      expect(l.schema.attributes.create_timeout!.mode).toBe("optional");
      expect(l.schema.attributes.delete_timeout!.mode).toBe("optional");
      if (l.schema.declaresUpdate) continue;
      for (const name of formAttributes(l)) {
        const a = l.schema.attributes[name]!;
        if (a.mode !== "computed") expect(a.forceNew, `${l.type}.${name}`).toBe(true);
      }
    }
    expect(line("WorkerDeployment").schema.attributes.versions!.forceNew).toBe(false);
    expect(line("WorkerDeployment").schema.attributes.worker!.forceNew).toBe(true);
    expect(line("Service", MESH).schema.attributes.tier!.forceNew).toBe(true);
  });

  it("row 63: no resource attribute is sensitive", () => {
    const visit = (a: AttributeSchema, path: string): void => {
      expect(a.sensitive ?? false, path).toBe(false);
      if (a.type.kind === "object") for (const [k, v] of Object.entries(a.type.attributes)) visit(v, `${path}.${k}`);
      if ((a.type.kind === "list" || a.type.kind === "set") && a.type.element.kind === "object") {
        for (const [k, v] of Object.entries(a.type.element.attributes)) visit(v, `${path}[].${k}`);
      }
    };
    for (const l of lines()) for (const [name, a] of Object.entries(l.schema.attributes)) visit(a, `${l.type}.${name}`);
  });

  it("row 73: a Form line that advances keeps one Terraform resource type serving both definitions", () => {
    const mw = line("ModuleWorker");
    expect(mw.type).toBe("takoform_module_worker");
    expect(mw.codecs.map((c) => c.ref.definitionVersion)).toEqual(["0.1.0", "0.2.0"]);
    expect(mw.defaultCodec.ref.definitionVersion).toBe("0.1.0");
    expect(lines().filter((l) => l.kind === "ModuleWorker")).toHaveLength(1);
    // Promoting 0.2.0 changes nothing about the type's surface.
    const promoted = resourceTypeSchema(mw.type, mw.codecs, mw.codecs[1]!);
    expect(Object.keys(promoted.attributes)).toEqual(Object.keys(mw.schema.attributes));
  });

  it("a definition whose field the type cannot carry (retyped) is refused for that type", () => {
    const current = codec("AtLeastOnceQueue");
    const doc = bundledDoc("edge", "at-least-once-queue");
    doc.definitionVersion = "2.0.0";
    doc.desiredSchema.properties.deliveryDelaySeconds = { type: "string", default: "0", description: "retyped" };
    delete doc.conformanceFixtures;
    delete doc.negativeConformanceFixtures;
    const retyped = codecOf(doc, "at-least-once-queue");
    const error = surfaceError(() => resourceTypeSchema("takoform_at_least_once_queue", [current, retyped], current));
    expect(error.code).toBe("codec-not-carried");
    expect(error.message).toContain("Form codec declares a field this provider build cannot carry");
  });

  it("a newer definition staged beside the default adds its fields as Optional attributes; a value for one is refused on a resource bound to a definition without it", () => {
    const current = codec("AtLeastOnceQueue");
    const doc = bundledDoc("edge", "at-least-once-queue");
    doc.definitionVersion = "0.2.0";
    doc.desiredSchema.properties.maxMessageBytes = { type: "integer", minimum: 1, default: 1024, description: "Largest message." };
    delete doc.conformanceFixtures;
    delete doc.negativeConformanceFixtures;
    const staged = codecOf(doc, "at-least-once-queue");
    const schema = resourceTypeSchema("takoform_at_least_once_queue", [current, staged], current);
    expect(schema.attributes.max_message_bytes).toEqual(expect.objectContaining({ mode: "optional", forceNew: false }));
    expect(schema.attributes.max_message_bytes!.default).toBeUndefined();
    expect(Object.keys(schema.attributes).slice(-3)).toEqual(["message_retention_seconds", "delivery_delay_seconds", "max_message_bytes"]);
    const planned = { message_retention_seconds: 60, delivery_delay_seconds: 0, max_message_bytes: 2048 };
    const problems = undeclaredFieldProblems(current, schema, planned);
    expect(problems.map((p) => [p.summary, p.attribute])).toEqual([["AtLeastOnceQueue field not declared by this definition", "max_message_bytes"]]);
    expect(undeclaredFieldProblems(staged, schema, planned)).toEqual([]);
    expect(undeclaredFieldProblems(current, schema, { ...planned, max_message_bytes: null })).toEqual([]);
    // A defaulted attribute holding its default is not a problem for an older definition without it.
    const priorDoc = bundledDoc("edge", "at-least-once-queue");
    priorDoc.definitionVersion = "0.0.9";
    delete priorDoc.desiredSchema.properties.deliveryDelaySeconds;
    delete priorDoc.conformanceFixtures;
    delete priorDoc.negativeConformanceFixtures;
    const prior = codecOf(priorDoc, "at-least-once-queue");
    expect(undeclaredFieldProblems(prior, schema, { message_retention_seconds: 60, delivery_delay_seconds: 0 })).toEqual([]);
    expect(undeclaredFieldProblems(prior, schema, { message_retention_seconds: 60, delivery_delay_seconds: 5 })).toHaveLength(1);
  });

  it("envelope: name / name_prefix / revision_owner by role, space, timeouts and conditions", () => {
    const identity = line("EdgeKVNamespace").schema.attributes;
    expect(identity.name).toEqual(expect.objectContaining({ mode: "optional-computed", forceNew: true }));
    expect(identity.name!.useStateForUnknown).toBeUndefined();
    expect(identity.name_prefix).toEqual(expect.objectContaining({ mode: "optional", forceNew: true }));
    expect(identity).not.toHaveProperty("revision_owner");
    expect(identity.space).toEqual(expect.objectContaining({ mode: "optional-computed", forceNew: true, useStateForUnknown: true }));
    expect(identity.uid).toEqual(expect.objectContaining({ mode: "computed", useStateForUnknown: true }));
    expect(identity.generation!.useStateForUnknown).toBeUndefined();
    expect(identity.ready!.type).toEqual({ kind: "bool" });
    expect(identity.outputs_json!.type).toEqual({ kind: "json" });
    const conditions = identity.conditions!.type;
    expect(conditions.kind === "list" && conditions.element.kind === "object" && Object.keys(conditions.element.attributes)).toEqual([
      "type",
      "status",
      "reason",
      "message",
      "host_reason",
      "observed_generation",
      "last_transition_time",
    ]);
    const revision = line("WorkerVersion").schema.attributes;
    expect(revision.name).toEqual(expect.objectContaining({ mode: "optional-computed", forceNew: true }));
    expect(revision.name!.useStateForUnknown).toBeUndefined();
    expect(revision).not.toHaveProperty("name_prefix");
    expect(revision.revision_owner).toEqual(expect.objectContaining({ mode: "optional", forceNew: true }));
    expect(revisionNamePrefix(codec("WorkerBundle"))).toBe("bundle");
    expect(revisionNamePrefix(codec("WorkerVersion"))).toBe("version");
  });

  it("WorkerBundle carries the bundle authoring surface (manifest_digest Optional+Computed, main_module, modules)", () => {
    const bundle = line("WorkerBundle");
    expect(bundle.defaultCodec.artifactBacked).toBe(true);
    const a = bundle.schema.attributes;
    expect(a.manifest_digest).toEqual(expect.objectContaining({ mode: "optional-computed", forceNew: true }));
    expect(a.main_module).toEqual(expect.objectContaining({ mode: "optional", forceNew: true }));
    expect(a.modules!.type.kind === "list" && a.modules!.type.minItems).toBe(1);
    const element = a.modules!.type.kind === "list" ? a.modules!.type.element : null;
    expect(element?.kind === "object" && Object.fromEntries(Object.entries(element.attributes).map(([k, v]) => [k, v.mode]))).toEqual({
      name: "required",
      content_type: "required",
      content_file: "optional",
      size: "computed",
      digest: "computed",
    });
    expect(a.files).toBeUndefined();
    expect(
      lines()
        .filter((l) => l.defaultCodec.artifactBacked)
        .map((l) => l.type)
        .sort(),
    ).toEqual(["takoform_sqlite_migration_set", "takoform_static_asset_bundle", "takoform_worker_bundle"]);
  });

  it("StaticAssetBundle and SQLiteMigrationSet carry the files authoring surface (manifest_digest Optional+Computed, files)", () => {
    for (const kind of ["StaticAssetBundle", "SQLiteMigrationSet"]) {
      const a = line(kind, "edge.takoform-cdk.dev/v1beta1").schema.attributes;
      expect(a.manifest_digest, kind).toEqual(expect.objectContaining({ mode: "optional-computed", forceNew: true }));
      expect(a.main_module, kind).toBeUndefined();
      expect(a.modules, kind).toBeUndefined();
      const files = a.files!.type;
      expect(files.kind === "list" && [files.minItems, files.maxItems], kind).toEqual([1, 16384]);
      const element = files.kind === "list" ? files.element : null;
      expect(element?.kind === "object" && Object.fromEntries(Object.entries(element.attributes).map(([k, v]) => [k, v.mode])), kind).toEqual({
        path: "required",
        media_type: "required",
        content_file: "required",
        size: "computed",
        digest: "computed",
      });
    }
  });

  it("desired attributes follow §5.7: sets, JSON maps, binding and object lists, enums and integer bounds", () => {
    const v = line("WorkerVersion").schema.attributes;
    expect(v.handlers!.type).toEqual({ kind: "set", element: { kind: "string", enum: ["fetch", "scheduled", "queue"] }, minItems: 1 });
    expect(v.vars_json).toEqual(expect.objectContaining({ mode: "optional-computed", default: "{}", type: { kind: "json" } }));
    expect(v.kv_bindings!.type.kind === "list" && v.kv_bindings!.type.element.kind === "object" && Object.keys(v.kv_bindings!.type.element.attributes)).toEqual(
      ["name", "target_name"],
    );
    expect(v.kv_bindings!.default).toEqual([]);
    const d = line("WorkerDeployment").schema.attributes.versions!.type;
    expect(d.kind === "list" && [d.minItems, d.maxItems, d.element.kind === "object" && Object.keys(d.element.attributes)]).toEqual([
      1,
      8,
      ["worker_version", "weight"],
    ]);
    const q = line("AtLeastOnceQueue").schema.attributes;
    expect(q.message_retention_seconds).toEqual(
      expect.objectContaining({ mode: "required", type: { kind: "number", integer: true, minimum: 60, maximum: 1209600 } }),
    );
    expect(q.delivery_delay_seconds).toEqual(expect.objectContaining({ mode: "optional-computed", default: 0 }));
    expect(line("QueueConsumer").schema.attributes.dead_letter_queue!.mode).toBe("optional");
    expect(line("Service", MESH).schema.attributes.tier!.type).toEqual({ kind: "string", enum: ["standard", "edge"] });
  });

  it("placeholderEligible: the optional, mutable fields of a Form that declares update", () => {
    expect(line("Container", MESH).schema.placeholderEligible).toEqual(["namespace_id"]);
    expect(line("Service", MESH).schema.placeholderEligible).toEqual(["service_bindings"]);
    expect(line("Worker", MESH).schema.placeholderEligible).toEqual(["containers"]);
    expect(line("AtLeastOnceQueue").schema.placeholderEligible).toEqual(["delivery_delay_seconds"]);
    expect(line("WorkerVersion").schema.placeholderEligible).toEqual([]);
    expect(line("QueueConsumer").schema.placeholderEligible).toEqual(["dead_letter_queue"]);
  });

  it("schemasFor(table) derives the same schema for every type of the bundled registry as the generator", () => {
    const schemas = schemasFor(bundledCodecTable());
    expect(schemas.map((x) => x.type)).toEqual(lines().map((l) => l.type));
    for (const schema of schemas) expect(JSON.stringify(schema)).toBe(JSON.stringify(lines().find((l) => l.type === schema.type)!.schema));
  });

  it("row 75: the attribute surface renders deterministically (envelope, then desired fields, then outputs)", () => {
    for (const l of lines()) {
      const again = resourceTypeSchema(l.type, [...l.codecs].reverse(), l.defaultCodec, l.lines);
      expect(JSON.stringify(again)).toBe(JSON.stringify(l.schema));
    }
    const names = Object.keys(line("WorkerEndpoint").schema.attributes);
    expect(names.slice(0, 3)).toEqual(["name", "name_prefix", "space"]);
    expect(names.slice(-3)).toEqual(["worker", "hostname", "url"]);
    expect(line("EdgeKVNamespace", OTHER).type).toBe("takoform_other_edge_kv_namespace");
    expect(line("EdgeKVNamespace", EDGE).type).toBe("takoform_edge_kv_namespace");
  });
});
