// What a person is shown of each change (issue 14 item 4): a create lists the attributes the
// user set and the computed ones the configuration reads; elsewhere the Form identity and the
// state's bookkeeping appear only when they move from one known value to another.

import { describe, expect, it } from "vitest";
import { UNKNOWN } from "../../src/core/values.ts";
import { renderPlan } from "../../src/views/human.ts";
import type { Plan, ResourceChange } from "../../src/engine/plan-data.ts";

const FORM = {
  form_api_version: "edge.takoform-cdk.dev/v1beta1",
  form_kind: "AtLeastOnceQueue",
  form_definition_version: "0.1.0",
  form_schema_digest: "sha256:aa",
  form_package_digest: "sha256:bb",
};

function plan(changes: ResourceChange[]): Plan {
  return {
    formatVersion: 1,
    stateLineage: "l",
    stateSerial: 1,
    resourceChanges: changes,
    outputChanges: [],
    steps: [],
    diagnostics: [],
    destroy: false,
    refreshOnly: false,
  };
}

function change(actions: ResourceChange["actions"], before: ResourceChange["before"], after: ResourceChange["after"], read: string[] = []): ResourceChange {
  return {
    address: "takoform_at_least_once_queue.q",
    type: "takoform_at_least_once_queue",
    name: "q",
    actions,
    before,
    after,
    replacePaths: [],
    replaceReasons: [],
    sensitivePaths: [],
    configuredAttributes: ["message_retention_seconds", "name"],
    readAttributes: read,
  };
}

const computed = { uid: UNKNOWN, generation: UNKNOWN, revision: UNKNOWN, pending_operation_id: UNKNOWN, relation_drift_reason: UNKNOWN, space: "default" };

describe("concise plans", () => {
  it("a create shows what the user set, and (known after apply) only for computed attributes the configuration reads", () => {
    const text = renderPlan(
      plan([change(["create"], null, { ...FORM, ...computed, name: "q", message_retention_seconds: 60, delivery_delay_seconds: 0 }, ["uid"])]),
      {
        color: false,
      },
    );
    expect(text).toContain(
      [
        '  + resource "takoform_at_least_once_queue" "q" {',
        "      + message_retention_seconds = 60",
        '      + name                      = "q"',
        "      + uid                       = (known after apply)",
        "    }",
      ].join("\n"),
    );
    for (const hidden of ["form_", "pending_operation_id", "relation_drift_reason", "generation", "delivery_delay_seconds", "space"]) {
      expect(text).not.toMatch(new RegExp(`^ +[+~-] ${hidden}`, "m"));
    }
  });

  it("an update shows a changed Form reference, but not computed attributes nothing reads becoming unknown", () => {
    const before = {
      ...FORM,
      uid: "u1",
      generation: "1",
      revision: "r1",
      pending_operation_id: null,
      relation_drift_reason: null,
      name: "q",
      message_retention_seconds: 60,
    };
    const after = {
      ...before,
      form_definition_version: "0.2.0",
      form_schema_digest: "sha256:cc",
      generation: UNKNOWN,
      revision: UNKNOWN,
      pending_operation_id: UNKNOWN,
      relation_drift_reason: UNKNOWN,
      message_retention_seconds: 90,
    };
    const text = renderPlan(plan([change(["update"], before, after)]), { color: false });
    expect(text).toContain('      ~ form_definition_version   = "0.1.0" -> "0.2.0"');
    expect(text).toContain('      ~ form_schema_digest        = "sha256:aa" -> "sha256:cc"');
    expect(text).toContain("      ~ message_retention_seconds = 60 -> 90");
    for (const hidden of ["generation", "revision", "pending_operation_id", "relation_drift_reason", "form_kind"]) {
      expect(text).not.toMatch(new RegExp(`^ +[+~-] ${hidden}`, "m"));
    }
  });

  it("a change planned before the name lists existed (an old plan file) shows every attribute", () => {
    const { configuredAttributes: _c, readAttributes: _r, ...old } = change(["create"], null, { ...FORM, name: "q" });
    expect(renderPlan(plan([old]), { color: false })).toContain("form_kind");
  });
});
