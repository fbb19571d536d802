import { describe, it, expect } from "vitest";
import { deriveRelations, type Relation } from "../../src/forms/relations.ts";
import { digestCanonical } from "../../src/forms/digest.ts";
import {
  CORPUS,
  EDGE_GROUP,
  LANE_FACTS,
  MESH_GROUP,
  OTHER_GROUP,
  loadFormPackages,
  ourInterfaces,
  ourBindings,
  upstreamForms,
  type Json,
  type LaneKey,
} from "./packages.ts";

// The 15 relations of upstream's v1alpha3 lane (takoform-corpus.md §3), and the 18 of its v1beta1
// lane (takoform-host-api-v1beta1.md §9), stated per kind:
// [pointer, target kind, required, binding, annotation, target contract name@version].
type Row = [string, string, boolean, string | null, "formrefs" | "interface", string];
const UPSTREAM_V1ALPHA3_RELATIONS: Record<string, Row[]> = {
  WorkerVersion: [
    ["/bucketBindings/*/resource", "ObjectBucket", false, "module-worker.object-bucket", "interface", "edge.objects@1.0.0"],
    ["/bundle", "WorkerBundle", true, null, "formrefs", "WorkerBundle@0.1.0"],
    ["/kvBindings/*/resource", "EdgeKVNamespace", false, "module-worker.edge-kv", "interface", "edge.kv@1.0.0"],
    ["/queueProducerBindings/*/resource", "AtLeastOnceQueue", false, "module-worker.queue-producer", "interface", "edge.queue@1.0.0"],
    ["/serviceBindings/*/resource", "ModuleWorker", false, "module-worker.service", "interface", "worker.service@1.0.0"],
    ["/sqliteBindings/*/resource", "SQLiteDatabase", false, "module-worker.sqlite", "interface", "edge.sql@1.0.0"],
    ["/worker", "ModuleWorker", true, null, "interface", "worker.runtime@1.0.0"],
  ],
  WorkerDeployment: [
    ["/versions/*/workerVersion", "WorkerVersion", true, null, "formrefs", "WorkerVersion@0.1.0"],
    ["/worker", "ModuleWorker", true, null, "formrefs", "ModuleWorker@0.1.0"],
  ],
  WorkerCustomDomain: [["/worker", "ModuleWorker", true, null, "interface", "worker.runtime@1.0.0"]],
  WorkerEndpoint: [["/worker", "ModuleWorker", true, null, "interface", "worker.runtime@1.0.0"]],
  WorkerCronTrigger: [["/worker", "ModuleWorker", true, null, "interface", "worker.runtime@1.0.0"]],
  QueueConsumer: [
    ["/deadLetterQueue", "AtLeastOnceQueue", false, null, "interface", "edge.queue@1.0.0"],
    ["/queue", "AtLeastOnceQueue", true, null, "interface", "edge.queue@1.0.0"],
    ["/worker", "ModuleWorker", true, null, "interface", "worker.runtime@1.0.0"],
  ],
};

const UPSTREAM_V1BETA1_RELATIONS: Record<string, Row[]> = {
  ...UPSTREAM_V1ALPHA3_RELATIONS,
  WorkerVersion: [
    // Inside an optional object: an absent `assets` holds no relation (§9).
    ["/assets/bundle", "StaticAssetBundle", false, null, "formrefs", "StaticAssetBundle@0.1.0"],
    ...UPSTREAM_V1ALPHA3_RELATIONS.WorkerVersion!,
  ],
  SQLiteMigrationApplication: [
    ["/database", "SQLiteDatabase", true, null, "formrefs", "SQLiteDatabase@0.1.0"],
    ["/migrationSet", "SQLiteMigrationSet", true, null, "formrefs", "SQLiteMigrationSet@0.1.0"],
  ],
};

