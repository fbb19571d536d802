// The resource-type surface the provider serves (reference §0.2, §0.3, §5.7): the rows of the
// behaviour checklist about schemas, defaults and the lifecycle capability table.

import { describe, expect, it } from "vitest";
import { EDGE_FAMILY_GROUPS } from "../../src/core/lanes.ts";
import type { HostClient } from "../../src/client/client.ts";
import { decodeSpec } from "../../src/provider/codec/decode.ts";
import { encodeSpec } from "../../src/provider/codec/encode.ts";
import { ENVELOPE_ATTRIBUTES, RESERVED_ATTRIBUTES } from "../../src/registry/envelope.ts";
import { HostProvider } from "../../src/provider/provider.ts";
import { bundledRegistry } from "../../src/registry/bundled.ts";

const noHost = () => Promise.reject(new Error("no host")) as Promise<HostClient>;
const p = new HostProvider({ client: noHost, registry: bundledRegistry, defaultSpace: "default" });
const EDGE = "edge.takoform-cdk.dev/v1alpha1";
// Every Edge family type, whichever lane's line leads it.
const edgeSchemas = () => p.schemas().filter((s) => EDGE_FAMILY_GROUPS.includes(s.apiVersion));

describe("resource-type schemas", () => {
  it("TestV3LaneCarriesNoUntypedFormRef: no generic resource; form_* are computed only", () => {
    expect(p.schemas().map((s) => s.type)).not.toContain("takoform_resource");
    for (const s of p.schemas()) {
      for (const n of ["form_api_version", "form_kind", "form_definition_version", "form_schema_digest", "form_package_digest"]) {
        expect(s.attributes[n]!.mode, `${s.type}.${n}`).toBe("computed");
      }
      expect(s.attributes["spec_json"]).toBeUndefined();
    }
  });

  it("TestV3DeclaredOutputsAreTypedComputedAttributes + TestV3FormsWithoutOutputsDeclareNoOutputAttributes", () => {
    const endpoint = p.schema("takoform_worker_endpoint")!;
    for (const n of ["hostname", "url"]) {
      expect(endpoint.attributes[n]).toMatchObject({ mode: "computed", type: { kind: "string" } });
      expect(endpoint.attributes[n]!.default).toBeUndefined();
    }
    const envelope = new Set<string>([...ENVELOPE_ATTRIBUTES, "manifest_digest", "main_module", "modules"]);
    const kv = p.schema("takoform_edge_kv_namespace")!;
    expect(Object.keys(kv.attributes).filter((n) => !envelope.has(n))).toEqual([]);
  });

  it("TestV3ReservedAttributesCoverTheEnvelope", () => {
    for (const s of p.schemas()) {
      for (const n of Object.keys(s.attributes)) {
        const desired = p.table.defaultCreate({ apiVersion: s.apiVersion, kind: s.kind }).codec;
        const isField = desired.fields.some((f) => f.attribute === n) || desired.outputs.some((o) => o.attribute === n);
        if (!isField && !["manifest_digest", "main_module", "modules", "files"].includes(n)) expect(RESERVED_ATTRIBUTES, `${s.type}.${n}`).toContain(n);
      }
    }
  });

  it("TestV3ConditionsAreComputedOnly + TestNoResourceOrDataSourceAttributeIsSensitive", () => {
    for (const s of p.schemas()) {
      expect(s.attributes["conditions"]!.mode).toBe("computed");
      expect(s.attributes["ready"]!.mode).toBe("computed");
      expect(
        Object.values(s.attributes).some((a) => a.sensitive === true),
        s.type,
      ).toBe(false);
    }
  });

  it("TestV3DefaultedAttributesSurviveApplyWithoutDiff: default → wire → reverse projection is a fixed point", () => {
    let checked = 0;
    for (const s of p.schemas()) {
      const codec = p.table.defaultCreate({ apiVersion: s.apiVersion, kind: s.kind }).codec;
      for (const field of codec.fields) {
        if (field.default === undefined) continue;
        const attr = s.attributes[field.attribute]!;
        expect(attr.mode, `${s.type}.${field.attribute}`).toBe("optional-computed");
        expect(attr.default).toEqual(field.default);
        const attrs = Object.fromEntries(codec.fields.map((f) => [f.attribute, f.attribute === field.attribute ? field.default! : null]));
        const wire = encodeSpec(codec, attrs, { mode: "plan" });
        expect(Object.hasOwn(wire.spec, field.wire), `${s.type}.${field.wire} is sent`).toBe(true);
        expect(decodeSpec(codec, wire.spec)[field.attribute]).toEqual(field.default);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(8);
  });

  it("TestV3NoUpdateFormsDeclareNoUpdateTimeout: update_timeout iff the Form declares update; otherwise every desired attribute replaces", () => {
    for (const s of p.schemas()) {
      expect(Object.hasOwn(s.attributes, "update_timeout"), s.type).toBe(s.declaresUpdate);
      if (s.declaresUpdate) continue;
      const codec = p.table.defaultCreate({ apiVersion: s.apiVersion, kind: s.kind }).codec;
      for (const f of codec.fields) {
        const name = codec.artifactBacked && f.wire === "manifestDigest" ? "manifest_digest" : f.attribute;
        expect(s.attributes[name]!.forceNew, `${s.type}.${name}`).toBe(true);
      }
    }
  });

  it("TestLifecycleCapabilityTable: update only for WorkerDeployment, WorkerCronTrigger, AtLeastOnceQueue, QueueConsumer; revisions never update", () => {
    const updating = edgeSchemas()
      .filter((s) => s.declaresUpdate)
      .map((s) => s.kind)
      .sort();
    expect(updating).toEqual(["AtLeastOnceQueue", "QueueConsumer", "WorkerCronTrigger", "WorkerDeployment"]);
    for (const s of p.schemas()) if (s.role === "revision") expect(s.declaresUpdate).toBe(false);
  });

  it("TestRevisionFormsFixEveryField + TestBindingListsRequireRevisionRole", () => {
    for (const ref of p.table.registry.supportedRefs()) {
      const codec = p.table.codec(ref)!;
      if (codec.role === "revision") for (const f of codec.fields) expect(f.immutable, `${ref.kind}.${f.wire}`).toBe(true);
      if (codec.fields.some((f) => f.type.kind === "binding-list")) expect(codec.role).toBe("revision");
    }
  });

  it("revision types take revision_owner and an Optional+Computed name; others take name_prefix", () => {
    const version = p.schema("takoform_worker_version")!;
    expect(version.attributes["name"]).toMatchObject({ mode: "optional-computed", forceNew: true });
    expect(version.attributes["name"]!.useStateForUnknown).toBeUndefined();
    expect(version.attributes["revision_owner"]).toMatchObject({ mode: "optional", forceNew: true });
    expect(version.attributes["name_prefix"]).toBeUndefined();
    const queue = p.schema("takoform_at_least_once_queue")!;
    expect(queue.attributes["revision_owner"]).toBeUndefined();
    expect(queue.attributes["name_prefix"]).toMatchObject({ mode: "optional", forceNew: true });
    expect(queue.attributes["space"]).toMatchObject({ mode: "optional-computed", forceNew: true, useStateForUnknown: true });
  });

  it("TestV3AttributeSurfaceRendersDeterministically", () => {
    const other = new HostProvider({ client: noHost, registry: bundledRegistry, defaultSpace: "elsewhere" });
    expect(JSON.stringify(other.schemas())).toBe(JSON.stringify(p.schemas()));
    expect(JSON.stringify(p.schemas().map((s) => Object.keys(s.attributes)))).toBe(JSON.stringify(other.schemas().map((s) => Object.keys(s.attributes))));
  });
});

describe("what a provider derives from its registry alone", () => {
  it("is derived once per registry: the providers of a run (two per stack) share the host-enforced needs", () => {
    const other = new HostProvider({ client: noHost, registry: bundledRegistry, defaultSpace: "elsewhere" });
    const needs = p.hostNeeds("takoform_worker_endpoint");
    expect(needs.length).toBeGreaterThan(0);
    // The same object, not an equal one: nothing was derived again for the second provider.
    expect(other.hostNeeds("takoform_worker_endpoint")).toBe(needs);
  });
});
