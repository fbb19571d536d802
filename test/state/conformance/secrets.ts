// Conformance: sealed secrets (outputs arrive sealed and are kept as opaque data; a sealed intent
// is kept as it is), the pull document, and replacing a whole state with one (push, migrate).

import { describe, expect, it } from "vitest";
import { isSealedSensitive, sealedMatches, sealSensitive, StateWriteError, type SealedSensitive, type StateDocument } from "../../../src/state/index.ts";
import { envelope, LANE, plain, ready, rejection, usePlace, writeIntent } from "./fixtures.ts";
import type { StoreTarget } from "./target.ts";

export function secretsContract(target: StoreTarget): void {
  const ctx = usePlace(target);

  describe("sealed secrets", () => {
    it("keeps a sealed sensitive output as it is, matching its secret under the lineage, and the secret never reaches the store", async () => {
      const s = ctx.store;
      const seal = sealSensitive("hunter2-secret", s.lineage);
      await s.putOutputs({ url: { value: "https://a", sensitive: false }, password: { value: seal, sensitive: true } });
      const outputs = await (await ctx.reader()).outputs();
      expect(outputs).toEqual({ password: { value: seal, sensitive: true }, url: { value: "https://a", sensitive: false } });
      expect(sealedMatches(outputs.password!.value as SealedSensitive, "hunter2-secret", s.lineage)).toBe(true);
      // Handed back as it was stored (an apply that could not recompute it): the seal survives.
      await s.putOutputs({ password: { value: outputs.password!.value, sensitive: true } });
      expect((await s.outputs()).password).toEqual({ value: seal, sensitive: true });
      expect(await ctx.place.rawText()).not.toContain("hunter2-secret");
    });

    it("refuses a sensitive output that is not sealed, and changes nothing", async () => {
      const s = ctx.store;
      await s.putOutputs({ url: { value: "https://a", sensitive: false } });
      const serial = await s.serial();
      const error = await rejection(s.putOutputs({ password: { value: "hunter2-secret", sensitive: true } }));
      expect(error).toBeInstanceOf(StateWriteError);
      expect((error as Error).message).toContain("output.password");
      expect(await s.serial()).toBe(serial);
      expect(Object.keys(await s.outputs())).toEqual(["url"]);
      expect(await ctx.place.rawText()).not.toContain("hunter2-secret");
    });

    it("keeps a sealed attribute and a sealed intent as opaque data", async () => {
      const s = ctx.store;
      const seal = sealSensitive("db-password", s.lineage);
      await s.putResource("takoform_worker_version.a", ready("a", { vars_json: seal }));
      expect((await s.get("takoform_worker_version.a"))!.attributes["vars_json"]).toEqual(seal);
      const sealed = {
        ...writeIntent("b"),
        request: { ...writeIntent("b").request, body: "", headers: {} },
        sealed: { v: 1, alg: "AES-256-GCM", kdf: "HKDF-SHA256", variables: ["db"], iv: "aXY=", tag: "dGFn", data: "ZGF0YQ==" },
      };
      await s.setIntent("takoform_worker_version.b", "creating", { stepId: "create:b", write: sealed });
      expect((await s.get("takoform_worker_version.b"))!.intent!.write).toEqual(sealed);
      expect(await ctx.place.rawText()).not.toContain("db-password");
    });

    it("replaces a sensitive output list wholesale: outputs left out are gone", async () => {
      await ctx.store.putOutputs({ a: { value: 1, sensitive: false }, b: { value: 2, sensitive: false } });
      await ctx.store.putOutputs({ b: { value: 3, sensitive: false }, c: { value: null, sensitive: true } });
      expect(await ctx.store.outputs()).toEqual({ b: { value: 3, sensitive: false }, c: { value: null, sensitive: true } });
    });
  });

  describe("the whole state as one document", () => {
    async function populate(): Promise<StateDocument> {
      const s = ctx.store;
      await s.putResource("takoform_worker_version.a", ready("a"));
      await s.putResource("takoform_module_worker.p", {
        type: "takoform_module_worker",
        status: "placeholder",
        attributes: envelope("p", { uid: "uid-p" }),
        dependencies: ["takoform_worker_version.a"],
      });
      await s.setIntent("takoform_worker_version.c", "creating", { stepId: "create:c", write: writeIntent("c") });
      await s.putOutputs({ url: { value: "https://a", sensitive: false }, secret: { value: sealSensitive("s3cr3t", s.lineage), sensitive: true } });
      await s.bindHost({ origin: "embedded", hostId: "h", space: "default", tenant: "dev", credential: null, lane: LANE });
      return s.pull();
    }

    it("pulls records, outputs, binding, lineage and serial from one snapshot", async () => {
      const doc = await populate();
      expect(doc).toMatchObject({ version: 1, lineage: ctx.store.lineage, serial: 5 });
      expect(doc.resources.map((r) => `${r.address}:${r.status}`)).toEqual([
        "takoform_module_worker.p:placeholder",
        "takoform_worker_version.a:ready",
        "takoform_worker_version.c:creating",
      ]);
      expect(doc.outputs).toEqual(await ctx.store.outputs());
      expect(doc.host).toEqual(await ctx.store.hostBinding());
      expect(await (await ctx.reader()).pull()).toEqual(doc);
    });

    it("replaces a never-written state with a document exactly: lineage, serial, records with their intents, outputs, binding", async () => {
      const doc = await populate();
      const other = target.place();
      try {
        const copy = await other.open();
        await copy.replaceState(doc);
        expect(copy.lineage).toBe(doc.lineage);
        expect(await copy.pull()).toEqual(doc);
        const reread = await other.openReader();
        expect(reread.lineage).toBe(doc.lineage);
        expect(await reread.pull()).toEqual(doc);
        await reread.close();
        // Writes go on from there.
        await copy.settle("takoform_worker_version.c", ready("c"));
        expect(await copy.serial()).toBe(doc.serial + 1);
        await copy.close();
      } finally {
        other.cleanup();
      }
    });

    it("moves a written state's serial past both its own and the document's, so saved plans are refused", async () => {
      const doc = await populate();
      await ctx.store.putResource("takoform_x.more", plain("more"));
      const before = await ctx.store.serial(); // 6
      await ctx.store.replaceState(doc); // serial 5, below the state's
      expect(await ctx.store.serial()).toBe(before + 1);
      await ctx.store.replaceState({ ...doc, serial: 40 });
      expect(await ctx.store.serial()).toBe(40);
      expect((await ctx.store.list()).map((r) => r.address)).not.toContain("takoform_x.more");
    });

    it("refuses a document no single write could have written, changing nothing", async () => {
      const doc = await populate();
      const serial = await ctx.store.serial();
      const bad: [string, StateDocument][] = [
        ["an unsealed sensitive output", { ...doc, outputs: { leak: { value: "clear-secret", sensitive: true } } }],
        [
          "a settled record with an intent",
          {
            ...doc,
            resources: doc.resources.map((r) =>
              r.status === "ready" ? { ...r, intent: doc.resources.find((x) => x.intent !== null)!.intent } : r,
            ) as StateDocument["resources"],
          },
        ],
        [
          "two records of one object",
          {
            ...doc,
            resources: [
              ...doc.resources,
              { ...doc.resources.find((r) => r.address === "takoform_worker_version.a")!, address: "takoform_worker_version.twin" },
            ],
          },
        ],
        ["a record newer than the state", { ...doc, serial: 1 }],
      ];
      for (const [what, document] of bad) {
        expect(await rejection(ctx.store.replaceState(document)), what).toBeInstanceOf(StateWriteError);
      }
      expect(await ctx.store.serial()).toBe(serial);
      expect(await ctx.place.rawText()).not.toContain("clear-secret");
    });

    it("strips credentials from the intents of a document", async () => {
      const doc = await populate();
      const withToken: StateDocument = {
        ...doc,
        resources: doc.resources.map((r) =>
          r.intent === null
            ? r
            : {
                ...r,
                intent: {
                  ...r.intent,
                  write: {
                    ...r.intent.write,
                    request: { ...r.intent.write.request, headers: { ...r.intent.write.request.headers, Authorization: "Bearer pushed-token" } },
                  },
                },
              },
        ),
      };
      const other = target.place();
      try {
        const copy = await other.open();
        await copy.replaceState(withToken);
        expect(await other.rawText()).not.toContain("pushed-token");
        await copy.close();
      } finally {
        other.cleanup();
      }
      expect(isSealedSensitive(doc.outputs.secret!.value)).toBe(true);
    });
  });
}
