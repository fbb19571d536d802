import { describe, it, expect } from "vitest";
import { canonicalJson, digestBytes, digestCanonical } from "../../src/forms/digest.ts";
import { parseStrictJson } from "../../src/forms/strict-json.ts";
import {
  formatFormRef,
  formRefKey,
  formRefsEqual,
  groupKindKey,
  interfaceRefsEqual,
  isBindingRef,
  isFormRef,
  isInterfaceRef,
  type FormRef,
} from "../../src/core/index.ts";

const D1 = `sha256:${"a".repeat(64)}`;
const D2 = `sha256:${"b".repeat(64)}`;
const ref: FormRef = { apiVersion: "edge.takoform-cdk.dev/v1alpha1", kind: "ModuleWorker", definitionVersion: "0.1.0", schemaDigest: D1 };

describe("FormRef identity", () => {
  it("keys and compares the whole four-tuple", () => {
    const other = { ...ref, schemaDigest: D2 };
    const v2 = { ...ref, definitionVersion: "0.2.0" };
    expect(new Set([formRefKey(ref), formRefKey(other), formRefKey(v2), formRefKey({ ...ref })]).size).toBe(3);
    expect(formRefsEqual(ref, { ...ref })).toBe(true);
    expect(formRefsEqual(ref, other)).toBe(false);
    expect(formRefsEqual(ref, v2)).toBe(false);
    expect(groupKindKey(ref)).toBe(groupKindKey(other));
    expect(groupKindKey(ref)).not.toBe(groupKindKey({ apiVersion: "other.takoform-cdk.dev/v1alpha1", kind: "ModuleWorker" }));
  });
  it("formats as <apiVersion> <Kind>@<definitionVersion> schema=<digest>", () => {
    expect(formatFormRef(ref)).toBe(`edge.takoform-cdk.dev/v1alpha1 ModuleWorker@0.1.0 schema=${D1}`);
  });
  it("recognizes only closed, grammatical FormRefs", () => {
    expect(isFormRef(ref)).toBe(true);
    expect(isFormRef({ ...ref, extra: 1 })).toBe(false);
    expect(isFormRef({ apiVersion: ref.apiVersion, kind: ref.kind, definitionVersion: "0.1.0" })).toBe(false);
    expect(isFormRef({ ...ref, apiVersion: "forms.takoform.com/v1alpha2" })).toBe(false);
    expect(isFormRef({ ...ref, kind: "moduleWorker" })).toBe(false);
    expect(isFormRef({ ...ref, definitionVersion: "1.0" })).toBe(false);
    expect(isFormRef({ ...ref, schemaDigest: "sha256:ABC" })).toBe(false);
    expect(isFormRef([ref])).toBe(false);
    expect(isFormRef(null)).toBe(false);
  });
  it("recognizes Interface and Binding refs by their own grammars", () => {
    const iface = { apiVersion: "interfaces.takoform.com/v1alpha1", name: "edge.kv", version: "1.0.0", schemaDigest: D1 };
    expect(isInterfaceRef(iface)).toBe(true);
    expect(isInterfaceRef({ ...iface, name: "edge-kv" })).toBe(false);
    expect(isInterfaceRef({ ...iface, version: "1.0.0-rc.1" })).toBe(false);
    expect(isInterfaceRef({ ...iface, apiVersion: "bindings.takoform.com/v1alpha1" })).toBe(false);
    expect(interfaceRefsEqual(iface, { ...iface })).toBe(true);
    expect(interfaceRefsEqual(iface, { ...iface, schemaDigest: D2 })).toBe(false);
    const binding = { apiVersion: "bindings.takoform.com/v1alpha1", name: "module-worker.edge-kv", version: "1.0.0", schemaDigest: D1 };
    expect(isBindingRef(binding)).toBe(true);
    expect(isBindingRef({ ...binding, name: "Module" })).toBe(false);
  });
});

describe("digests", () => {
  it("hashes raw bytes and RFC 8785 canonical JSON", () => {
    expect(digestBytes("")).toBe("sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(canonicalJson(parseStrictJson('{"b":1,"a":[1.0,"x"]}'))).toBe('{"a":[1,"x"],"b":1}');
    expect(digestCanonical(parseStrictJson('{"b":1,"a":[1.0,"x"]}'))).toBe("sha256:a88dede55f330dbae7d6c99cb78c43213f114625ed11c8fd0b769d117c06bb50");
  });
  it("keeps a canonical identity across reformatting while the raw digest changes", () => {
    const pretty = '{\n  "kind": "X",\n  "n": 1e2,\n  "s": "\\u00e9"\n}\n';
    const compact = '{"s":"é","n":100,"kind":"X"}';
    expect(digestCanonical(parseStrictJson(pretty))).toBe(digestCanonical(parseStrictJson(compact)));
    expect(digestBytes(pretty)).not.toBe(digestBytes(compact));
  });
  it("canonicalizes a __proto__ member like any other", () => {
    const value = parseStrictJson('{"z":1,"__proto__":{"a":2}}');
    expect(canonicalJson(value)).toBe('{"__proto__":{"a":2},"z":1}');
  });
});
