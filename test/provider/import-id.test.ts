// Import IDs (decision 0017 rule 5; reference §6): the three forms, every malformed shape the
// reference lists plus the ones the brief names, and a fuzz of the parser.

import { describe, expect, it } from "vitest";
import { isResourceName, isSpaceId } from "../../src/core/grammar.ts";
import { IMPORT_ID_SYNTAX, ImportIdError } from "../../src/core/index.ts";
import { parseImportId } from "../../src/provider/import/import-id.ts";
import { HostProvider } from "../../src/provider/provider.ts";
import { bundledRegistry, bundledCodecTable } from "../../src/registry/bundled.ts";
import type { HostClient } from "../../src/client/client.ts";

const REF = { apiVersion: "edge.takoform-cdk.dev/v1alpha1", kind: "ModuleWorker", definitionVersion: "0.0.9", schemaDigest: `sha256:${"c".repeat(64)}` };

// importState makes no host call; a client that throws proves it.
const noHost = () => Promise.reject(new Error("importState must not reach the host")) as Promise<HostClient>;
const provider = new HostProvider({ client: noHost, registry: bundledRegistry, defaultSpace: "default" });

describe("TestV3ImportIdentityForms (parser)", () => {
  it("NAME and SPACE/NAME (split at the first slash)", () => {
    expect(parseImportId("module-worker")).toEqual({ name: "module-worker" });
    expect(parseImportId("  prod/module-worker \n")).toEqual({ space: "prod", name: "module-worker" });
    expect(() => parseImportId("a/b/c")).toThrow(ImportIdError);
  });

  it("the canonical JSON object with a space holding spaces and a colon", () => {
    const id = JSON.stringify({ space: "acme corp: team a", ...REF, name: "module-worker" });
    expect(parseImportId(id)).toEqual({ space: "acme corp: team a", name: "module-worker", ref: REF });
  });

  it('the JSON short form: {"name","space"} without a FormRef; an empty space is absent', () => {
    expect(parseImportId('{"name":"module-worker","space":"prod"}')).toEqual({ name: "module-worker", space: "prod" });
    expect(parseImportId('{"name":"module-worker","space":""}')).toEqual({ name: "module-worker" });
  });

  const malformed: [string, string][] = [
    ["", "import ID is empty"],
    ["{", "not valid JSON"],
    ['{"name":"module-worker","apiVersion":"edge.forms.takoform.com/v1alpha1"}', "together, or none of them"],
    ['{"name":"Module-Worker"}', "is not a resource name"],
    ['{"name":"module-worker","space":"bad/space"}', "is not a SpaceID"],
    ['{"name":"module-worker","unknown":"member"}', 'unknown member "unknown"'],
    ['{"name":"module-worker"} {"name":"other"}', "exactly one JSON object"],
    ['{"name":"module-worker","name":"other"}', "duplicate"],
    ['{"name":1}', "must be a string"],
    ['["module-worker"]', "is not a resource name"],
    ['{"space":"prod"}', 'must carry "name"'],
    [
      `{"name":"w","apiVersion":"forms.takoform.com/v1alpha2","kind":"ModuleWorker","definitionVersion":"0.1.0","schemaDigest":"sha256:${"a".repeat(64)}"}`,
      "not a Form group",
    ],
    [`{"name":"w","apiVersion":"edge.x.dev/v1","kind":"moduleWorker","definitionVersion":"0.1.0","schemaDigest":"sha256:${"a".repeat(64)}"}`, "not a kind"],
    [`{"name":"w","apiVersion":"edge.x.dev/v1","kind":"ModuleWorker","definitionVersion":"1","schemaDigest":"sha256:${"a".repeat(64)}"}`, "SemVer"],
    ['{"name":"w","apiVersion":"edge.x.dev/v1","kind":"ModuleWorker","definitionVersion":"0.1.0","schemaDigest":"sha256:ABC"}', "sha256 digest"],
    ["Module-Worker", "is not a resource name"],
    [" /name", "is not a SpaceID"],
    ["prod/", "is not a resource name"],
  ];
  for (const [id, why] of malformed) {
    it(`refuses ${JSON.stringify(id)}`, () => {
      expect(() => parseImportId(id)).toThrow(ImportIdError);
      try {
        parseImportId(id);
      } catch (err) {
        expect((err as Error).message).toContain(why);
      }
    });
  }
});

