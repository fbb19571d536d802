import { describe, it, expect } from "vitest";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  planSeal,
  sealPackages,
  staleFiles,
  packageIndex,
  serialize,
  SealError,
  DEFINITION_MEDIA_TYPE,
  FIXTURE_MEDIA_TYPE,
  type PackagePayload,
} from "../../scripts/seal-packages.ts";
import { digestCanonical } from "../../src/forms/digest.ts";
import { PACKAGES, CORPUS, LANE_FACTS, readJson, upstreamForms, loadFormPackages, type Json } from "./packages.ts";

/** Runs `fn` on a throwaway copy of registry/packages, removed after. */
function withScratchCopy(fn: (root: string) => void): void {
  const root = mkdtempSync(join(tmpdir(), "seal-"));
  try {
    cpSync(PACKAGES, root, { recursive: true });
    fn(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function editJson(root: string, path: string, edit: (doc: Json) => void): void {
  const doc = readJson(join(root, path));
  edit(doc);
  writeFileSync(join(root, path), serialize(doc));
}

describe("sealed packages", () => {
  it("every file on disk holds exactly the sealed bytes", () => {
    const plan = planSeal(PACKAGES);
    expect(plan.length).toBeGreaterThan(100);
    expect(staleFiles(PACKAGES, plan)).toEqual([]);
  });

  it("covers every definition, fixture, index and candidate set", () => {
    const paths = new Set(planSeal(PACKAGES).map((f) => f.path));
    for (const pkg of loadFormPackages()) {
      expect(paths.has(`${pkg.dir}/definition.json`)).toBe(true);
      expect(paths.has(`${pkg.dir}/package-index.json`)).toBe(true);
      for (const f of pkg.fixtures) expect(paths.has(`${pkg.dir}/${f.path}`)).toBe(true);
    }
    for (const family of ["edge/v1alpha1", "edge/v1beta1", "other/v1alpha1", "mesh/v1alpha1"])
      expect(paths.has(`forms/${family}/candidate-set.json`)).toBe(true);
  });

  it("package indexes and candidate sets agree with the definitions they name", () => {
    for (const pkg of loadFormPackages()) {
      const { apiVersion, kind, definitionVersion } = pkg.definition;
      expect(pkg.index.formRef).toEqual({ apiVersion, kind, definitionVersion, schemaDigest: digestCanonical(pkg.definition) });
      const listed = pkg.index.files.map((f: Json) => f.path);
      expect(listed).toEqual([...listed].sort());
      expect(listed).toEqual(["definition.json", ...pkg.fixtures.map((f) => f.path)].sort());
      for (const file of pkg.index.files) {
        expect(file.mediaType).toBe(file.path === "definition.json" ? DEFINITION_MEDIA_TYPE : FIXTURE_MEDIA_TYPE);
        expect(file.size).toBe(readFileSync(join(PACKAGES, pkg.dir, file.path)).byteLength);
      }
    }
  });

  it("a changed Interface propagates to every Binding, Form, index and candidate set of its lane that names it, and to no other lane", () =>
    withScratchCopy((root) => {
      editJson(root, "lanes/v1alpha3/interfaces/v1alpha1/edge.queue/definition.json", (doc) => {
        doc.description += " Edited.";
      });
      const stale = staleFiles(root);
      expect(stale).toContain("lanes/v1alpha3/bindings/v1alpha1/module-worker.queue-producer/definition.json");
      expect(stale).toContain("forms/edge/v1alpha1/at-least-once-queue/definition.json");
      expect(stale).toContain("forms/edge/v1alpha1/queue-consumer/definition.json");
      // WorkerVersion carries the Binding digest and the Interface digest; the deployment pins the version.
      expect(stale).toContain("forms/edge/v1alpha1/worker-version/definition.json");
      expect(stale).toContain("forms/edge/v1alpha1/worker-deployment/definition.json");
      expect(stale).toContain("forms/edge/v1alpha1/worker-deployment/package-index.json");
      expect(stale).toContain("forms/edge/v1alpha1/candidate-set.json");
      expect(stale).not.toContain("forms/edge/v1alpha1/object-bucket/definition.json");
      expect(stale).not.toContain("forms/mesh/v1alpha1/candidate-set.json");
      // The other lane's same-named contract and its Forms are untouched.
      expect(stale.filter((p) => p.includes("v1beta1"))).toEqual([]);

      const written = sealPackages(root);
      expect(written.sort()).toEqual([...stale].sort());
      expect(sealPackages(root)).toEqual([]);
      const queue = readJson(join(root, "lanes/v1alpha3/interfaces/v1alpha1/edge.queue/definition.json"));
      const consumer = readJson(join(root, "forms/edge/v1alpha1/queue-consumer/definition.json"));
      expect(consumer.desiredSchema.properties.queue["x-takoform-required-interface"].schemaDigest).toBe(digestCanonical(queue));
    }));

  it("a re-formatted fixture is restored to the canonical layout, leaving every digest as it was", () =>
    withScratchCopy((root) => {
      const fixture = "forms/mesh/v1alpha1/container/fixtures/desired.json";
      const before = readFileSync(join(root, fixture), "utf8");
      writeFileSync(join(root, fixture), JSON.stringify(readJson(join(root, fixture))));
      expect(staleFiles(root)).toEqual([fixture]);
      expect(sealPackages(root)).toEqual([fixture]);
      expect(readFileSync(join(root, fixture), "utf8")).toBe(before);
    }));

  it("a changed fixture value moves its package digest but not its schema digest", () =>
    withScratchCopy((root) => {
      editJson(root, "forms/mesh/v1alpha1/container/fixtures/desired.json", (doc) => {
        doc.image = "registry.example.test/render:1.5.0";
      });
      expect(staleFiles(root).sort()).toEqual(["forms/mesh/v1alpha1/candidate-set.json", "forms/mesh/v1alpha1/container/package-index.json"].sort());
    }));

  it("refuses a reference to a contract it does not have", () =>
    withScratchCopy((root) => {
      editJson(root, "forms/edge/v1alpha1/worker-endpoint/definition.json", (doc) => {
        doc.desiredSchema.properties.worker["x-takoform-required-interface"].name = "worker.nothing";
      });
      expect(() => planSeal(root)).toThrow(SealError);
      expect(() => planSeal(root)).toThrow(/unknown interface worker\.nothing@1\.0\.0/);
    }));

  it("refuses a cycle of exact Form refs, which no digest could satisfy", () =>
    withScratchCopy((root) => {
      editJson(root, "forms/mesh/v1alpha1/container/definition.json", (doc) => {
        doc.desiredSchema.properties.owner = {
          type: "object",
          additionalProperties: false,
          properties: {
            apiVersion: { type: "string", const: "mesh.takoform-cdk.dev/v1alpha1" },
            kind: { type: "string", const: "Worker" },
            name: { type: "string", minLength: 1, maxLength: 63, pattern: "^[a-z][a-z0-9-]{0,62}$" },
          },
          required: ["apiVersion", "kind", "name"],
          "x-takoform-target-formrefs": [
            { apiVersion: "mesh.takoform-cdk.dev/v1alpha1", kind: "Worker", definitionVersion: "0.1.0", schemaDigest: "sha256:" + "0".repeat(64) },
          ],
        };
      });
      expect(() => planSeal(root)).toThrow(/exact-ref cycle/);
    }));

  it("refuses a payload the definition does not list", () =>
    withScratchCopy((root) => {
      mkdirSync(join(root, "forms/other/v1alpha1/edge-kv-namespace/fixtures"), { recursive: true });
      writeFileSync(join(root, "forms/other/v1alpha1/edge-kv-namespace/fixtures/stray.json"), "{}\n");
      expect(() => planSeal(root)).toThrow(/stray\.json: not listed/);
    }));

  it("refuses a candidate set naming a package it does not have", () =>
    withScratchCopy((root) => {
      editJson(root, "forms/other/v1alpha1/candidate-set.json", (doc) => {
        doc.defaultCreates.push({ slug: "no-such-form" });
      });
      expect(() => planSeal(root)).toThrow(/no-such-form/);
    }));
});

describe.skipIf(!CORPUS)("the package index rules reproduce upstream's published digests", () => {
  it.each([
    ["v1alpha3", "forms/candidates/edge/v1alpha1/candidate-set.json"],
    ["v1beta1", "forms/candidates/edge/v1beta1/candidate-set.json"],
  ] as const)("rebuilds every upstream %s package index byte for byte", (lane, set) => {
    const root = LANE_FACTS[lane].upstream;
    const candidates = readJson(join(root, set));
    const published = new Map<string, string>(candidates.forms.map((f: Json) => [f.kind, f.packageDigest]));
    const packages = upstreamForms(lane);
    expect(packages).toHaveLength(LANE_FACTS[lane].forms);
    for (const pkg of packages) {
      const raw = (p: string) => readFileSync(join(root, pkg.dir, p), "utf8");
      const payloads: PackagePayload[] = [
        { path: "definition.json", mediaType: DEFINITION_MEDIA_TYPE, text: raw("definition.json") },
        ...pkg.fixtures.map((f) => ({ path: f.path, mediaType: FIXTURE_MEDIA_TYPE, text: raw(f.path) })),
      ];
      // Upstream files use the same formatting the seal writes.
      for (const p of payloads) expect(serialize(JSON.parse(p.text))).toBe(p.text);
      const index = packageIndex(pkg.index.formRef, payloads);
      expect(serialize(index)).toBe(raw("package-index.json"));
      expect(digestCanonical(index)).toBe(published.get(pkg.definition.kind));
      expect(pkg.index.formRef.schemaDigest).toBe(digestCanonical(pkg.definition));
    }
  });
});
