import { describe, it, expect } from "vitest";
import { readFileSync } from "node:fs";
import { formatFormRef, formRefKey, type FormRef } from "../../src/core/index.ts";
import { loadDefinitions } from "../../src/forms/catalog.ts";
import { CodecTable, combineGenerated, FormRegistry, RegistryError, type GeneratedRegistry, type SupportedRef } from "../../src/registry/index.ts";
import { bundledCodecTable, bundledRegistry } from "../../src/registry/bundled.ts";
import { EDGE, MESH, OTHER, PACKAGES } from "../codec/support.ts";
import { laneNamed } from "../../src/core/lanes.ts";

const digest = (c: string) => `sha256:${c.repeat(64)}`;
const ref = (kind: string, definitionVersion: string, schema: string, pkg: string | null = digest("e"), apiVersion = EDGE): SupportedRef => ({
  apiVersion,
  kind,
  definitionVersion,
  schemaDigest: digest(schema),
  packageDigest: pkg,
});
const identity = ({ apiVersion, kind, definitionVersion, schemaDigest }: FormRef): FormRef => ({ apiVersion, kind, definitionVersion, schemaDigest });

function thrown(fn: () => unknown): RegistryError {
  try {
    fn();
  } catch (error) {
    if (error instanceof RegistryError) return error;
    throw error;
  }
  throw new Error("expected a RegistryError");
}

const candidateEntries = ["edge/v1alpha1", "edge/v1beta1", "other/v1alpha1", "mesh/v1alpha1"].flatMap(
  (family) =>
    JSON.parse(readFileSync(`${PACKAGES}/forms/${family}/candidate-set.json`, "utf8")).defaultCreates as { formRef: FormRef; packageDigest: string }[],
);
const BETA = "edge.takoform-cdk.dev/v1beta1";

describe("bundled registry", () => {
  it("row 76: the registry equals the candidate sets — every default create is a candidate entry with its package digest, and every loaded definition is supported", () => {
    const registry = FormRegistry.of(bundledRegistry.supported, bundledRegistry.defaultCreates);
    const defaults = registry.defaultCreates();
    expect(defaults.map(formRefKey).sort()).toEqual(candidateEntries.map((e) => formRefKey(e.formRef)).sort());
    for (const entry of candidateEntries) {
      expect(registry.lookup(entry.formRef)?.packageDigest).toBe(entry.packageDigest);
      expect(identity(registry.defaultCreate(entry.formRef))).toEqual(entry.formRef);
    }
    const catalog = loadDefinitions(PACKAGES);
    expect(catalog.problems).toEqual([]);
    expect(registry.supportedRefs().map(formRefKey)).toEqual(catalog.forms.map((f) => formRefKey(f.ref)).sort());
    for (const form of catalog.forms) expect(registry.lookup(form.ref)?.packageDigest).toBe(form.packageDigest);
    // One default per line (12 + 15 Edge lines of the two lanes, 3 mesh, 1 other); each lane's ModuleWorker 0.2.0 is supported only.
    expect(defaults).toHaveLength(31);
    expect(registry.supportedRefsFor({ apiVersion: BETA, kind: "ModuleWorker" }).map((r) => r.definitionVersion)).toEqual(["0.1.0", "0.2.0"]);
    expect(registry.supportedRefsFor({ apiVersion: EDGE, kind: "ModuleWorker" }).map((r) => r.definitionVersion)).toEqual(["0.1.0", "0.2.0"]);
    expect(registry.defaultCreate({ apiVersion: EDGE, kind: "ModuleWorker" }).definitionVersion).toBe("0.1.0");
  });

  it("row 77: every default create is supported and has a codec; an unknown kind fails closed naming the line", () => {
    const table = bundledCodecTable();
    for (const ref of table.registry.defaultCreates()) {
      expect(table.registry.has(ref)).toBe(true);
      expect(table.defaultCreate(ref).codec.ref).toEqual(identity(ref));
    }
    const error = thrown(() => table.registry.defaultCreate({ apiVersion: EDGE, kind: "NoSuchKind" }));
    expect(error.code).toBe("no-default-create");
    expect(error.message).toContain(`${EDGE} kind "NoSuchKind"`);
    expect(error.message).toContain("known NoSuchKind refs: none");
    expect(thrown(() => table.defaultCreate({ apiVersion: OTHER, kind: "ModuleWorker" })).message).toContain("ModuleWorker@0.1.0");
  });

  it("every bundled line has exactly one resource type and the type table names the class; an Edge type serves a line per lane", () => {
    const table = bundledCodecTable();
    // 15 Edge types (12 of them with a line in each lane), 3 mesh, 1 other.
    expect(table.types()).toHaveLength(19);
    expect(table.linesOf("takoform_worker_version").map((l) => l.apiVersion)).toEqual([BETA, EDGE]);
    expect(table.linesOf("takoform_static_asset_bundle").map((l) => l.apiVersion)).toEqual([BETA]);
    expect(table.type("takoform_worker_version")?.apiVersion).toBe(BETA);
    expect(table.typeForLine({ apiVersion: EDGE, kind: "WorkerVersion" })?.type).toBe("takoform_worker_version");
    expect(table.typeForLine({ apiVersion: OTHER, kind: "EdgeKVNamespace" })).toEqual({
      type: "takoform_other_edge_kv_namespace",
      apiVersion: OTHER,
      kind: "EdgeKVNamespace",
      className: "OtherEdgeKVNamespace",
    });
    expect(table.type("takoform_mesh_service")?.className).toBe("MeshService");
    expect(table.codecsFor({ apiVersion: EDGE, kind: "ModuleWorker" }).map((c) => c.ref.definitionVersion)).toEqual(["0.1.0", "0.2.0"]);
  });
});

