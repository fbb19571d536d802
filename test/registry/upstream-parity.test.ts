import { describe, it, expect } from "vitest";
import { join } from "node:path";
import {
  CORPUS,
  LANE_FACTS,
  readJson,
  loadFormPackages,
  upstreamForms,
  ourInterfaces,
  ourBindings,
  upstreamInterfaces,
  upstreamBindings,
  withoutProse,
  normalizeIdentity,
  type Json,
  type LaneKey,
} from "./packages.ts";

// Our words, upstream's facts: once prose is removed, digests blanked and upstream's group mapped
// to ours, every bundled edge definition of each lane must be structurally identical to its
// upstream counterpart of that lane (same fields, types, required sets, bounds, patterns, enums,
// defaults, annotations) — the v1alpha3 lane's family against upstream's v1alpha1 family, the
// v1beta1 lane's against upstream's v1beta1 family.

/** Operation signature of an Interface fixture: which operations run, and which must fail. */
const fixtureShape = (fixture: Json) => fixture.steps.map((s: Json) => `${s.operation}${s.expectedError ? `!${s.expectedError}` : ""}`).join(" ");

for (const lane of ["v1alpha3", "v1beta1"] as const satisfies readonly LaneKey[]) {
  const facts = LANE_FACTS[lane];
  const structure = (doc: Json, from: string) => normalizeIdentity(withoutProse(doc), from, facts.group);

  describe.skipIf(!CORPUS)(`structural parity with upstream's ${lane} lane`, () => {
    const ours = new Map(
      loadFormPackages()
        .filter((p) => p.definition.apiVersion === facts.group)
        .map((p) => [`${p.definition.kind}@${p.definition.definitionVersion}`, p.definition]),
    );

    it(`each of the ${facts.forms} Form Definitions equals upstream's apart from prose and digests`, () => {
      const theirs = upstreamForms(lane);
      expect(theirs).toHaveLength(facts.forms);
      for (const pkg of theirs) {
        const mine = ours.get(`${pkg.definition.kind}@0.1.0`);
        expect(mine, pkg.definition.kind).toBeDefined();
        expect(structure(mine, facts.group), pkg.definition.kind).toEqual(structure(pkg.definition, facts.upstreamGroup));
      }
    });

    it("the 0.2.0 ModuleWorker equals upstream's synthetic second definition apart from prose, digests and fixtures", () => {
      const synthetic = readJson(join(facts.upstream, `conformance/${facts.conformance}/fixtures/synthetic-module-worker-second-definition.json`));
      const { conformanceFixtures, negativeConformanceFixtures, ...mine } = ours.get("ModuleWorker@0.2.0");
      expect(conformanceFixtures).toHaveLength(1);
      expect(negativeConformanceFixtures).toHaveLength(1);
      expect(structure(mine, facts.group)).toEqual(structure(synthetic, facts.upstreamGroup));
    });

    it("each Interface has the same operations, errors, schemas, semantics and limits, and fixtures of the same shape", () => {
      const mine = ourInterfaces(lane);
      const theirs = upstreamInterfaces(lane);
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
      const mine = ourBindings(lane);
      const theirs = upstreamBindings(lane);
      expect([...mine.keys()].sort()).toEqual([...theirs.keys()].sort());
      for (const [name, upstream] of theirs) {
        expect(structure(mine.get(name), facts.group), name).toEqual(structure(upstream, facts.upstreamGroup));
      }
    });

    it("our bytes are our own: no definition digest coincides with upstream's", () => {
      const published = new Set<string>();
      for (const pkg of upstreamForms(lane)) published.add(pkg.index.formRef.schemaDigest);
      for (const file of ["interfaces/candidates/v1alpha1/candidate-set.json", "bindings/candidates/v1alpha1/candidate-set.json"]) {
        const set = readJson(join(facts.upstream, file));
        for (const entry of set.interfaces ?? set.bindings) published.add(entry.schemaDigest);
      }
      const texts: string[] = [];
      for (const pkg of loadFormPackages()) texts.push(JSON.stringify(pkg.definition), JSON.stringify(pkg.index));
      for (const doc of [...ourInterfaces(lane).values(), ...ourBindings(lane).values()]) texts.push(JSON.stringify(doc));
      for (const digest of published) for (const text of texts) expect(text.includes(digest)).toBe(false);
    });
  });
}
