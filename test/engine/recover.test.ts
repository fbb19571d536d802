// A crash between the two writes that move an object to (or back from) a deposed address leaves
// the same incarnation under both addresses; the next apply drops the copy.

import { describe, expect, it } from "vitest";
import { dropDuplicateDeposed } from "../../src/engine/apply/recover.ts";
import { deposedAddress, openLocalState } from "../../src/state/index.ts";

const REF = {
  form_api_version: "edge.takoform-cdk.dev/v1alpha1",
  form_kind: "EdgeKVNamespace",
  form_definition_version: "0.1.0",
  form_schema_digest: `sha256:${"a".repeat(64)}`,
};

describe("dropDuplicateDeposed", () => {
  it("drops a deposed copy of the current incarnation and keeps a genuine old one", async () => {
    const store = openLocalState(":memory:");
    try {
      const input = (uid: string) => ({
        type: "takoform_edge_kv_namespace",
        status: "ready" as const,
        attributes: { ...REF, name: `n-${uid}`, space: "default", uid },
      });
      await store.putResource("takoform_edge_kv_namespace.a", input("u1"));
      await store.putResource(deposedAddress("takoform_edge_kv_namespace.a", "0000aaaa"), input("u1")); // interrupted move
      await store.putResource("takoform_edge_kv_namespace.b", input("u2"));
      await store.putResource(deposedAddress("takoform_edge_kv_namespace.b", "0000bbbb"), input("u0")); // a real old object
      expect(await dropDuplicateDeposed(store)).toEqual(["takoform_edge_kv_namespace.a#deposed:0000aaaa"]);
      expect((await store.list()).map((r) => r.address)).toEqual([
        "takoform_edge_kv_namespace.a",
        "takoform_edge_kv_namespace.b",
        "takoform_edge_kv_namespace.b#deposed:0000bbbb",
      ]);
    } finally {
      await store.close();
    }
  });
});
