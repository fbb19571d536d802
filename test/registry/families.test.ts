import { describe, it, expect } from "vitest";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { digestCanonical } from "../../src/forms/digest.ts";
import { PACKAGES, EDGE_GROUP, BETA_EDGE_GROUP, OTHER_GROUP, MESH_GROUP, loadFormPackages, candidateSet, desiredValidator, type Json } from "./packages.ts";

const packages = loadFormPackages();
const find = (group: string, kind: string, version = "0.1.0") =>
  packages.find((p) => p.definition.apiVersion === group && p.definition.kind === kind && p.definition.definitionVersion === version)!;

function jsonFilesBelow(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? jsonFilesBelow(path) : name.endsWith(".json") ? [path] : [];
  });
}

function strings(value: Json, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) value.forEach((v) => strings(v, out));
  else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) (strings(k, out), strings(v, out));
  return out;
}

describe("Form groups", () => {
  it("the bundled packages never claim an upstream Form group", () => {
    const offenders: string[] = [];
    for (const file of jsonFilesBelow(PACKAGES)) {
      for (const s of strings(JSON.parse(readFileSync(file, "utf8")))) {
        // The package-index envelope is a packaging apiVersion, not a Form group.
        if (/forms\.takoform\.com\/v/.test(s) && s !== "packages.forms.takoform.com/v1alpha4") offenders.push(`${file}: ${s}`);
      }
    }
    expect(offenders).toEqual([]);
    for (const pkg of packages) expect([EDGE_GROUP, BETA_EDGE_GROUP, OTHER_GROUP, MESH_GROUP]).toContain(pkg.definition.apiVersion);
  });

  it("each family folder holds only Forms of its candidate set's group", () => {
    for (const pkg of packages) expect(pkg.definition.apiVersion, pkg.dir).toBe(candidateSet(pkg.family).formGroup);
  });
});

describe("candidate sets", () => {
  const families = {
    "forms/edge/v1alpha1": EDGE_GROUP,
    "forms/edge/v1beta1": BETA_EDGE_GROUP,
    "forms/other/v1alpha1": OTHER_GROUP,
    "forms/mesh/v1alpha1": MESH_GROUP,
  };

  it("have exactly the documented shape, and every entry names its package's exact ref and package digest", () => {
    for (const [family, group] of Object.entries(families)) {
      const set = candidateSet(family);
      expect(Object.keys(set)).toEqual(["formGroup", "defaultCreates"]);
      expect(set.formGroup).toBe(group);
      for (const entry of set.defaultCreates) {
        expect(Object.keys(entry)).toEqual(["slug", "path", "formRef", "packageDigest"]);
        expect(entry.path).toBe(`${family}/${entry.slug}`);
        const pkg = packages.find((p) => p.dir === entry.path)!;
        expect(entry.formRef).toEqual(pkg.index.formRef);
        expect(entry.formRef.schemaDigest).toBe(digestCanonical(pkg.definition));
        expect(entry.packageDigest).toBe(digestCanonical(pkg.index));
      }
      const kinds = set.defaultCreates.map((e: Json) => e.formRef.kind);
      expect(new Set(kinds).size).toBe(kinds.length);
    }
  });

  it("list the 12 v1alpha3-lane and 15 v1beta1-lane edge Forms at 0.1.0, never a 0.2.0 ModuleWorker, which stays Supported only", () => {
    const edge = candidateSet("forms/edge/v1alpha1").defaultCreates;
    expect(edge.map((e: Json) => e.formRef.kind)).toEqual([
      "ModuleWorker",
      "WorkerBundle",
      "WorkerVersion",
      "WorkerDeployment",
      "WorkerCustomDomain",
      "WorkerEndpoint",
      "WorkerCronTrigger",
      "EdgeKVNamespace",
      "ObjectBucket",
      "SQLiteDatabase",
      "AtLeastOnceQueue",
      "QueueConsumer",
    ]);
    expect(edge.every((e: Json) => e.formRef.definitionVersion === "0.1.0")).toBe(true);
    expect(edge.map((e: Json) => e.slug)).not.toContain("module-worker-0.2.0");
    expect(find(EDGE_GROUP, "ModuleWorker", "0.2.0")).toBeDefined();
    const beta = candidateSet("forms/edge/v1beta1").defaultCreates;
    expect(beta.map((e: Json) => e.formRef.kind)).toEqual([
      "ModuleWorker",
      "WorkerBundle",
      "WorkerVersion",
      "WorkerDeployment",
      "WorkerCustomDomain",
      "WorkerEndpoint",
      "WorkerCronTrigger",
      "EdgeKVNamespace",
      "ObjectBucket",
      "SQLiteDatabase",
      "AtLeastOnceQueue",
      "QueueConsumer",
      "StaticAssetBundle",
      "SQLiteMigrationSet",
      "SQLiteMigrationApplication",
    ]);
    expect(beta.every((e: Json) => e.formRef.definitionVersion === "0.1.0" && e.formRef.apiVersion === BETA_EDGE_GROUP)).toBe(true);
    expect(find(BETA_EDGE_GROUP, "ModuleWorker", "0.2.0")).toBeDefined();
    expect(candidateSet("forms/other/v1alpha1").defaultCreates.map((e: Json) => e.slug)).toEqual(["edge-kv-namespace"]);
    expect(candidateSet("forms/mesh/v1alpha1").defaultCreates.map((e: Json) => e.slug)).toEqual(["service", "worker", "container"]);
  });
});

