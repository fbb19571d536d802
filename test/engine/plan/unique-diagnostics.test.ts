// A replacement is planned twice by the provider (against the prior object, then as the create of
// its successor). Plan-time findings that do not depend on the prior — here the host's support
// profile cannot be read — come back from both calls, and the plan reports each one once.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniqueDiagnostics } from "../../../src/core/index.ts";
import type { HostRequest } from "../../../src/host/http.ts";
import { providerCode } from "../../../src/provider/diagnostics/codes.ts";
import { apply, engineFor, plan, stackOf, startHost, withScratch, type Engine, type TestHost } from "../../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";
const UNREADABLE = providerCode("host-support-unreadable");

describe("plan diagnostics are reported once per resource", () => {
  let host: TestHost;
  let engine: Engine;
  beforeAll(async () => {
    host = await startHost();
  });
  afterAll(async () => {
    engine?.close();
    await host.close();
  });

  it("a replacement shows the host-support warning once, not once per provider plan", () =>
    withScratch(async (scratch, store) => {
      // Created while the host answers its support route.
      engine = await engineFor(host.url);
      const first = await stackOf(scratch, { resource: { [KV]: { r: { name: "once-a" } } } });
      expect((await apply(engine, first, store)).result?.ok).toBe(true);
      engine.close();

      // From now on the support route fails with a code that means "could not ask" (a warning),
      // and a fresh provider has no cached profile.
      const handle = host.host.handle;
      host.host.handle = async (request: HostRequest) => {
        if (request.url.includes("/support/")) {
          const body = JSON.stringify({
            error: { code: "permission_denied", message: "support withheld by the test", requestId: "req_test", retryable: false },
          });
          return { status: 403, headers: { "content-type": "application/json" }, body: new TextEncoder().encode(body) };
        }
        return handle(request);
      };
      engine = await engineFor(host.url);
      const renamed = await stackOf(scratch, { resource: { [KV]: { r: { name: "once-b" } } } });
      const outcome = await plan(engine, renamed, store);
      expect(outcome.ok).toBe(true);
      expect(outcome.plan.resourceChanges.map((c) => c.actions)).toEqual([["delete", "create"]]);
      const warnings = outcome.plan.diagnostics.filter((d) => d.code === UNREADABLE);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ severity: "warning", address: `${KV}.r` });
    }));

  it("uniqueDiagnostics keeps the first of each finding and distinct findings apart", () => {
    const a = { severity: "warning" as const, code: "c", summary: "s", detail: "d", pointer: "/x", address: "t.a" };
    const repeat = { ...a, cause: "another cause" };
    const otherPointer = { ...a, pointer: "/y" };
    const otherAddress = { ...a, address: "t.b" };
    const error = { ...a, severity: "error" as const };
    expect(uniqueDiagnostics([a, repeat, otherPointer, otherAddress, error, a])).toEqual([a, otherPointer, otherAddress, error]);
  });
});
