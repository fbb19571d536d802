// Each apply run scopes its writes' Idempotency-Keys (`run:<id>`). A host replays a terminal
// failure recorded under a key for its whole retention window, so without the scope a create that
// failed once — here an accepted create whose operation was cancelled — could never be retried by
// a later apply: the identical request would replay the cancelled operation forever.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostClient } from "../../src/client/client.ts";
import { DEV_TOKEN, LocalHost } from "../../src/host/index.ts";
import { HostProvider } from "../../src/provider/provider.ts";
import { bundledRegistry } from "../../src/registry/bundled.ts";
import { resolveVariables } from "../../src/engine/config/variables/resolve.ts";
import { runApply } from "../../src/engine/run.ts";
import { stackOf, withScratch } from "../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";

describe("apply runs scope their idempotency keys", () => {
  let host: LocalHost;
  let client: HostClient;
  beforeAll(async () => {
    host = await LocalHost.open({ data: ":memory:", async: "always", log: () => undefined });
    const { url } = await host.listen("127.0.0.1", 0);
    client = await HostClient.connect({ endpoint: url, token: DEV_TOKEN.token });
  });
  afterAll(async () => {
    client.close();
    await host.close();
  });

  it("a create whose accepted operation was cancelled succeeds on the next apply", () =>
    withScratch(async (scratch, store) => {
      const provider = new HostProvider({ client, registry: bundledRegistry, defaultSpace: "default" });
      const stack = await stackOf(scratch, { resource: { [KV]: { cache: { name: "scoped-cache", create_timeout: "2s" } } } });
      const setup = { provider, stack, variables: resolveVariables(stack.variables, {}) };

      host.controls.holdNewOperations(true);
      const first = await runApply(setup, store, { lock: { holder: "test" } });
      expect(first.result?.ok).toBe(false);
      const [record] = await store.list();
      const operationId = record!.attributes["pending_operation_id"];
      expect(typeof operationId).toBe("string");

      await client.cancelOperation(operationId as string);
      host.controls.holdNewOperations(false);

      const second = await runApply(setup, store, { lock: { holder: "test" } });
      expect(second.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      expect(second.result?.ok).toBe(true);
      const [created] = await store.list();
      expect(created!.attributes["pending_operation_id"]).toBeNull();
      expect(typeof created!.attributes["uid"]).toBe("string");
      expect(host.controls.resourceCount()).toBe(1);
    }));
});