describe("the second ModuleWorker definition (0.2.0)", () => {
  it("differs from 0.1.0 only in definitionVersion, prose and the absence of providedInterfaces", () => {
    const strip = (d: Json) => {
      const { definitionVersion, title, description, providedInterfaces, desiredSchema, ...rest } = d;
      const { description: schemaProse, ...schema } = desiredSchema;
      return { ...rest, desiredSchema: schema };
    };
    const first = find(EDGE_GROUP, "ModuleWorker").definition;
    const second = find(EDGE_GROUP, "ModuleWorker", "0.2.0").definition;
    expect(second.definitionVersion).toBe("0.2.0");
    expect(second.providedInterfaces).toBeUndefined();
    expect(first.providedInterfaces.map((i: Json) => i.name)).toEqual(["worker.runtime", "worker.service"]);
    expect(strip(second)).toEqual(strip(first));
    expect(second.description).toMatch(/multi-version|two contracts/);
    expect(second.desiredSchema.description).toMatch(/multi-version/);
  });
});

describe("the second group", () => {
  it("holds an empty, closed identity EdgeKVNamespace that provides no Interface", () => {
    const def = find(OTHER_GROUP, "EdgeKVNamespace").definition;
    expect(def.role).toBe("identity");
    expect(def.lifecycleCapabilities).toEqual(["create", "read", "delete", "import", "observe"]);
    expect(def.desiredSchema.properties).toEqual({});
    expect(def.desiredSchema.additionalProperties).toBe(false);
    expect(def.providedInterfaces).toBeUndefined();
    // Same kind name as the edge family's, a different Form.
    expect(find(EDGE_GROUP, "EdgeKVNamespace").definition.kind).toBe(def.kind);
  });
});

describe("the mesh family", () => {
  const service = find(MESH_GROUP, "Service").definition;
  const worker = find(MESH_GROUP, "Worker").definition;
  const container = find(MESH_GROUP, "Container").definition;

  it("every Form is an updatable identity and every loop-closing field is optional and mutable", () => {
    for (const def of [service, worker, container]) {
      expect(def.role).toBe("identity");
      expect(def.lifecycleCapabilities).toEqual(["create", "read", "update", "delete", "import", "observe"]);
    }
    const loopFields: [Json, string][] = [
      [service, "serviceBindings"],
      [worker, "containers"],
      [container, "namespaceId"],
    ];
    for (const [def, field] of loopFields) {
      expect(def.desiredSchema.required).not.toContain(field);
      expect(def.immutableFields ?? []).not.toContain(`/${field}`);
    }
    expect(service.desiredSchema.properties.serviceBindings["x-takoform-binding"]).toBeUndefined();
  });

  it("Service: entrypoint required, tier defaults to standard and forces replacement, outputs versionId and url", () => {
    const p = service.desiredSchema.properties;
    expect(service.desiredSchema.required).toEqual(["entrypoint"]);
    expect([p.entrypoint.minLength, p.entrypoint.maxLength]).toEqual([1, 256]);
    expect([p.tier.enum, p.tier.default]).toEqual([["standard", "edge"], "standard"]);
    expect(service.immutableFields).toEqual(["/tier"]);
    expect([p.serviceBindings.maxItems, p.serviceBindings.uniqueItems, p.serviceBindings.default]).toEqual([32, true, []]);
    expect(p.serviceBindings.items.required).toEqual(["name", "service"]);
    expect(service.providedInterfaces.map((i: Json) => i.name)).toEqual(["mesh.http"]);
    expect(service.outputSchema.required).toEqual(["versionId", "url"]);
  });

  it("Worker outputs a namespaceId and a versionId; Container has none and may omit its namespace", () => {
    expect(worker.outputSchema.required).toEqual(["namespaceId", "versionId"]);
    expect(worker.providedInterfaces).toBeUndefined();
    expect(worker.desiredSchema.properties.containers.maxItems).toBe(16);
    expect(container.outputSchema).toBeUndefined();
    expect(container.providedInterfaces.map((i: Json) => i.name)).toEqual(["mesh.container"]);
    expect(container.desiredSchema.required).toEqual(["image"]);
    expect(container.desiredSchema.properties.namespaceId.description).toMatch(/not bound/);
  });

  it("the output patterns accept host-shaped values and refuse others", () => {
    const ajv = desiredValidator();
    const serviceOut = ajv.compile(service.outputSchema);
    const workerOut = ajv.compile(worker.outputSchema);
    expect(serviceOut({ versionId: "v-0123456789abcdef", url: "https://api.mesh.test/" })).toBe(true);
    expect(serviceOut({ versionId: "v-0123456789abcdef", url: "http://api.mesh.test/" })).toBe(false);
    expect(serviceOut({ versionId: "v-123", url: "https://api.mesh.test/" })).toBe(false);
    expect(workerOut({ namespaceId: "ns-0123456789abcdef", versionId: "v-fedcba9876543210" })).toBe(true);
    expect(workerOut({ namespaceId: "ns-0123456789abcdef" })).toBe(false);
  });
});