describe("FormRegistry", () => {
  const v010 = ref("ModuleWorker", "0.1.0", "a");
  const v009 = ref("ModuleWorker", "0.0.9", "c", digest("d"));
  const base = FormRegistry.empty().register(v010, { asDefaultCreate: true });

  it("row 78: holds two definition versions of one Form — register without promoting keeps the default; both exact lookups resolve; sorted per line; promoting moves only the default; the base is untouched", () => {
    const both = base.register(v009);
    expect(both).not.toBe(base);
    expect(identity(both.defaultCreate(v010))).toEqual(identity(v010));
    expect(both.lookup(v010)).toEqual(v010);
    expect(both.lookup(v009)).toEqual(v009);
    expect(both.supportedRefsFor(v010).map((r) => r.definitionVersion)).toEqual(["0.0.9", "0.1.0"]);
    expect(both.supportedRefsForKind("ModuleWorker")).toHaveLength(2);

    const promoted = both.register(v009, { asDefaultCreate: true });
    expect(promoted.defaultCreate(v010).definitionVersion).toBe("0.0.9");
    expect(promoted.supportedRefs()).toEqual(both.supportedRefs());
    expect(both.defaultCreate(v010).definitionVersion).toBe("0.1.0");

    expect(base.lookup(v009)).toBeUndefined();
    expect(base.size).toBe(1);
  });

  it("row 79: refuses a second package digest for one identity; an identical re-register is a no-op; an incomplete ref is refused", () => {
    const conflict = thrown(() => base.register({ ...v010, packageDigest: digest("f") }));
    expect(conflict.code).toBe("conflicting-provenance");
    expect(conflict.message).toContain("already registered with different package provenance");
    expect(conflict.message).toContain(formatFormRef(v010));
    expect(thrown(() => base.register({ ...v010, packageDigest: null })).code).toBe("conflicting-provenance");

    expect(base.register({ ...v010 })).toBe(base);
    expect(base.register({ ...v010 }, { asDefaultCreate: true })).toBe(base);

    for (const member of ["apiVersion", "kind", "definitionVersion", "schemaDigest"] as const) {
      const incomplete = thrown(() => base.register({ ...v010, [member]: "" }));
      expect(incomplete.code).toBe("incomplete-ref");
      expect(incomplete.message).toContain("must carry apiVersion, kind, definitionVersion and schemaDigest");
    }
  });

  it("the package digest is provenance, never part of the key: lookups ignore it", () => {
    expect(base.lookup({ ...identity(v010) })?.packageDigest).toBe(v010.packageDigest);
    expect(base.lookup({ ...identity(v010), schemaDigest: digest("b") })).toBeUndefined();
    expect(base.lookup({ ...identity(v010), definitionVersion: "0.1.1" })).toBeUndefined();
    expect(base.lookup({ ...identity(v010), apiVersion: OTHER })).toBeUndefined();
  });

  it("require() names the asked ref and every known ref of the kind", () => {
    const other = ref("ModuleWorker", "0.1.0", "a", digest("e"), OTHER);
    const registry = base.register(v009).register(other);
    const error = thrown(() => registry.require(ref("ModuleWorker", "9.9.9", "9")));
    expect(error.code).toBe("unsupported-ref");
    expect(error.message).toContain("ModuleWorker@9.9.9");
    expect(error.knownRefs).toEqual([formatFormRef(v009), formatFormRef(v010), formatFormRef(other)]);
  });

  it("sorts supportedRefs by apiVersion, kind, definitionVersion, schemaDigest", () => {
    const refs = [ref("B", "0.1.0", "2"), ref("A", "0.2.0", "1"), ref("A", "0.1.0", "3"), ref("A", "0.1.0", "0", digest("e"), MESH), ref("A", "0.1.0", "1")];
    let registry = FormRegistry.empty();
    for (const r of refs) registry = registry.register(r);
    expect(registry.supportedRefs().map((r) => `${r.apiVersion}|${r.kind}|${r.definitionVersion}|${r.schemaDigest.slice(-1)}`)).toEqual([
      `${EDGE}|A|0.1.0|1`,
      `${EDGE}|A|0.1.0|3`,
      `${EDGE}|A|0.2.0|1`,
      `${EDGE}|B|0.1.0|2`,
      `${MESH}|A|0.1.0|0`,
    ]);
  });

  it("snapshots are frozen", () => {
    const held = base.lookup(v010)!;
    expect(Object.isFrozen(held)).toBe(true);
    expect(() => base.supportedRefs().push(v009)).not.toThrow();
    expect(base.size).toBe(1);
  });

  it("merge: unions two registries, refuses conflicting provenance and two defaults for one line", () => {
    const project = FormRegistry.empty()
      .register(ref("Widget", "1.0.0", "7"), { asDefaultCreate: true })
      .register(v010);
    const merged = base.merge(project);
    expect(merged.size).toBe(2);
    expect(merged.defaultCreate({ apiVersion: EDGE, kind: "Widget" }).definitionVersion).toBe("1.0.0");
    expect(base.size).toBe(1);
    expect(thrown(() => base.merge(FormRegistry.empty().register({ ...v010, packageDigest: digest("9") }))).code).toBe("conflicting-provenance");
    const otherDefault = FormRegistry.empty().register(v009, { asDefaultCreate: true });
    const error = thrown(() => base.merge(otherDefault));
    expect(error.code).toBe("conflicting-default");
    expect(error.message).toContain("two default create Forms");
  });

  it("of() refuses a default create that is not supported", () => {
    expect(thrown(() => FormRegistry.of([v010], [identity(v009)])).code).toBe("default-not-supported");
  });
});

