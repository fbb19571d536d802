import { describe, it, expect } from "vitest";
import type { ErrorObject } from "ajv/dist/2020.js";
import {
  CORPUS,
  EDGE_GROUP,
  LANE_FACTS,
  loadFormPackages,
  upstreamForms,
  desiredValidator,
  camel,
  type Json,
  type FormPackageOnDisk,
  type LaneKey,
} from "./packages.ts";

// Negative fixture names of the upstream v1alpha3 lane, per kind (takoform-corpus.md §4).
const UPSTREAM_V1ALPHA3_NEGATIVES: Record<string, string[]> = {
  ModuleWorker: ["reject-unexpected-property"],
  WorkerBundle: ["reject-unexpected-property", "reject-missing-manifest-digest", "reject-manifest-digest"],
  WorkerVersion: [
    "reject-unexpected-property",
    "reject-missing-worker",
    "reject-missing-bundle",
    "reject-missing-handlers",
    "reject-worker",
    "reject-bundle",
    "reject-handlers",
    "reject-vars",
    "reject-required-sensitive-vars",
    "reject-kv-bindings-binding-name",
    "reject-bucket-bindings-binding-name",
    "reject-sqlite-bindings-binding-name",
    "reject-queue-producer-bindings-binding-name",
    "reject-service-bindings-binding-name",
  ],
  WorkerDeployment: ["reject-unexpected-property", "reject-missing-worker", "reject-missing-versions", "reject-worker", "reject-versions"],
  WorkerCustomDomain: ["reject-unexpected-property", "reject-missing-worker", "reject-missing-hostname", "reject-worker", "reject-hostname"],
  WorkerEndpoint: ["reject-unexpected-property", "reject-missing-worker", "reject-worker"],
  WorkerCronTrigger: ["reject-unexpected-property", "reject-missing-worker", "reject-missing-cron", "reject-worker", "reject-cron"],
  EdgeKVNamespace: ["reject-unexpected-property"],
  ObjectBucket: ["reject-unexpected-property"],
  SQLiteDatabase: ["reject-unexpected-property"],
  AtLeastOnceQueue: [
    "reject-unexpected-property",
    "reject-missing-message-retention-seconds",
    "reject-message-retention-seconds",
    "reject-delivery-delay-seconds",
  ],
  QueueConsumer: [
    "reject-unexpected-property",
    "reject-missing-queue",
    "reject-missing-worker",
    "reject-missing-max-batch-size",
    "reject-missing-max-batch-timeout-seconds",
    "reject-missing-max-retries",
    "reject-missing-retry-delay-seconds",
    "reject-missing-max-concurrency",
    "reject-queue",
    "reject-worker",
    "reject-max-batch-size",
    "reject-max-batch-timeout-seconds",
    "reject-max-retries",
    "reject-retry-delay-seconds",
    "reject-dead-letter-queue",
    "reject-max-concurrency",
  ],
};

// The v1beta1 lane's (takoform-host-api-v1beta1.md §8.5, §8.6): WorkerVersion gains reject-assets,
// and three new Forms.
const UPSTREAM_V1BETA1_NEGATIVES: Record<string, string[]> = {
  ...UPSTREAM_V1ALPHA3_NEGATIVES,
  WorkerVersion: [
    "reject-unexpected-property",
    "reject-missing-worker",
    "reject-missing-bundle",
    "reject-missing-handlers",
    "reject-worker",
    "reject-bundle",
    "reject-assets",
    "reject-handlers",
    "reject-vars",
    "reject-required-sensitive-vars",
    "reject-kv-bindings-binding-name",
    "reject-bucket-bindings-binding-name",
    "reject-sqlite-bindings-binding-name",
    "reject-queue-producer-bindings-binding-name",
    "reject-service-bindings-binding-name",
  ],
  StaticAssetBundle: ["reject-unexpected-property", "reject-missing-manifest-digest", "reject-manifest-digest"],
  SQLiteMigrationSet: ["reject-unexpected-property", "reject-missing-manifest-digest", "reject-manifest-digest"],
  SQLiteMigrationApplication: [
    "reject-unexpected-property",
    "reject-missing-database",
    "reject-missing-migration-set",
    "reject-database",
    "reject-migration-set",
  ],
};
const NEGATIVES: Record<LaneKey, { names: Record<string, string[]>; positives: number; negatives: number }> = {
  v1alpha3: { names: UPSTREAM_V1ALPHA3_NEGATIVES, positives: 12, negatives: 59 },
  v1beta1: { names: UPSTREAM_V1BETA1_NEGATIVES, positives: 15, negatives: 71 },
};