const EXPECTED: Record<LaneKey, { rows: Record<string, Row[]>; total: number }> = {
  v1alpha3: { rows: UPSTREAM_V1ALPHA3_RELATIONS, total: 15 },
  v1beta1: { rows: UPSTREAM_V1BETA1_RELATIONS, total: 18 },
};

function row(r: Relation): Row {
  const contract = r.targetFormRefs
    ? r.targetFormRefs.map((f) => `${f.kind}@${f.definitionVersion}`).join(",")
    : `${r.requiredInterface!.name}@${r.requiredInterface!.version}`;
  return [r.pointer, r.target.kind, r.required, r.binding, r.targetFormRefs ? "formrefs" : "interface", contract];
}

const packages = loadFormPackages();
const byKey = new Map(packages.map((p) => [`${p.definition.apiVersion} ${p.definition.kind} ${p.definition.definitionVersion}`, p]));
const form = (group: string, kind: string, version = "0.1.0") => byKey.get(`${group} ${kind} ${version}`)!.definition;
for (const lane of ["v1alpha3", "v1beta1"] as const) {
  const group = LANE_FACTS[lane].group;
  const interfaces = ourInterfaces(lane);
  const bindings = ourBindings(lane);

  describe(`relations of the bundled edge family (${lane} lane)`, () => {
    it(`match upstream's ${EXPECTED[lane].total} pointer for pointer: target kind, required flag, binding and annotation kind`, () => {
      const edge = packages.filter((p) => p.definition.apiVersion === group && p.definition.definitionVersion === "0.1.0");
      let total = 0;
      for (const pkg of edge) {
        const rows = deriveRelations(pkg.definition.desiredSchema).map(row);
        expect(rows, pkg.definition.kind).toEqual(EXPECTED[lane].rows[pkg.definition.kind] ?? []);
        total += rows.length;
      }
      expect(total).toBe(EXPECTED[lane].total);
    });

    it("every relation targets our group of the lane and carries our exact digests, from the lane's own contracts", () => {
      for (const pkg of packages.filter((p) => p.definition.apiVersion === group)) {
        for (const r of deriveRelations(pkg.definition.desiredSchema)) {
          expect(r.target.apiVersion).toBe(pkg.definition.apiVersion);
          if (r.targetFormRefs) {
            for (const ref of r.targetFormRefs) {
              expect(ref.apiVersion).toBe(r.target.apiVersion);
              expect(ref.schemaDigest).toBe(digestCanonical(form(ref.apiVersion, ref.kind, ref.definitionVersion)));
            }
          } else {
            const target = interfaces.get(r.requiredInterface!.name);
            expect(r.requiredInterface!.schemaDigest).toBe(digestCanonical(target));
            // Some default-create Form of the target kind provides exactly that Interface.
            const provider = form(r.target.apiVersion, r.target.kind);
            expect(provider.providedInterfaces, `${pkg.dir} ${r.pointer}`).toContainEqual(r.requiredInterface);
          }
        }
      }
    });

    it("binding lists agree with their Binding Definitions in the verification order", () => {
      const version = form(group, "WorkerVersion");
      const accepted = new Map<string, Json>(version.acceptedBindings.map((b: Json) => [b.name, b]));
      const bound = deriveRelations(version.desiredSchema).filter((r) => r.binding !== null);
      expect(bound).toHaveLength(5);
      for (const r of bound) {
        const definition = bindings.get(r.binding!);
        const ref = accepted.get(r.binding!);
        // (1) accepted by the source, (2) at exactly this digest, (3) source role,
        // (4) allowed target, (5) the target provides the Binding's Interface, then the annotation.
        expect(ref).toEqual({ apiVersion: "bindings.takoform.com/v1alpha1", name: r.binding, version: "1.0.0", schemaDigest: digestCanonical(definition) });
        expect(definition.sourceRole).toBe(version.role);
        expect(definition.allowedTargetForms).toEqual([{ apiVersion: group, kind: r.target.kind }]);
        expect(form(group, r.target.kind).providedInterfaces).toContainEqual(definition.targetInterface);
        expect(r.requiredInterface).toEqual(definition.targetInterface);
        expect(definition.lifecycle).toEqual({ targetDeletion: "refuse_while_bound" });
      }
      expect([...accepted.keys()].sort()).toEqual([...bindings.keys()].sort());
    });
  });
}

