import { describe, it, expect } from "vitest";
import { GenerateError } from "../../src/generate/index.ts";
import { codec, codecOf, EDGE, MESH, syntheticDoc, type Doc } from "./support.ts";

function generateError(doc: Doc): GenerateError {
  try {
    codecOf(doc);
  } catch (error) {
    if (error instanceof GenerateError) return error;
    throw error;
  }
  throw new Error("expected a GenerateError");
}

describe("deriveCodec", () => {
  it("row 55: the environment namespace is declared once — vars (map keys), requiredSensitiveVars (items), the five binding lists (binding names)", () => {
    const roles = Object.fromEntries(
      codec("WorkerVersion")
        .fields.filter((f) => f.environment)
        .map((f) => [f.wire, f.environment]),
    );
    expect(roles).toEqual({
      vars: "map-keys",
      requiredSensitiveVars: "items",
      kvBindings: "binding-names",
      bucketBindings: "binding-names",
      sqliteBindings: "binding-names",
      queueProducerBindings: "binding-names",
      serviceBindings: "binding-names",
    });
    // Forms without a binding list have no module environment.
    expect(codec("Service", MESH).fields.some((f) => f.environment)).toBe(false);
  });

  it("derives kinds, wire and attribute names, requiredness, defaults, replacement and absence semantics", () => {
    const consumer = codec("QueueConsumer");
    const byWire = Object.fromEntries(consumer.fields.map((f) => [f.wire, f]));
    expect(byWire.maxBatchTimeoutSeconds).toEqual(
      expect.objectContaining({ attribute: "max_batch_timeout_seconds", required: true, immutable: false, type: { kind: "integer", minimum: 0, maximum: 60 } }),
    );
    expect(byWire.queue).toEqual(expect.objectContaining({ immutable: true, type: { kind: "ref", target: { apiVersion: EDGE, kind: "AtLeastOnceQueue" } } }));
    expect(byWire.deadLetterQueue).toEqual(expect.objectContaining({ required: false, absenceIsSemantic: true, immutable: false }));
    expect(byWire.deadLetterQueue!.default).toBeUndefined();
    const version = codec("WorkerVersion");
    expect(version.fields.find((f) => f.wire === "vars")).toEqual(
      expect.objectContaining({ attribute: "vars_json", default: "{}", absenceIsSemantic: false, immutable: true }),
    );
    expect(version.fields.every((f) => f.immutable)).toBe(true);
    expect(version.fields.find((f) => f.wire === "kvBindings")!.type).toEqual(
      expect.objectContaining({ kind: "binding-list", binding: "module-worker.edge-kv", target: { apiVersion: EDGE, kind: "EdgeKVNamespace" }, maxItems: 64 }),
    );
    expect(codec("WorkerEndpoint").outputs).toEqual([
      expect.objectContaining({ wire: "hostname", attribute: "hostname", type: { kind: "string" } }),
      expect.objectContaining({ wire: "url", attribute: "url", type: { kind: "string" } }),
    ]);
    expect(codec("SQLiteDatabase").slug).toBe("sqlite-database");
    expect(codec("EdgeKVNamespace").slug).toBe("edge-kv-namespace");
  });

  it("a closed nested object of scalars and references (v1beta1 WorkerVersion.assets) is one object field", () => {
    const beta = "edge.takoform-cdk.dev/v1beta1";
    const assets = codec("WorkerVersion", beta).fields.find((f) => f.wire === "assets")!;
    expect(assets).toEqual(
      expect.objectContaining({
        attribute: "assets",
        required: false,
        immutable: true,
        absenceIsSemantic: true,
        type: {
          kind: "object",
          members: [
            expect.objectContaining({
              wire: "bundle",
              attribute: "bundle",
              required: true,
              type: { kind: "ref", target: { apiVersion: beta, kind: "StaticAssetBundle" } },
            }),
            expect.objectContaining({ wire: "runWorkerFirst", attribute: "run_worker_first", required: true, type: { kind: "bool" } }),
            expect.objectContaining({
              wire: "notFoundHandling",
              attribute: "not_found_handling",
              required: true,
              type: { kind: "string", enum: ["none", "single_page_application"] },
            }),
          ],
        },
      }),
    );
    expect(assets.default).toBeUndefined();
    // The v1alpha1 line has no such field.
    expect(codec("WorkerVersion").fields.some((f) => f.wire === "assets")).toBe(false);
  });

  it("the three manifest-digest revisions are artifact-backed, each recording the manifest kind its digest names (§7.1)", () => {
    const beta = "edge.takoform-cdk.dev/v1beta1";
    const expected = { WorkerBundle: "WorkerBundle", StaticAssetBundle: "StaticAssetBundle", SQLiteMigrationSet: "MigrationBundle" } as const;
    for (const [kind, manifestKind] of Object.entries(expected)) {
      const c = codec(kind, beta);
      expect(c.artifactBacked, kind).toBe(true);
      expect(c.manifestKind, kind).toBe(manifestKind);
      expect(c.role).toBe("revision");
      expect(c.fields).toEqual([expect.objectContaining({ wire: "manifestDigest", attribute: "manifest_digest", required: true, immutable: true })]);
    }
    // The first lane's WorkerBundle too; any other codec records no manifest kind.
    expect(codec("WorkerBundle", "edge.takoform-cdk.dev/v1alpha1").manifestKind).toBe("WorkerBundle");
    expect(codec("SQLiteMigrationApplication", beta).artifactBacked).toBe(false);
    expect(codec("SQLiteMigrationApplication", beta).manifestKind).toBeUndefined();
  });

  it("converts declared defaults to attribute form (sorted sets, JSON text, target names)", () => {
    const c = codecOf(
      syntheticDoc(
        "Widget",
        {
          tags: { type: "array", uniqueItems: true, items: { type: "string" }, default: ["b", "a"] },
          labels: {
            type: "object",
            additionalProperties: { type: "string" },
            propertyNames: { type: "string", "x-takoform-fieldPolicy": "portable-data-only-v1" },
            default: { z: "1", a: "<" },
          },
          mode: { type: "string", enum: ["x", "y"], default: "y" },
          peers: {
            type: "array",
            default: [{ label: "p", peer: { apiVersion: EDGE, kind: "ModuleWorker", name: "w" } }],
            items: {
              type: "object",
              additionalProperties: false,
              properties: {
                label: { type: "string" },
                peer: {
                  type: "object",
                  additionalProperties: false,
                  properties: { apiVersion: { type: "string", const: EDGE }, kind: { type: "string", const: "ModuleWorker" }, name: { type: "string" } },
                  required: ["apiVersion", "kind", "name"],
                  "x-takoform-target-formrefs": [
                    { apiVersion: EDGE, kind: "ModuleWorker", definitionVersion: "0.1.0", schemaDigest: `sha256:${"a".repeat(64)}` },
                  ],
                },
              },
              required: ["label", "peer"],
            },
          },
        },
        { update: true },
      ),
    );
    const d = Object.fromEntries(c.fields.map((f) => [f.attribute, f.default]));
    expect(d).toEqual({ tags: ["a", "b"], labels_json: '{"a":"\\u003c","z":"1"}', mode: "y", peers: [{ label: "p", peer: "w" }] });
    expect(c.fields.find((f) => f.wire === "labels")!.environment).toBeUndefined();
  });

  it("integer exclusive bounds, string constraints and a nested immutable pointer", () => {
    const c = codecOf(
      syntheticDoc(
        "Widget",
        {
          size: { type: "integer", exclusiveMinimum: 0, exclusiveMaximum: 10 },
          label: { type: "string", minLength: 1, maxLength: 8, pattern: "^[a-z]+$" },
          owner: {
            type: "object",
            additionalProperties: false,
            properties: { apiVersion: { type: "string", const: EDGE }, kind: { type: "string", const: "ModuleWorker" }, name: { type: "string" } },
            required: ["apiVersion", "kind", "name"],
            "x-takoform-target-formrefs": [{ apiVersion: EDGE, kind: "ModuleWorker", definitionVersion: "0.1.0", schemaDigest: `sha256:${"a".repeat(64)}` }],
          },
        },
        { update: true, required: ["size", "label", "owner"], immutable: ["/owner/name"] },
      ),
    );
    const [size, label, owner] = c.fields;
    expect(size!.type).toEqual({ kind: "integer", minimum: 1, maximum: 9 });
    expect(label!.type).toEqual({ kind: "string", minLength: 1, maxLength: 8, pattern: "^[a-z]+$" });
    expect([size!.immutable, label!.immutable, owner!.immutable]).toEqual([false, false, true]);
  });

  it("an unsupported schema shape is a generator error naming the file and the JSON pointer", () => {
    const cases: [Doc, string, RegExp][] = [
      [syntheticDoc("Widget", { ratio: { type: "number", description: "x" } }), "/desiredSchema/properties/ratio", /integer/],
      [syntheticDoc("Widget", { tags: { type: "array", items: { type: "string" }, description: "x" } }), "/desiredSchema/properties/tags", /uniqueItems/],
      [
        syntheticDoc("Widget", {
          nested: {
            type: "object",
            additionalProperties: false,
            properties: { deeper: { type: "object", additionalProperties: false, properties: { a: { type: "string" } } } },
            description: "x",
          },
        }),
        "/desiredSchema/properties/nested/properties/deeper",
        /nested object member/,
      ],
      [syntheticDoc("Widget", { either: { type: ["string", "integer"], description: "x" } }), "/desiredSchema/properties/either/type", /exactly one type/],
      [
        syntheticDoc("Widget", {
          rows: {
            type: "array",
            description: "x",
            items: { type: "object", additionalProperties: false, properties: { deep: { type: "array", items: { type: "string" } } } },
          },
        }),
        "/desiredSchema/properties/rows/items/properties/deep",
        /list element member/,
      ],
      [
        syntheticDoc("Widget", { rows: { type: "array", description: "x", items: { type: "integer" } } }),
        "/desiredSchema/properties/rows/items",
        /array items/,
      ],
      [syntheticDoc("Widget", {}, { outputs: { info: { type: "array", items: { type: "string" } } } }), "/outputSchema/properties/info/type", /output must be/],
    ];
    for (const [doc, pointer, detail] of cases) {
      const error = generateError(doc);
      expect(error.file).toBe("test/definition.json");
      expect(error.pointer).toBe(pointer);
      expect(error.detail).toMatch(detail);
      expect(error.message).toContain(`test/definition.json#${pointer}`);
    }
  });

  it("two wire names mapping to one attribute are refused", () => {
    const error = generateError(syntheticDoc("Widget", { fooBar: { type: "string", description: "x" }, foo_bar: { type: "string", description: "y" } }));
    expect(error.code).toBe("attribute-name");
    expect(error.detail).toContain("foo_bar");
  });
});
