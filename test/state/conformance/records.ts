// Conformance: what a record holds (its exact FormRef above all), the intent lifecycle, serial
// and lineage, one record per host object, and the host binding.

import { describe, expect, it } from "vitest";
import { UNKNOWN, type KnownValue } from "../../../src/core/values.ts";
import { StateConflictError, StateWriteError, type InFlightRecord, type ResourceRecord, type SettledRecord } from "../../../src/state/index.ts";
import { deposedAddress } from "../../../src/state/index.ts";
import { envelope, LANE, plain, ready, REF, rejection, usePlace, writeIntent } from "./fixtures.ts";
import type { StoreTarget } from "./target.ts";

export function recordsContract(target: StoreTarget): void {
  const ctx = usePlace(target);

  describe("records", () => {
    it("keep the exact FormRef, the identity columns derived from the envelope, and everything else as written", async () => {
      await ctx.store.putResource("takoform_worker_version.app", {
        type: "takoform_worker_version",
        status: "ready",
        attributes: envelope("app-v1", {
          relation_drift_reason: "ExternalChange",
          pending_operation_id: "op-1",
          nested: { list: [1, "two", null, { deep: true }] },
        }),
        dependencies: ["takoform_worker_bundle.app", "takoform_module_worker.app", "takoform_worker_bundle.app"],
        contributions: [{ from: "takoform_module_worker.peer", fields: ["service_bindings", "kv_bindings", "service_bindings"] }],
      });
      const record = (await ctx.store.get("takoform_worker_version.app"))!;
      expect(record).toEqual({
        address: "takoform_worker_version.app",
        type: "takoform_worker_version",
        status: "ready",
        ref: REF,
        packageDigest: `sha256:${"e".repeat(64)}`,
        space: "default",
        name: "app-v1",
        uid: "uid-app-v1",
        generation: "3",
        revision: "7",
        pendingOperationId: "op-1",
        relationDriftReason: "ExternalChange",
        attributes: envelope("app-v1", {
          relation_drift_reason: "ExternalChange",
          pending_operation_id: "op-1",
          nested: { list: [1, "two", null, { deep: true }] },
        }),
        outputs: { url: "https://app.example" },
        conditions: [{ type: "Ready", status: "True", reason: "Available" }],
        dependencies: ["takoform_module_worker.app", "takoform_worker_bundle.app"],
        contributions: [{ from: "takoform_module_worker.peer", fields: ["kv_bindings", "service_bindings"] }],
        intent: null,
        serial: await ctx.store.serial(),
      });
      // Another handle (another process, another machine) reads the same.
      expect(await (await ctx.reader()).get("takoform_worker_version.app")).toEqual(record);
    });

    it("record no ref unless all four FormRef members are present", async () => {
      const attributes = envelope("half");
      delete attributes.form_schema_digest;
      await ctx.store.putResource("takoform_x.half", { type: "takoform_x", status: "ready", attributes });
      expect((await ctx.store.get("takoform_x.half"))!.ref).toBeNull();
    });

    it("list in address order (byte order) and look up single records", async () => {
      for (const name of ["c", "a", "B", "b_", "b"]) await ctx.store.putResource(`takoform_x.${name}`, plain(name));
      expect((await ctx.store.list()).map((r) => r.address)).toEqual(["takoform_x.B", "takoform_x.a", "takoform_x.b", "takoform_x.b_", "takoform_x.c"]);
      expect(await ctx.store.get("takoform_x.zzz")).toBeUndefined();
    });

    it("refuse unknown values, naming the attribute path, and change nothing", async () => {
      const attributes = { name: "x", versions: [{ weight: 1 }, { weight: UNKNOWN }] } as unknown as Record<string, KnownValue>;
      const error = await rejection(ctx.store.putResource("takoform_x.u", { type: "takoform_x", status: "ready", attributes }));
      expect(error).toBeInstanceOf(StateWriteError);
      expect((error as Error).message).toContain("versions[1].weight is unknown");
      await expect(ctx.store.putResource("takoform_x.n", { type: "takoform_x", status: "ready", attributes: { n: Number.NaN } })).rejects.toThrow(
        /JSON cannot hold/,
      );
      expect(await ctx.store.list()).toEqual([]);
      expect(await ctx.store.serial()).toBe(0);
    });

    it("refuse in-flight statuses outside setIntent", async () => {
      await expect(ctx.store.putResource("takoform_x.s", { type: "takoform_x", status: "creating" as never, attributes: {} })).rejects.toBeInstanceOf(
        StateWriteError,
      );
    });

    it("are settled with no intent, or in flight with exactly one: the two shapes of the lifecycle", async () => {
      await ctx.store.putResource("takoform_x.settled", plain("settled"));
      await ctx.store.setIntent("takoform_worker_version.flying", "creating", { stepId: "create:flying", write: writeIntent("flying") });
      const records = await ctx.store.list();
      const check = (record: ResourceRecord): string => {
        // The union narrows on the intent: a settled record has none, an in-flight one has exactly one.
        if (record.intent === null) {
          const settled: SettledRecord = record;
          return `${settled.address} settled ${String(settled.intent)}`;
        }
        const flying: InFlightRecord = record;
        return `${flying.address} ${flying.status} ${flying.intent.stepId}`;
      };
      expect(records.map(check)).toEqual(["takoform_worker_version.flying creating create:flying", "takoform_x.settled settled null"]);
      expect((await ctx.store.inFlight()).map((r) => r.intent.stepId)).toEqual(["create:flying"]);
    });
  });

  describe("intents", () => {
    it("start a record from a create intent, before the host call, then settle it", async () => {
      await ctx.store.setIntent("takoform_worker_version.app", "creating", { stepId: "create:app", write: writeIntent("app-v1") });
      const creating = (await (await ctx.reader()).get("takoform_worker_version.app"))!;
      expect(creating).toMatchObject({
        status: "creating",
        type: "takoform_worker_version",
        ref: REF,
        space: "default",
        name: "app-v1",
        uid: null,
        attributes: {},
      });
      expect(creating.intent).toMatchObject({ stepId: "create:app", previousStatus: null });
      expect(Date.parse(creating.intent!.at)).not.toBeNaN();
      expect(creating.intent!.write).toEqual({
        ...writeIntent("app-v1"),
        request: { ...writeIntent("app-v1").request, headers: { "Idempotency-Key": "idem-app-v1", "content-type": "application/json" } },
      });
      expect((await ctx.store.inFlight()).map((r) => r.address)).toEqual(["takoform_worker_version.app"]);

      await ctx.store.settle("takoform_worker_version.app", ready("app-v1"));
      const settled = (await ctx.store.get("takoform_worker_version.app"))!;
      expect(settled.status).toBe("ready");
      expect(settled.intent).toBeNull();
      expect(settled.uid).toBe("uid-app-v1");
      expect(await ctx.store.inFlight()).toEqual([]);
    });

    it("keep the prior attributes while an update is in flight and remember the settled status across re-recording", async () => {
      await ctx.store.putResource("takoform_module_worker.api", { type: "takoform_module_worker", status: "placeholder", attributes: envelope("api") });
      await ctx.store.setIntent("takoform_module_worker.api", "updating", { stepId: "settle:1", write: writeIntent("api", "update") });
      await ctx.store.setIntent("takoform_module_worker.api", "updating", { stepId: "settle:1", write: writeIntent("api", "update") });
      const updating = (await ctx.store.get("takoform_module_worker.api"))!;
      expect(updating.status).toBe("updating");
      expect(updating.intent!.previousStatus).toBe("placeholder");
      expect(updating.attributes).toEqual(envelope("api"));
      expect(updating.ref).toEqual(REF);
      await expect(
        ctx.store.putResource("takoform_module_worker.api", { type: "takoform_module_worker", status: "ready", attributes: envelope("api") }),
      ).rejects.toThrow(/unsettled updating intent \(step settle:1\)/);
    });

    it("remove the record when a delete settles with null", async () => {
      await ctx.store.putResource("takoform_x.gone", { type: "takoform_x", status: "ready", attributes: envelope("gone") });
      await ctx.store.setIntent("takoform_x.gone", "deleting", { stepId: "delete:gone", write: writeIntent("gone", "delete") });
      expect((await ctx.store.get("takoform_x.gone"))!.intent!.previousStatus).toBe("ready");
      await ctx.store.settle("takoform_x.gone", null);
      expect(await ctx.store.get("takoform_x.gone")).toBeUndefined();
    });

    it("refuse a non-create intent for an address with no record, and a settled status", async () => {
      await expect(ctx.store.setIntent("takoform_x.none", "updating", { stepId: "u", write: writeIntent("none", "update") })).rejects.toThrow(
        /only a create may start a new record/,
      );
      await expect(ctx.store.setIntent("takoform_x.none", "ready" as never, { stepId: "u", write: writeIntent("none") })).rejects.toBeInstanceOf(
        StateWriteError,
      );
      expect(await ctx.store.serial()).toBe(0);
    });

    it("never store credential headers", async () => {
      await ctx.store.setIntent("takoform_worker_version.cred", "creating", { stepId: "c", write: writeIntent("cred") });
      const raw = await ctx.place.rawText();
      expect(raw).not.toContain("super-secret-token");
      expect(raw).toContain("idem-cred"); // the intent itself is there
    });
  });

  describe("serial and lineage", () => {
    it("bump the serial exactly once per data write and never for no-ops", async () => {
      const s = ctx.store;
      expect(await s.serial()).toBe(0);
      await s.putResource("takoform_x.a", plain("a"));
      expect(await s.serial()).toBe(1);
      await s.setIntent("takoform_x.a", "updating", { stepId: "u", write: writeIntent("a", "update") });
      await s.settle("takoform_x.a", { type: "takoform_x", status: "ready", attributes: { v: 2 } });
      expect(await s.serial()).toBe(3);
      expect((await s.get("takoform_x.a"))!.serial).toBe(3);
      expect(await s.removeResource("takoform_x.missing")).toBe(false);
      await s.settle("takoform_x.missing", null);
      expect(await s.serial()).toBe(3);
      expect(await s.removeResource("takoform_x.a")).toBe(true);
      await s.putOutputs({ url: { value: "https://x", sensitive: false } });
      await s.bindHost({ origin: "embedded", hostId: "h", space: "default", tenant: "dev", credential: null, lane: LANE });
      expect(await s.serial()).toBe(6);
    });

    it("keep the lineage for the life of the state, seen alike by every handle, and give every new state its own", async () => {
      const lineage = ctx.store.lineage;
      expect(lineage).toMatch(/^[0-9a-f-]{36}$/);
      expect((await ctx.open()).lineage).toBe(lineage);
      expect((await ctx.reader()).lineage).toBe(lineage);
      expect((await ctx.store.pull()).lineage).toBe(lineage);
      const other = target.place();
      try {
        const store = await other.open();
        expect(store.lineage).not.toBe(lineage);
        await store.close();
      } finally {
        other.cleanup();
      }
    });
  });

  describe("one record per host object", () => {
    it("refuses a second address for the same uid or the same space, group, kind and name, changing nothing", async () => {
      const s = ctx.store;
      await s.putResource("takoform_worker_version.a", ready("shared"));
      const serial = await s.serial();
      const byName = await rejection(s.putResource("takoform_worker_version.b", ready("shared", { uid: "uid-other" })));
      expect(byName).toBeInstanceOf(StateConflictError);
      expect(byName).toMatchObject({
        address: "takoform_worker_version.b",
        holder: "takoform_worker_version.a",
        by: "name",
        object: `default/${REF.apiVersion}/${REF.kind}/shared`,
      });
      const byUid = await rejection(s.putResource("takoform_worker_version.c", ready("elsewhere", { uid: "uid-shared" })));
      expect(byUid).toMatchObject({ holder: "takoform_worker_version.a", by: "uid", object: "uid-shared" });
      expect((byUid as Error).message).toContain("one host object has one record");
      // A create intent is refused before it exists: its request would never be sent.
      await expect(s.setIntent("takoform_worker_version.d", "creating", { stepId: "create:d", write: writeIntent("shared") })).rejects.toBeInstanceOf(
        StateConflictError,
      );
      await s.setIntent("takoform_worker_version.e", "creating", { stepId: "create:e", write: writeIntent("fresh") });
      await expect(s.settle("takoform_worker_version.e", ready("fresh", { uid: "uid-shared" }))).rejects.toMatchObject({
        by: "uid",
        holder: "takoform_worker_version.a",
      });
      expect(await s.serial()).toBe(serial + 1); // only e's intent was written
      expect((await s.list()).map((r) => r.address)).toEqual(["takoform_worker_version.a", "takoform_worker_version.e"]);
    });

    it("counts the same name in another space, group or kind as another object, and a record and its deposed copies as one resource", async () => {
      const s = ctx.store;
      await s.putResource("takoform_worker_version.a", ready("n"));
      await s.putResource("takoform_worker_version.b", ready("n", { uid: "u-b", space: "other" }));
      await s.putResource("takoform_worker_version.c", ready("n", { uid: "u-c", form_kind: "WorkerBundle" }));
      await s.putResource("takoform_worker_version.d", ready("n", { uid: "u-d", form_api_version: "other.takoform-cdk.dev/v1alpha1" }));
      await s.putResource(deposedAddress("takoform_worker_version.a", "k1"), ready("n"));
      const other = await rejection(s.putResource("takoform_worker_version.e", ready("n", { uid: "u-e", form_definition_version: "0.2.0" })));
      expect(other).toMatchObject({ holder: "takoform_worker_version.a", by: "name" });
    });
  });
}