describe("relations of the bundled edge family", () => {
  const bindings = ourBindings();

  it("one name@version, two lanes: the lanes' contracts differ in bytes except worker.service", () => {
    const alpha = ourInterfaces("v1alpha3");
    const beta = ourInterfaces("v1beta1");
    for (const name of ["edge.kv", "edge.objects", "edge.queue", "edge.sql", "worker.runtime"]) {
      expect(alpha.get(name).version).toBe(beta.get(name).version);
      expect(digestCanonical(alpha.get(name)), name).not.toBe(digestCanonical(beta.get(name)));
    }
    expect(digestCanonical(alpha.get("worker.service"))).toBe(digestCanonical(beta.get("worker.service")));
    for (const name of bindings.keys()) expect(digestCanonical(bindings.get(name)), name).not.toBe(digestCanonical(ourBindings("v1beta1").get(name)));
  });

  it("the second ModuleWorker definition fails both kinds of worker relation", () => {
    const second = form(EDGE_GROUP, "ModuleWorker", "0.2.0");
    expect(second.providedInterfaces).toBeUndefined();
    const deployment = deriveRelations(form(EDGE_GROUP, "WorkerDeployment").desiredSchema).find((r) => r.pointer === "/worker")!;
    expect(deployment.targetFormRefs!.map((f) => f.definitionVersion)).toEqual(["0.1.0"]);
    const version = deriveRelations(form(EDGE_GROUP, "WorkerVersion").desiredSchema).find((r) => r.pointer === "/worker")!;
    expect(version.requiredInterface!.name).toBe("worker.runtime");
  });

  it("a binding pointed at the second group's EdgeKVNamespace is refused by the Binding contract", () => {
    const other = form(OTHER_GROUP, "EdgeKVNamespace");
    expect(other.providedInterfaces).toBeUndefined();
    for (const definition of bindings.values()) {
      expect(definition.allowedTargetForms.map((t: Json) => t.apiVersion)).not.toContain(OTHER_GROUP);
    }
  });
});

describe("relations of the mesh family", () => {
  it("Service bindings are plain, optional relations requiring mesh.http; Worker containers pin the exact Container", () => {
    expect(deriveRelations(form(MESH_GROUP, "Service").desiredSchema).map(row)).toEqual([
      ["/serviceBindings/*/service", "Service", false, null, "interface", "mesh.http@1.0.0"],
    ]);
    expect(deriveRelations(form(MESH_GROUP, "Worker").desiredSchema).map(row)).toEqual([
      ["/containers/*/container", "Container", false, null, "formrefs", "Container@0.1.0"],
    ]);
    expect(deriveRelations(form(MESH_GROUP, "Container").desiredSchema)).toEqual([]);
  });
});

describe.skipIf(!CORPUS)("relations compared with upstream's own definitions", () => {
  for (const lane of ["v1alpha3", "v1beta1"] as const) {
    it(`deriving upstream's ${lane} lane gives the same ${EXPECTED[lane].total} rows once its group is mapped to ours`, () => {
      let total = 0;
      for (const theirs of upstreamForms(lane)) {
        const ours = form(LANE_FACTS[lane].group, theirs.definition.kind);
        const upstreamRelations = deriveRelations(theirs.definition.desiredSchema);
        for (const r of upstreamRelations) expect(r.target.apiVersion).toBe(LANE_FACTS[lane].upstreamGroup);
        expect(deriveRelations(ours.desiredSchema).map(row)).toEqual(upstreamRelations.map(row));
        total += upstreamRelations.length;
      }
      expect(total).toBe(EXPECTED[lane].total);
    });
  }
});
