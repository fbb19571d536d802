// The conformance probe header is a test control: without --conformance-probes a host ignores
// it like any unknown header; with it, each probe does exactly its one thing.

import { describe, expect, it } from "vitest";
import { API, serve } from "./harness.ts";
import { BUNDLED } from "./family.ts";
import { Wire } from "./wire.ts";
import { expectError, expectStatus } from "./expect.ts";

describe("conformance probes", () => {
  it("are ignored unless enabled", async () => {
    const served = await serve({ ...BUNDLED.options });
    try {
      const wire = await Wire.connect(served.client, BUNDLED);
      const ref = wire.ref("EdgeKVNamespace");
      const forms = await served.client.request("GET", `${API}/forms?${wire.query(ref)}`, {
        headers: { "Takoform-Conformance-Probe": "error:internal_error" },
      });
      expectStatus(forms, 200);
      const created = await wire.create(ref, "noprobe-kv", {}, { headers: { "Takoform-Conformance-Probe": "async" } });
      expectStatus(created, 201);
      const chain = await wire.workerChain("noprobe", { kv: ["noprobe-kv"] });
      expect(chain.version.metadata.uid).toBeTruthy();
      expectError(await wire.remove(ref, "noprobe-kv", "1", { headers: { "Takoform-Conformance-Probe": "external-change" } }), "dependency_in_use");
      const observed = await wire.observe(ref, "noprobe-kv", "1", { headers: { "Takoform-Conformance-Probe": "touch-status" } });
      expect(observed.json.resource.metadata.revision).toBe("1");
    } finally {
      await served.close();
    }
  });

  it("an unknown probe value is refused when enabled", async () => {
    const served = await serve({ ...BUNDLED.options, conformanceProbes: true });
    try {
      expectError(
        await served.client.request("GET", "/.well-known/takoform/v1alpha3", { headers: { "Takoform-Conformance-Probe": "error:not_a_code" } }),
        "invalid_argument",
      );
      expectError(
        await served.client.request("GET", "/.well-known/takoform/v1alpha3", { headers: { "Takoform-Conformance-Probe": "error:rate_limited" } }),
        "rate_limited",
      );
    } finally {
      await served.close();
    }
  });
});
