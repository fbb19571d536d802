import { describe, it, expect } from "vitest";
import { join } from "node:path";
import {
  CORPUS, UPSTREAM_LANE, EDGE_GROUP, UPSTREAM_EDGE_GROUP, readJson, loadFormPackages, upstreamForms,
  ourInterfaces, ourBindings, upstreamInterfaces, upstreamBindings, withoutProse, normalizeIdentity, type Json,
} from "./packages.ts";

// Our words, upstream's facts: once prose is removed, digests blanked and upstream's group mapped
// to ours, every bundled edge definition must be structurally identical to its upstream
// counterpart (same fields, types, required sets, bounds, patterns, enums, defaults, annotations).

const structure = (doc: Json, from: string) => normalizeIdentity(withoutProse(doc), from, EDGE_GROUP);

/** Operation signature of an Interface fixture: which operations run, and which must fail. */
const fixtureShape = (fixture: Json) => fixture.steps.map((s: Json) => `${s.operation}${s.expectedError ? `!${s.expectedError}` : ""}`).join(" ");

describe.skipIf(!CORPUS)("structural parity with upstream's v1alpha3 lane", () => {
  const ours = new Map(
    loadFormPackages()
      .filter((p) => p.definition.apiVersion === EDGE_GROUP)
      .map((p) => [`${p.definition.kind}@${p.definition.definitionVersion}`, p.definition]),
  );

  it("each of the 12 Form Definitions equals upstream's apart from prose and digests", () => {
    const theirs = upstreamForms();
    expect(theirs).toHaveLength(12);
    for (const pkg of theirs) {
      const mine = ours.get(`${pkg.definition.kind}@0.1.0`);
      expect(mine, pkg.definition.kind).toBeDefined();
      expect(structure(mine, EDGE_GROUP), pkg.definition.kind).toEqual(structure(pkg.definition, UPSTREAM_EDGE_GROUP));
    }
  });

  it("the 0.2.0 ModuleWorker equals upstream's synthetic second definition apart from prose, digests and fixtures", () => {
    const synthetic = readJson(join(UPSTREAM_LANE, "conformance/portable-host-v3/fixtures/synthetic-module-worker-second-definition.json"));
    const { conformanceFixtures, negativeConformanceFixtures, ...mine } = ours.get("ModuleWorker@0.2.0");
    expect(conformanceFixtures).toHaveLength(1);
    expect(negativeConformanceFixtures).toHaveLength(1);
    expect(structure(mine, EDGE_GROUP)).toEqual(structure(synthetic, UPSTREAM_EDGE_GROUP));
  });

  it("each Interface has the same operations, errors, schemas, semantics and limits, and fixtures of the same shape", () => {
    const mine = ourInterfaces();
    const theirs = upstreamInterfaces();
    expect(theirs.size).toBe(6);
    for (const [name, upstream] of theirs) {
      const doc = mine.get(name);
      expect(doc, name).toBeDefined();
      const { fixtures: ourFixtures, ...ourRest } = withoutProse(doc);
      const { fixtures: theirFixtures, ...theirRest } = withoutProse(upstream);
      expect(ourRest, name).toEqual(theirRest);
      expect(ourFixtures.map(fixtureShape).sort(), name).toEqual(theirFixtures.map(fixtureShape).sort());
    }
  });

  it("each Binding equals upstream's apart from prose, digests and the group of its allowed targets", () => {
    const mine = ourBindings();
    const theirs = upstreamBindings();
    expect([...mine.keys()].sort()).toEqual([...theirs.keys()].sort());
    for (const [name, upstream] of theirs) {
      expect(structure(mine.get(name), EDGE_GROUP), name).toEqual(structure(upstream, UPSTREAM_EDGE_GROUP));
    }
  });

  it("our bytes are our own: no definition digest coincides with upstream's", () => {
    const published = new Set<string>();
    for (const pkg of upstreamForms()) published.add(pkg.index.formRef.schemaDigest);
    for (const file of ["interfaces/candidates/v1alpha1/candidate-set.json", "bindings/candidates/v1alpha1/candidate-set.json"]) {
      const set = readJson(join(UPSTREAM_LANE, file));
      for (const entry of set.interfaces ?? set.bindings) published.add(entry.schemaDigest);
    }
    const texts: string[] = [];
    for (const pkg of loadFormPackages()) texts.push(JSON.stringify(pkg.definition), JSON.stringify(pkg.index));
    for (const doc of [...ourInterfaces().values(), ...ourBindings().values()]) texts.push(JSON.stringify(doc));
    for (const digest of published) for (const text of texts) expect(text.includes(digest)).toBe(false);
  });
});
