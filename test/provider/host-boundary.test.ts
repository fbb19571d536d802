// What crosses the client boundary into diagnostics and state: the bearer token never does, on
// any channel (docs/client.md §2.12), and an operation timeout of 2^31 ms or more is honoured
// rather than aborting the first request at once (docs/provider.md §4).

import { describe, expect, it } from "vitest";
import { REDACTED } from "../../src/client/redact.ts";
import { MAX_GO_DURATION_MS, parseGoDuration } from "../../src/core/index.ts";
import { timeoutProblem } from "../../src/provider/timeouts.ts";
import { converge, errorsOf, mustCreate, show, TOKEN, useRig } from "./harness.ts";

const json = (body: unknown, status = 200) => ({ status, headers: { "content-type": "application/json" }, body: Buffer.from(JSON.stringify(body)) });

describe("the bearer token never reaches a diagnostic or state", () => {
  const r = useRig({ async: "never" });

  it("an Operation's terminal error: the delete's rendered Host: line", async () => {
    const created = await mustCreate(r, "takoform_module_worker", { name: "counter" });
    r.tamper = (req, res) => {
      if (req.method === "DELETE" && req.url.includes("/resources/"))
        return json({ operation: { apiVersion: "operations.takoform.com/v1alpha1", kind: "Operation", id: "op_d1", done: false } }, 202);
      if (req.url.includes("/operations/op_d1")) {
        const auth = req.headers["Authorization"];
        return json({
          apiVersion: "operations.takoform.com/v1alpha1",
          kind: "Operation",
          id: "op_d1",
          done: true,
          error: { code: "internal_error", message: `boom ${auth}`, hostCode: `E ${auth}`, retryable: false },
        });
      }
      return undefined;
    };
    const del = await r.provider.delete("takoform_module_worker", created, r.context());
    const text = show(del.diagnostics);
    expect(errorsOf(del.diagnostics).length, text).toBeGreaterThan(0);
    expect(text).toContain(`boom Bearer ${REDACTED}`);
    expect(text).not.toContain(TOKEN);
    expect(JSON.stringify(del)).not.toContain(TOKEN);
  });

  it("the resume warning of a failed pending operation", async () => {
    const created = await mustCreate(r, "takoform_module_worker", { name: "counter" });
    const state = { type: created.type, attributes: { ...created.attributes, pending_operation_id: "op_x1" } };
    r.tamper = (req) => {
      if (!req.url.includes("/operations/op_x1")) return undefined;
      return json({
        apiVersion: "operations.takoform.com/v1alpha1",
        kind: "Operation",
        id: "op_x1",
        done: true,
        error: { code: "internal_error", message: `failed for ${req.headers["Authorization"]}`, retryable: false },
      });
    };
    const read = await r.provider.read(state);
    const text = show(read.diagnostics);
    expect(text).toContain(`failed for Bearer ${REDACTED}`);
    expect(text).not.toContain(TOKEN);
    expect(JSON.stringify(read)).not.toContain(TOKEN);
  });

  it("a condition's hostReason and message: in the rendered drift warning and in the returned conditions", async () => {
    const created = await mustCreate(r, "takoform_edge_kv_namespace", { name: "cache" });
    r.tamper = (req, res) => {
      if (req.method !== "GET" || !req.url.includes("/resources/")) return undefined;
      const doc = JSON.parse(Buffer.from(res.body).toString("utf8"));
      const auth = req.headers["Authorization"];
      doc.status.conditions = [
        {
          type: "Ready",
          status: "False",
          reason: "ExternalChange",
          hostReason: `relation /x echoed ${auth}`,
          message: `m ${auth}`,
          lastTransitionTime: "2026-01-01T00:00:00Z",
        },
      ];
      return { ...res, body: Buffer.from(JSON.stringify(doc)) };
    };
    const read = await r.provider.read(created);
    const text = show(read.diagnostics);
    expect(
      read.diagnostics.some((d) => d.severity === "warning"),
      text,
    ).toBe(true);
    expect(text).toContain(REDACTED);
    expect(text).not.toContain(TOKEN);
    expect(read.state!.attributes["conditions"]).toEqual([
      expect.objectContaining({ host_reason: `relation /x echoed Bearer ${REDACTED}`, message: `m Bearer ${REDACTED}` }),
    ]);
    expect(read.state!.attributes["relation_drift_reason"]).not.toContain(TOKEN);
    expect(JSON.stringify(read.state)).not.toContain(TOKEN);
  });
});

describe("operation timeouts past the 32-bit timer limit", () => {
  const r = useRig({ async: "never" });

  it("a 1000h create_timeout creates normally instead of timing out at once", async () => {
    const out = await converge(r, "takoform_module_worker", { name: "w-long", create_timeout: "1000h" }, null);
    expect(errorsOf(out.diagnostics), show(out.diagnostics)).toEqual([]);
    expect(out.state?.attributes["uid"]).toEqual(expect.any(String));
  });

  it("a duration Go's ParseDuration refuses as overflowing is invalid", () => {
    expect(parseGoDuration("1000h")).toBe(3_600_000_000);
    expect(parseGoDuration("2562047h")).toBeLessThanOrEqual(MAX_GO_DURATION_MS);
    expect(parseGoDuration("2562048h")).toBeUndefined();
    expect(parseGoDuration(`1${"0".repeat(400)}h`)).toBeUndefined();
    expect(timeoutProblem("create_timeout", "2562048h")?.summary).toBe("Invalid operation timeout");
  });
});
