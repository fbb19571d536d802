// Relation drift, read side (reference §4.4): which conditions count as drift, the warning, and
// the tolerant hostReason parser for upstream's phrasing and this project's local host.

import { describe, expect, it } from "vitest";
import type { WireCondition } from "../../src/core/protocol.ts";
import { parseRelationHostReason, relationDriftOf, relationDriftWarning } from "../../src/provider/relation/drift.ts";

const status = (...conditions: Partial<WireCondition>[]) => ({
  status: {
    observedGeneration: "1",
    conditions: conditions.map(
      (c) => ({ type: "Ready", status: "True", reason: "Available", lastTransitionTime: "2026-08-08T00:00:00Z", ...c }) as WireCondition,
    ),
  },
});

describe("TestV3RelationConditionWarnsAndNamesTheRemedy", () => {
  it("Ready=True and unrelated False reasons are not drift", () => {
    expect(relationDriftOf(status({}))).toBeUndefined();
    expect(relationDriftOf(status({ status: "False", reason: "Failed" as never }))).toBeUndefined();
    expect(relationDriftOf(status({ type: "Degraded", status: "False", reason: "ExternalChange" }))).toBeUndefined();
    // Only the FIRST Ready condition counts.
    expect(relationDriftOf(status({}, { status: "False", reason: "ExternalChange" }))).toBeUndefined();
  });

  it("ExternalChange and DependencyMissing warn with pointer, uids and the remedy of the Form", () => {
    for (const reason of ["ExternalChange", "DependencyMissing"] as const) {
      const hostReason =
        reason === "ExternalChange"
          ? "relation /worker changed incarnation from uid uid-old (formRef a) to uid uid-new"
          : "relation /worker target uid uid-old no longer exists";
      const drift = relationDriftOf(status({ status: "False", reason, hostReason }))!;
      expect(drift.reason).toBe(reason);
      const noUpdate = relationDriftWarning(drift, false, { resourceType: "takoform_worker_version" }, "WorkerVersion");
      expect(noUpdate).toMatchObject({
        severity: "warning",
        summary: "WorkerVersion references a resource that changed out of band",
        code: "takoform.provider/relation-target-changed",
        pointer: "/worker",
        expectedUid: "uid-old",
        host: { hostCode: hostReason },
      });
      if (reason === "ExternalChange") expect(noUpdate.currentUid).toBe("uid-new");
      expect(noUpdate.detail).toContain(reason);
      expect(noUpdate.repair).toContain("replacing this resource, because its Form declares no in-place update");
      const update = relationDriftWarning(drift, true, {}, "WorkerCronTrigger");
      expect(update.repair).toContain("re-applying this resource in place");
    }
  });
});

describe("TestV3ParseRelationHostReasonLiftsThePointerAndUIDs", () => {
  it("upstream phrasings", () => {
    expect(parseRelationHostReason("relation /worker changed incarnation from uid uid-old (formRef a) to uid uid-new")).toEqual({
      pointer: "/worker",
      expectedUid: "uid-old",
      currentUid: "uid-new",
    });
    // Deliberate divergence from the Go code: adjacent `from uid a to uid b` still finds b.
    expect(parseRelationHostReason("relation /kvBindings/0/resource changed incarnation from uid uid-1 to uid uid-2")).toEqual({
      pointer: "/kvBindings/0/resource",
      expectedUid: "uid-1",
      currentUid: "uid-2",
    });
    expect(parseRelationHostReason("relation /bundle pinned to uid uid-9 no longer exists")).toEqual({ pointer: "/bundle", expectedUid: "uid-9" });
  });

  it("the local host's verbose and compact forms", () => {
    const dig = `sha256:${"a".repeat(64)}`;
    expect(parseRelationHostReason(`relation /worker uid uold -> unew formRef 0.1.0 ${dig} -> 0.1.0 ${dig}`)).toEqual({
      pointer: "/worker",
      expectedUid: "uold",
      currentUid: "unew",
    });
    expect(parseRelationHostReason(`relation /worker uid uold -> none formRef 0.1.0 ${dig} -> none`)).toEqual({ pointer: "/worker", expectedUid: "uold" });
    expect(parseRelationHostReason(`/versions/0/workerVersion uold->unew 0.1.0 ${dig}->0.1.0 ${dig}`)).toEqual({
      pointer: "/versions/0/workerVersion",
      expectedUid: "uold",
      currentUid: "unew",
    });
    expect(parseRelationHostReason(`…/0/resource uold->none 0.1.0 ${dig}->none`)).toEqual({ pointer: "…/0/resource", expectedUid: "uold" });
  });

  it("any other prose yields nothing", () => {
    for (const text of ["", "the target moved", "relation worker changed", "relation /worker was replaced", "relation"]) {
      const parsed = parseRelationHostReason(text);
      expect(parsed.expectedUid, text).toBeUndefined();
      expect(parsed.currentUid, text).toBeUndefined();
    }
  });
});