describe("CodecTable", () => {
  it("forStateRef serves membership, not equality with the default, and fails closed naming the refs it has", () => {
    const table = bundledCodecTable();
    const mw = table.registry.supportedRefsFor({ apiVersion: EDGE, kind: "ModuleWorker" });
    for (const r of mw) expect(table.forStateRef(r).codec.ref).toEqual(identity(r));
    const unknown = { ...identity(mw[0]!), schemaDigest: digest("0") };
    const error = thrown(() => table.forStateRef(unknown));
    expect(error.code).toBe("unsupported-ref");
    expect(error.message).toContain(formatFormRef(unknown));
    expect(error.message).toContain(formatFormRef(mw[0]!));
    expect(error.message).toContain(formatFormRef(mw[1]!));
    expect(table.tryForStateRef(unknown)).toBeUndefined();
  });

  it("a supported ref without a compiled codec fails closed", () => {
    const data: GeneratedRegistry = { ...bundledRegistry, supported: [...bundledRegistry.supported, ref("ModuleWorker", "0.0.1", "1")] };
    const table = CodecTable.fromGenerated(data);
    const error = thrown(() => table.forStateRef(ref("ModuleWorker", "0.0.1", "1")));
    expect(error.code).toBe("no-codec");
    // Named as the ref asked for, but not listed among the codecs the build carries.
    expect(error.message).toContain("ModuleWorker@0.0.1");
    expect(error.knownRefs.some((r) => r.includes("@0.0.1"))).toBe(false);
    expect(error.knownRefs).toHaveLength(4);
  });

  it("refuses generated data of another format", () => {
    expect(thrown(() => CodecTable.fromGenerated({ ...bundledRegistry, format: 2 as 1 })).code).toBe("format-mismatch");
  });
});

describe("combineGenerated (a project registry beside the bundled one)", () => {
  it("the project's types shadow bundled types of the same name or line; registries merge", () => {
    const mw = bundledRegistry.codecs[formRefKey(bundledRegistry.defaultCreates.find((r) => r.kind === "ModuleWorker" && r.apiVersion === EDGE)!)]!;
    const upstreamRef: SupportedRef = { ...ref("ModuleWorker", "0.1.0", "4", digest("5"), "edge.forms.takoform.com/v1alpha1") };
    const project: GeneratedRegistry = {
      format: 1,
      supported: [upstreamRef],
      defaultCreates: [identity(upstreamRef)],
      types: [{ type: "takoform_module_worker", apiVersion: upstreamRef.apiVersion, kind: "ModuleWorker", className: "ModuleWorker" }],
      codecs: { [formRefKey(upstreamRef)]: { ...mw, ref: identity(upstreamRef), packageDigest: upstreamRef.packageDigest } },
    };
    const { data, shadowed } = combineGenerated(bundledRegistry, project);
    expect(shadowed).toEqual(["takoform_module_worker"]);
    const table = CodecTable.fromGenerated(data);
    expect(table.type("takoform_module_worker")?.apiVersion).toBe("edge.forms.takoform.com/v1alpha1");
    expect(table.type("takoform_worker_version")?.apiVersion).toBe(BETA);
    // The bundled ModuleWorker identities stay supported (state written under them is still served).
    expect(table.forStateRef(bundledRegistry.defaultCreates.find((r) => r.kind === "ModuleWorker")!).codec.ref.apiVersion).toBe(EDGE);
    expect(table.forStateRef(upstreamRef).codec.ref).toEqual(identity(upstreamRef));
    expect(data.types.map((t) => t.type)).toEqual([...data.types.map((t) => t.type)].sort());
  });
});
