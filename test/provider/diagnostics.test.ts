import { describe, it, expect } from "vitest";
import { type Diagnostic, diagnosticToJson, renderDetail, renderDiagnostic } from "../../src/core/index.ts";
import { HOST_CODE_REPAIRS, PROVIDER_CODES } from "../../src/provider/diagnostics/codes.ts";
import { ERROR_CODES } from "../../src/core/protocol.ts";

describe("diagnostic renderer (decision 0032)", () => {
  it("TestV3DiagnosticRendersEveryRecordedFact: every known fact in the fixed order", () => {
    const d: Diagnostic = {
      severity: "error",
      summary: "Failed to update WorkerVersion",
      resourceType: "takoform_worker_version",
      space: "prod",
      name: "version-6c37aa755eee",
      ref: { apiVersion: "edge.forms.takoform.com/v1alpha1", kind: "WorkerVersion", definitionVersion: "0.1.0", schemaDigest: "sha256:abc" },
      pointer: "/kvBindings/0/resource",
      expectedUid: "uid-old",
      currentUid: "uid-new",
      expectedGeneration: "3",
      currentGeneration: "4",
      expectedRevision: "7",
      currentRevision: "9",
      operationId: "op-1",
      host: { code: "uid_mismatch", status: 409, requestId: "req-1", hostCode: "backend-42", retryable: false, protocolInvalid: false, accepted: false },
    };
    const lines = renderDetail(d).split("\n");
    expect(lines.slice(0, 14)).toEqual([
      "Resource: takoform_worker_version (prod/version-6c37aa755eee)",
      "Form: edge.forms.takoform.com/v1alpha1 WorkerVersion@0.1.0 schema=sha256:abc",
      "Pointer: /kvBindings/0/resource",
      "Expected UID: uid-old",
      "Current UID: uid-new",
      "Expected generation: 3",
      "Current generation: 4",
      "Expected revision: 7",
      "Current revision: 9",
      "Operation: op-1",
      "Request: req-1",
      "Host reason: backend-42",
      "Code: uid_mismatch (host, HTTP 409)",
      "Retryable: no",
    ]);
    expect(lines.at(-1)).toBe(HOST_CODE_REPAIRS.uid_mismatch);
  });

  it("a sparse diagnostic renders only its code, Retryable and the repair", () => {
    const text = renderDetail({ severity: "error", summary: "x", code: "takoform.provider/internal", repair: "Report it." });
    expect(text).toBe("Code: takoform.provider/internal\nRetryable: no\n\nReport it.");
  });

  it("TestV3DiagnosticDestructuresTheHostAnswer: host message, retryable code, accepted and protocol-invalid answers", () => {
    const limited = renderDetail({
      severity: "error",
      summary: "Failed to create",
      host: { code: "rate_limited", status: 429, message: "slow down", requestId: "req-7", retryable: true, protocolInvalid: false, accepted: false },
    });
    expect(limited).toContain("Host: slow down");
    expect(limited).toContain("Request: req-7");
    expect(limited).toContain("Code: rate_limited (host, HTTP 429)");
    expect(limited).toContain("Retryable: yes");
    expect(limited).toContain(HOST_CODE_REPAIRS.rate_limited);

    const accepted = renderDetail({
      severity: "error",
      summary: "accepted",
      host: { operationId: "op-9", retryable: false, protocolInvalid: false, accepted: true },
    });
    expect(accepted).toContain("Operation: op-9");
    expect(accepted).toContain("Code: accepted-without-representation (host)");

    const invalid = renderDetail({
      severity: "error",
      summary: "bad",
      host: { status: 502, retryable: true, protocolInvalid: true, accepted: false },
    });
    expect(invalid).toContain("Code: protocol-invalid host response (HTTP 502)");
    expect(invalid).toContain("Retryable: no");
    expect(invalid).toContain("will not guess a remedy");
  });

  it("TestV3HostRepairsCoverTheClosedTaxonomy: one repair per published host code, no more", () => {
    expect(Object.keys(HOST_CODE_REPAIRS).sort()).toEqual(Object.keys(ERROR_CODES).sort());
    expect(Object.keys(ERROR_CODES)).toHaveLength(26);
    for (const repair of Object.values(HOST_CODE_REPAIRS)) expect(repair.length).toBeGreaterThan(20);
  });

  it("the provider code vocabulary is a closed list without repeats", () => {
    expect(PROVIDER_CODES).toHaveLength(36);
    expect(new Set(PROVIDER_CODES).size).toBe(36);
  });

  it("a Cause is shown only when there is no host answer", () => {
    expect(renderDetail({ severity: "error", summary: "s", cause: "boom" })).toContain("Cause: boom");
    const both = renderDetail({
      severity: "error",
      summary: "s",
      cause: "boom",
      host: { code: "internal_error", status: 500, message: "m", retryable: false, protocolInvalid: false, accepted: false },
    });
    expect(both).not.toContain("Cause:");
  });

  it("renders the address and severity for people, and the same facts as JSON", () => {
    const d: Diagnostic = {
      severity: "warning",
      summary: "Drifted",
      address: "takoform_worker_version.app",
      code: "takoform.provider/relation-target-changed",
      repair: "Re-apply.",
    };
    const text = renderDiagnostic(d);
    expect(text.startsWith("Warning: Drifted\n\n  with takoform_worker_version.app,")).toBe(true);
    expect(text).not.toContain("\x1b[");
    expect(renderDiagnostic(d, { color: true })).toContain("\x1b[1;33m");
    const json = diagnosticToJson(d);
    expect(json).toMatchObject({ severity: "warning", codeText: "takoform.provider/relation-target-changed", repair: "Re-apply.", retryable: false });
  });
});
