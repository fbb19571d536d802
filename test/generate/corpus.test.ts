// Upstream's published v1alpha3 lane through the same generator path (run with TAKOFORM_CORPUS).
import { describe, it, expect } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { formRefKey, type FormRef } from "../../src/core/index.ts";
import { generate } from "../../src/generate/index.ts";

const CORPUS = process.env.TAKOFORM_CORPUS;
const LANE = CORPUS ? join(CORPUS, "takoform-v1alpha3") : "";
const UPSTREAM = "edge.forms.takoform.com/v1alpha1";

describe.skipIf(!CORPUS)("takoform get on upstream's v1alpha3 lane", () => {
  it("reproduces the upstream resource types, attribute names and default creates", () => {
    const result = generate({ formsDirs: [LANE], layout: "project" });
    expect(result.problems.map((p) => p.message)).toEqual([]);
    const model = result.model!;
    expect(model.lines.map((l) => l.type).sort()).toEqual([
      "takoform_at_least_once_queue",
      "takoform_edge_kv_namespace",
      "takoform_edge_object_bucket",
      "takoform_module_worker",
      "takoform_queue_consumer",
      "takoform_sqlite_database",
      "takoform_worker_bundle",
      "takoform_worker_cron_trigger",
      "takoform_worker_custom_domain",
      "takoform_worker_deployment",
      "takoform_worker_endpoint",
      "takoform_worker_version",
    ]);
    const set = JSON.parse(readFileSync(join(LANE, "forms/candidates/edge/v1alpha1/candidate-set.json"), "utf8")) as {
      forms: { formRef: FormRef; packageDigest: string }[];
    };
    expect(model.defaultCreates.map(formRefKey).sort()).toEqual(set.forms.map((f) => formRefKey(f.formRef)).sort());
    for (const entry of set.forms) expect(model.supported.find((s) => formRefKey(s) === formRefKey(entry.formRef))?.packageDigest).toBe(entry.packageDigest);
    const attributes = (type: string) => Object.keys(model.lines.find((l) => l.type === type)!.schema.attributes);
    expect(attributes("takoform_worker_version")).toEqual(
      expect.arrayContaining(["revision_owner", "vars_json", "kv_bindings", "required_sensitive_vars", "service_bindings"]),
    );
    expect(attributes("takoform_worker_bundle")).toEqual(expect.arrayContaining(["manifest_digest", "main_module", "modules"]));
    expect(attributes("takoform_queue_consumer")).toEqual(
      expect.arrayContaining(["dead_letter_queue", "max_batch_timeout_seconds", "retry_delay_seconds", "max_concurrency"]),
    );
    expect(attributes("takoform_worker_endpoint")).toEqual(expect.arrayContaining(["hostname", "url"]));
    expect(model.lines.every((l) => l.apiVersion === UPSTREAM)).toBe(true);
    const updatable = model.lines
      .filter((l) => l.schema.declaresUpdate)
      .map((l) => l.kind)
      .sort();
    expect(updatable).toEqual(["AtLeastOnceQueue", "QueueConsumer", "WorkerCronTrigger", "WorkerDeployment"]);
  });
});

describe.skipIf(!CORPUS)("takoform get on both of upstream's lanes at once", () => {
  it("one resource type per Edge kind serves the line of each lane; the three new kinds serve v1beta1 only; the v1beta1 line leads", () => {
    const result = generate({ formsDirs: [LANE, join(CORPUS!, "takoform-v1beta1")], layout: "project" });
    expect(result.problems.map((p) => p.message)).toEqual([]);
    const model = result.model!;
    expect(model.lines).toHaveLength(15);
    const byType = new Map(model.lines.map((l) => [l.type, l]));
    const version = byType.get("takoform_worker_version")!;
    expect(version.lines.map((l) => l.apiVersion)).toEqual(["edge.forms.takoform.com/v1beta1", UPSTREAM]);
    expect(version.apiVersion).toBe("edge.forms.takoform.com/v1beta1");
    expect(Object.keys(version.schema.attributes)).toContain("assets");
    for (const type of ["takoform_static_asset_bundle", "takoform_sqlite_migration_set", "takoform_sqlite_migration_application"]) {
      expect(
        byType.get(type)!.lines.map((l) => l.apiVersion),
        type,
      ).toEqual(["edge.forms.takoform.com/v1beta1"]);
    }
    // Both lanes' default creates, 12 + 15, and each lane's own second ModuleWorker supported only.
    expect(model.defaultCreates).toHaveLength(27);
    expect(
      model.supported
        .filter((s) => s.kind === "ModuleWorker")
        .map((s) => `${s.apiVersion} ${s.definitionVersion}`)
        .sort(),
    ).toEqual([`${UPSTREAM} 0.1.0`, `${UPSTREAM} 0.2.0`, "edge.forms.takoform.com/v1beta1 0.1.0", "edge.forms.takoform.com/v1beta1 0.2.0"]);
  });
});