describe("TestV3ImportIdentityForms (importState)", () => {
  // The short forms resolve to the default create of the negotiated lane's line, so they ask the
  // host which lane it speaks (test/provider/lanes.test.ts shows both lanes over HTTP); with no
  // host to ask they fail closed, naming why, instead of guessing a lane.
  it("short forms of a type with a line per lane need the negotiated lane; unreachable, they fail lane-unavailable", async () => {
    for (const id of ["module-worker", "prod/module-worker"]) {
      const out = await provider.importState("takoform_module_worker", id);
      expect(out.state).toBeNull();
      expect(out.diagnostics.map((d) => [d.code, d.cause])).toEqual([["takoform.provider/lane-unavailable", "importState must not reach the host"]]);
    }
  });

  it("short forms of a lane-neutral type resolve to its one default create without asking the host", async () => {
    const def = bundledCodecTable().defaultCreate({ apiVersion: "other.takoform-cdk.dev/v1alpha1", kind: "EdgeKVNamespace" }).ref;
    const out = await provider.importState("takoform_other_edge_kv_namespace", "prod/kv");
    expect(out.diagnostics).toEqual([]);
    expect(out.state!.attributes).toEqual({
      name: "kv",
      space: "prod",
      form_api_version: def.apiVersion,
      form_kind: "EdgeKVNamespace",
      form_definition_version: def.definitionVersion,
      form_schema_digest: def.schemaDigest,
      form_package_digest: def.packageDigest,
    });
  });

  it("canonical JSON binds an older definition version with its package digest", async () => {
    const old = bundledCodecTable()
      .registry.supportedRefsFor({ apiVersion: REF.apiVersion, kind: "ModuleWorker" })
      .find((r) => r.definitionVersion === "0.2.0")!;
    const id = JSON.stringify({
      space: "acme corp: team a",
      apiVersion: old.apiVersion,
      kind: "ModuleWorker",
      definitionVersion: "0.2.0",
      schemaDigest: old.schemaDigest,
      name: "module-worker",
    });
    const out = await provider.importState("takoform_module_worker", id);
    expect(out.diagnostics).toEqual([]);
    expect(out.state!.attributes).toMatchObject({
      space: "acme corp: team a",
      form_definition_version: "0.2.0",
      form_schema_digest: old.schemaDigest,
      form_package_digest: old.packageDigest,
    });
  });

  it("an identity the build cannot decode is refused, never rebound to the default", async () => {
    const out = await provider.importState("takoform_module_worker", JSON.stringify({ ...REF, name: "module-worker" }));
    expect(out.state).toBeNull();
    expect(out.diagnostics[0]!.summary).toBe("Import Form identity is not supported by this provider");
    expect(out.diagnostics[0]!.detail).toContain("0.0.9");
    expect(out.diagnostics[0]!.detail).toContain("ModuleWorker@0.1.0");
  });

  it("a ref of another kind or another line is refused", async () => {
    const kv = bundledCodecTable().defaultCreate({ apiVersion: REF.apiVersion, kind: "EdgeKVNamespace" }).ref;
    const other = bundledCodecTable().defaultCreate({ apiVersion: "other.takoform-cdk.dev/v1alpha1", kind: "EdgeKVNamespace" }).ref;
    const wrongKind = await provider.importState("takoform_module_worker", JSON.stringify({ ...kv, packageDigest: undefined, name: "x" }));
    expect(wrongKind.diagnostics[0]!.summary).toBe("Import ID names another Form kind");
    const id = JSON.stringify({
      apiVersion: other.apiVersion,
      kind: other.kind,
      definitionVersion: other.definitionVersion,
      schemaDigest: other.schemaDigest,
      name: "x",
    });
    expect((await provider.importState("takoform_edge_kv_namespace", id)).diagnostics[0]!.summary).toBe("Import ID names another Form line");
    expect((await provider.importState("takoform_other_edge_kv_namespace", id)).state!.attributes["form_api_version"]).toBe(other.apiVersion);
  });

  it("a malformed ID is takoform.provider/import-id-invalid with the syntax and the cause", async () => {
    const out = await provider.importState("takoform_module_worker", '{"name":"module-worker","unknown":"member"}');
    const d = out.diagnostics[0]!;
    expect(out.state).toBeNull();
    expect(d.summary).toBe("Invalid import ID");
    expect(d.code).toBe("takoform.provider/import-id-invalid");
    expect(d.pointer).toBe("/metadata/name");
    expect(d.detail).toContain(IMPORT_ID_SYNTAX);
    expect(d.cause).toContain("unknown");
  });
});

describe("import ID parser fuzz", () => {
  // A seeded generator, so a failure reproduces.
  let seed = 0x2f6e2b1;
  const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const alphabet = ["{", "}", '"', ":", ",", "/", " ", "a", "z", "-", "0", "N", "\\", "u", "\u2028", "\u0000", "\ud800", "é", "[", "]", "n", "a", "m", "e"];
  const seeds = [
    "module-worker",
    "prod/module-worker",
    '{"name":"module-worker"}',
    JSON.stringify({ space: "acme corp: team a", ...REF, name: "module-worker" }),
  ];

  it("every input either parses into grammar-valid members or throws ImportIdError", async () => {
    for (let i = 0; i < 4000; i++) {
      let s = pick(seeds);
      const edits = 1 + Math.floor(rand() * 4);
      for (let e = 0; e < edits; e++) {
        const at = Math.floor(rand() * (s.length + 1));
        const op = rand();
        if (op < 0.4) s = s.slice(0, at) + pick(alphabet) + s.slice(at);
        else if (op < 0.7) s = s.slice(0, at) + s.slice(at + 1);
        else s = s.slice(0, at) + pick(alphabet) + s.slice(at + 1);
      }
      let parsed;
      try {
        parsed = parseImportId(s);
      } catch (err) {
        expect(err).toBeInstanceOf(ImportIdError);
        continue;
      }
      expect(isResourceName(parsed.name)).toBe(true);
      if (parsed.space !== undefined) expect(isSpaceId(parsed.space)).toBe(true);
      // Whatever parsed also imports or is refused with a diagnostic; it never throws.
      const out = await provider.importState("takoform_module_worker", s);
      expect(out.state !== null || out.diagnostics.length > 0).toBe(true);
    }
  });
});
