import { describe, it, expect } from "vitest";
import { compareSemver, GenerateError, kindSlug, nameLines, snakeCase, TypeNameErrors, type LineToName } from "../../src/generate/index.ts";
import { bundledModel, EDGE, MESH, OTHER } from "../codec/support.ts";

const UPSTREAM = "edge.forms.takoform.com/v1alpha1";
const l = (apiVersion: string, kind: string, slug = kindSlug(kind, undefined, "0.1.0")): LineToName => ({ apiVersion, kind, slug });

function typeNameError(fn: () => unknown): GenerateError {
  try {
    fn();
  } catch (error) {
    if (error instanceof TypeNameErrors) {
      expect(error.problems).toHaveLength(1);
      return error.problems[0]!;
    }
    if (error instanceof GenerateError) return error;
    throw error;
  }
  throw new Error("expected a GenerateError");
}

describe("resource type and class names", () => {
  it("the bundled set: upstream type names for the edge family, group labels for other and mesh", () => {
    const names = Object.fromEntries(bundledModel().lines.map((x) => [`${x.apiVersion.split(".")[0]}/${x.kind}`, [x.type, x.className]]));
    expect(names).toEqual({
      "edge/ModuleWorker": ["takoform_module_worker", "ModuleWorker"],
      "edge/WorkerBundle": ["takoform_worker_bundle", "WorkerBundle"],
      "edge/WorkerVersion": ["takoform_worker_version", "WorkerVersion"],
      "edge/WorkerDeployment": ["takoform_worker_deployment", "WorkerDeployment"],
      "edge/WorkerCustomDomain": ["takoform_worker_custom_domain", "WorkerCustomDomain"],
      "edge/WorkerEndpoint": ["takoform_worker_endpoint", "WorkerEndpoint"],
      "edge/WorkerCronTrigger": ["takoform_worker_cron_trigger", "WorkerCronTrigger"],
      "edge/EdgeKVNamespace": ["takoform_edge_kv_namespace", "EdgeKVNamespace"],
      "edge/ObjectBucket": ["takoform_edge_object_bucket", "ObjectBucket"],
      "edge/SQLiteDatabase": ["takoform_sqlite_database", "SQLiteDatabase"],
      "edge/AtLeastOnceQueue": ["takoform_at_least_once_queue", "AtLeastOnceQueue"],
      "edge/QueueConsumer": ["takoform_queue_consumer", "QueueConsumer"],
      "edge/StaticAssetBundle": ["takoform_static_asset_bundle", "StaticAssetBundle"],
      "edge/SQLiteMigrationSet": ["takoform_sqlite_migration_set", "SQLiteMigrationSet"],
      "edge/SQLiteMigrationApplication": ["takoform_sqlite_migration_application", "SQLiteMigrationApplication"],
      "other/EdgeKVNamespace": ["takoform_other_edge_kv_namespace", "OtherEdgeKVNamespace"],
      "mesh/Service": ["takoform_mesh_service", "MeshService"],
      "mesh/Worker": ["takoform_mesh_worker", "MeshWorker"],
      "mesh/Container": ["takoform_mesh_container", "MeshContainer"],
    });
  });

  it("one Edge kind in each lane's group is one type serving both lines; two groups of one lane are refused", () => {
    const beta = "edge.takoform-cdk.dev/v1beta1";
    const named = nameLines([
      l(EDGE, "WorkerVersion"),
      l(beta, "WorkerVersion"),
      l(UPSTREAM, "ObjectBucket"),
      l("edge.forms.takoform.com/v1beta1", "ObjectBucket"),
    ]);
    expect([...named.values()]).toEqual([
      { type: "takoform_worker_version", className: "WorkerVersion" },
      { type: "takoform_worker_version", className: "WorkerVersion" },
      { type: "takoform_edge_object_bucket", className: "ObjectBucket" },
      { type: "takoform_edge_object_bucket", className: "ObjectBucket" },
    ]);
    // Our family and upstream's in ONE lane still claim one name twice.
    expect(() => nameLines([l(beta, "WorkerVersion"), l("edge.forms.takoform.com/v1beta1", "WorkerVersion")])).toThrow(
      /type name takoform_worker_version is claimed by/,
    );
  });

  it("two groups sharing a kind: the edge family keeps the plain name, the other is labelled", () => {
    const named = nameLines([l(EDGE, "EdgeKVNamespace"), l(OTHER, "EdgeKVNamespace"), l("acme.example.com/v1", "Widget")]);
    expect([...named.values()]).toEqual([
      { type: "takoform_edge_kv_namespace", className: "EdgeKVNamespace" },
      { type: "takoform_other_edge_kv_namespace", className: "OtherEdgeKVNamespace" },
      { type: "takoform_widget", className: "Widget" },
    ]);
    // Two non-edge groups sharing a kind are both labelled.
    const both = nameLines([l("a.example.com/v1", "Widget"), l("b-team.example.com/v1", "Widget")]);
    expect([...both.values()]).toEqual([
      { type: "takoform_a_widget", className: "AWidget" },
      { type: "takoform_b_team_widget", className: "BTeamWidget" },
    ]);
    // Without the edge family, a project's own kinds keep plain names; ObjectBucket's exception is the edge family's.
    expect([...nameLines([l("acme.example.com/v1", "ObjectBucket")]).values()]).toEqual([{ type: "takoform_object_bucket", className: "ObjectBucket" }]);
    expect([...nameLines([l(UPSTREAM, "ObjectBucket")]).values()]).toEqual([{ type: "takoform_edge_object_bucket", className: "ObjectBucket" }]);
    expect([...nameLines([l(MESH, "Service")]).values()]).toEqual([{ type: "takoform_mesh_service", className: "MeshService" }]);
  });

  it("a collision the rules cannot settle is refused, asking for --type-name; an override settles it", () => {
    const lines = [l(EDGE, "ModuleWorker"), l(UPSTREAM, "ModuleWorker")];
    const error = typeNameError(() => nameLines(lines));
    expect(error.code).toBe("type-name");
    expect(error.message).toContain("type name takoform_module_worker is claimed by");
    expect(error.message).toContain("--type-name");
    const named = nameLines(lines, new Map([[`${UPSTREAM}/ModuleWorker`, "takoform_upstream_module_worker"]]));
    expect([...named.values()]).toEqual([
      { type: "takoform_module_worker", className: "ModuleWorker" },
      { type: "takoform_upstream_module_worker", className: "UpstreamModuleWorker" },
    ]);
    expect(typeNameError(() => nameLines(lines, new Map([[`${UPSTREAM}/ModuleWorker`, "module_worker"]]))).message).toContain("takoform_");
    expect(typeNameError(() => nameLines(lines, new Map([["x.example.com/v1/Nope", "takoform_nope"]]))).message).toContain("not a Form line");
    // A labelled name colliding with a plain one.
    expect(typeNameError(() => nameLines([l(EDGE, "MeshService"), l(MESH, "Service")])).message).toContain("takoform_mesh_service");
    // A class name the runtime exports itself.
    expect(typeNameError(() => nameLines([l("acme.example.com/v1", "TakoformProvider")])).message).toContain("runtime exports itself");
    // One problem per collision.
    try {
      nameLines([l(EDGE, "ModuleWorker"), l(UPSTREAM, "ModuleWorker"), l(EDGE, "WorkerBundle"), l(UPSTREAM, "WorkerBundle")]);
      expect.unreachable();
    } catch (error) {
      expect(error instanceof TypeNameErrors && error.problems.map((p) => p.detail.split(" is claimed")[0])).toEqual([
        "type name takoform_module_worker",
        "type name takoform_worker_bundle",
      ]);
    }
  });

  it("word breaks: mechanical for fields, the package directory's for a kind that it spells", () => {
    expect(["kvBindings", "requiredSensitiveVars", "maxTTLSeconds", "namespaceId", "workerVersion"].map(snakeCase)).toEqual([
      "kv_bindings",
      "required_sensitive_vars",
      "max_ttl_seconds",
      "namespace_id",
      "worker_version",
    ]);
    expect(kindSlug("SQLiteDatabase", undefined, "0.1.0")).toBe("sq-lite-database");
    expect(kindSlug("SQLiteDatabase", "sqlite-database", "0.1.0")).toBe("sqlite-database");
    expect(kindSlug("ModuleWorker", "module-worker-0.2.0", "0.2.0")).toBe("module-worker");
    expect(kindSlug("ModuleWorker", "worker", "0.1.0")).toBe("module-worker");
  });

  it("SemVer precedence chooses a line's default when no candidate set names one", () => {
    const sorted = ["1.0.0", "0.2.0", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-beta", "0.10.0", "1.0.0-alpha.beta", "1.0.0-rc.1"].sort(compareSemver);
    expect(sorted).toEqual(["0.2.0", "0.10.0", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-rc.1", "1.0.0"]);
  });
});