const negativeNames = (pkg: FormPackageOnDisk) => pkg.fixtures.filter((f) => !f.positive).map((f) => f.name);
const edgeDefaults = (lane: LaneKey = "v1alpha3") =>
  loadFormPackages().filter((p) => p.definition.apiVersion === LANE_FACTS[lane].group && p.definition.definitionVersion === "0.1.0");

/** Top-level members whose values differ between two objects. */
function changedMembers(a: Json, b: Json): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).sort();
}

/** The top-level member a `reject-<suffix>` name is about, plus the nested member it names, if any. */
function blamed(suffix: string, properties: Record<string, Json>): { member: string; nested?: string } {
  const tokens = suffix.split("-");
  for (let n = tokens.length; n > 0; n--) {
    const member = camel(tokens.slice(0, n).join("-"));
    if (member in properties) {
      const rest = tokens.slice(n).join("-");
      // Upstream names a binding entry's `name` member "binding-name".
      const nested = rest === "" ? undefined : rest === "binding-name" ? "name" : camel(rest);
      return { member, nested };
    }
  }
  throw new Error(`no desired member matches reject-${suffix}`);
}

function reasonMismatches(pkg: FormPackageOnDisk, name: string, body: Json, positive: Json, errors: ErrorObject[]): string[] {
  const problems: string[] = [];
  const schema = pkg.definition.desiredSchema;
  const suffix = name.replace(/^reject-/, "");
  const changed = changedMembers(positive, body);
  if (changed.length !== 1) problems.push(`${name}: changes ${changed.length} members (${changed.join(", ")}), not one`);
  if (suffix === "unexpected-property") {
    const extra = Object.keys(body).filter((k) => !(k in positive));
    if (extra.length !== 1 || extra[0] in schema.properties) problems.push(`${name}: must add exactly one undeclared member`);
    for (const e of errors) {
      if (e.keyword !== "additionalProperties" || e.instancePath !== "") problems.push(`${name}: unrelated error ${e.instancePath} ${e.keyword}`);
    }
  } else if (suffix.startsWith("missing-")) {
    const member = camel(suffix.slice("missing-".length));
    if (!(schema.required ?? []).includes(member)) problems.push(`${name}: ${member} is not a required member`);
    if (member in body || !(member in positive)) problems.push(`${name}: must omit ${member} and only it`);
    for (const e of errors) {
      if (e.keyword !== "required" || (e.params as Json).missingProperty !== member) problems.push(`${name}: unrelated error ${e.keyword}`);
    }
  } else {
    const { member, nested } = blamed(suffix, schema.properties);
    if (changed[0] !== member) problems.push(`${name}: changes ${changed[0]} instead of ${member}`);
    const under = new RegExp(nested ? `^/${member}/\\d+/${nested}(?:/|$)` : `^/${member}(?:/|$)`);
    for (const e of errors)
      if (!under.test(e.instancePath)) problems.push(`${name}: error at ${e.instancePath} is not about ${member}${nested ? `/*/${nested}` : ""}`);
  }
  return problems;
}

describe("fixture verdicts against each desiredSchema (strict ajv 2020-12)", () => {
  const packages = loadFormPackages();

  it("every positive validates and every negative fails, for the reason its name gives", () => {
    const ajv = desiredValidator();
    let positives = 0;
    let negatives = 0;
    for (const pkg of packages) {
      const validate = ajv.compile(pkg.definition.desiredSchema);
      const positive = pkg.fixtures.find((f) => f.positive && f.name === "canonical");
      expect(positive, pkg.dir).toBeDefined();
      for (const fixture of pkg.fixtures) {
        const ok = validate(fixture.body);
        if (fixture.positive) {
          positives++;
          expect(validate.errors ?? [], `${pkg.dir} ${fixture.name}`).toEqual([]);
          expect(ok).toBe(true);
        } else {
          negatives++;
          expect(ok, `${pkg.dir} ${fixture.name} must be rejected`).toBe(false);
          expect(reasonMismatches(pkg, fixture.name, fixture.body, positive!.body, validate.errors ?? [])).toEqual([]);
        }
      }
    }
    expect(positives).toBe(packages.length);
    expect(negatives).toBeGreaterThan(59);
  });

  it("fixture files follow the upstream naming scheme", () => {
    for (const pkg of packages) {
      for (const f of pkg.fixtures) {
        if (f.positive) expect([f.name, f.path]).toEqual(["canonical", "fixtures/desired.json"]);
        else expect(f.path).toBe(`fixtures/negative-${f.name.replace(/^reject-/, "")}.json`);
      }
      for (const f of pkg.definition.negativeConformanceFixtures ?? []) {
        expect([f.stage, f.expectedFailure]).toEqual(["desired", "schema_validation_failed"]);
      }
    }
  });

  for (const lane of ["v1alpha3", "v1beta1"] as const) {
    const expected = NEGATIVES[lane];
    it(`the ${lane} lane's edge family has ${expected.positives} positives and ${expected.negatives} negatives, named per kind exactly as upstream's`, () => {
      const edge = edgeDefaults(lane);
      expect(edge.map((p) => p.definition.kind).sort()).toEqual(Object.keys(expected.names).sort());
      expect(edge.reduce((n, p) => n + p.fixtures.filter((f) => f.positive).length, 0)).toBe(expected.positives);
      expect(edge.reduce((n, p) => n + negativeNames(p).length, 0)).toBe(expected.negatives);
      for (const pkg of edge) expect(negativeNames(pkg), pkg.definition.kind).toEqual(expected.names[pkg.definition.kind]);
    });
  }

  it("a negative that no longer fails is caught (the check can fail)", () => {
    const ajv = desiredValidator();
    const bundle = packages.find((p) => p.definition.kind === "WorkerBundle")!;
    const validate = ajv.compile(bundle.definition.desiredSchema);
    const positive = bundle.fixtures.find((f) => f.positive)!.body;
    const twoChanges = { extraneous: true };
    validate(twoChanges);
    expect(reasonMismatches(bundle, "reject-unexpected-property", twoChanges, positive, validate.errors ?? [])).not.toEqual([]);

    // A fixture that breaks one member but is named after another.
    const consumer = packages.find((p) => p.definition.kind === "QueueConsumer")!;
    const check = ajv.compile(consumer.definition.desiredSchema);
    const base = consumer.fixtures.find((f) => f.positive)!.body;
    const badRetries = consumer.fixtures.find((f) => f.name === "reject-max-retries")!.body;
    expect(check(badRetries)).toBe(false);
    expect(reasonMismatches(consumer, "reject-max-concurrency", badRetries, base, check.errors ?? [])).not.toEqual([]);
    expect(reasonMismatches(consumer, "reject-missing-max-retries", badRetries, base, check.errors ?? [])).not.toEqual([]);
    expect(reasonMismatches(consumer, "reject-max-retries", badRetries, base, check.errors ?? [])).toEqual([]);
  });
});

describe.skipIf(!CORPUS)("fixture names match the upstream lanes on disk", () => {
  it.each(["v1alpha3", "v1beta1"] as const)("%s: the same negative names per kind, and the same fixture file names", (lane) => {
    const upstream = new Map(upstreamForms(lane).map((p) => [p.definition.kind, p]));
    const ours = edgeDefaults(lane);
    expect(ours).toHaveLength(upstream.size);
    for (const pkg of ours) {
      const theirs = upstream.get(pkg.definition.kind)!;
      expect(negativeNames(pkg)).toEqual(negativeNames(theirs));
      expect(pkg.fixtures.map((f) => f.path)).toEqual(theirs.fixtures.map((f) => f.path));
      expect(pkg.index.files.map((f: Json) => f.path)).toEqual(theirs.index.files.map((f: Json) => f.path));
    }
  });
});
