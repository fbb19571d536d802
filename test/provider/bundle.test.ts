// The WorkerBundle authoring surface (reference §5.6) against the real local host in both
// modes: upload before apply, digest-only authoring, both spellings agreeing, plan-time byte
// identity, import, the provider-side in-place update, and module bytes never in state.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isUnknown } from "../../src/core/values.ts";
import { bundleConfig, converge, errorsOf, MODES, moduleSource, mustCreate, mustRead, scratch, show, useRig } from "./harness.ts";

const BUNDLE = "takoform_worker_bundle";

for (const mode of MODES) {
  describe(`WorkerBundle (async: ${mode})`, () => {
    const r = useRig({ async: mode });

    it("TestV3WorkerBundleCreateUploadsThenAppliesOnlyTheManifestDigest + TestWorkerBundleApplyKeepsModuleBytesOutOfState", async () => {
      const dir = scratch({ "index.js": moduleSource(1) });
      const state = await mustCreate(r, BUNDLE, bundleConfig(dir));
      const order = r.log
        .map((e, i) => ({ e, i }))
        .filter(({ e }) => e.path.includes("/artifacts/") || (e.method === "PUT" && e.path.includes("/WorkerBundle/")));
      const kinds = order.map(({ e }) =>
        e.method === "POST" && e.path.endsWith("/uploads") ? "start" : e.path.includes("/blobs/") ? "blob" : e.path.endsWith("/commit") ? "commit" : "apply",
      );
      expect(kinds.filter((k, i) => k !== kinds[i - 1])).toEqual(["start", "blob", "commit", "apply"]);
      const put = r.calls("PUT", "/WorkerBundle/").at(-1)!;
      const digest = state.attributes["manifest_digest"] as string;
      expect(JSON.parse(put.requestBody).spec).toEqual({ manifestDigest: digest });
      expect(digest.startsWith("sha256:dbdf1aacff23")).toBe(true);
      expect(state.attributes["name"]).toBe("bundle-dbdf1aacff23-efe899c74558");
      expect(state.attributes["modules"]).toEqual([
        {
          name: "index.js",
          content_type: "application/javascript+module",
          content_file: join(dir, "index.js"),
          size: 90,
          digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        },
      ]);
      expect(JSON.stringify(state)).not.toContain("counter revision");
      const read = await mustRead(r, state);
      expect(JSON.stringify(read)).not.toContain("counter revision");
      expect(read.attributes["modules"]).toEqual(state.attributes["modules"]);
    });

    it("only missing blobs are uploaded: the same bytes for a second owner send no blob", async () => {
      const dir = scratch({ "index.js": moduleSource(1) });
      await mustCreate(r, BUNDLE, bundleConfig(dir, "counter"));
      const blobsBefore = r.calls("PUT", "/blobs/").length;
      const peer = await mustCreate(r, BUNDLE, bundleConfig(dir, "counter-peer"));
      expect(peer.attributes["name"]).toBe("bundle-dbdf1aacff23-e7044b4d8519");
      expect(r.calls("PUT", "/blobs/").length).toBe(blobsBefore);
      expect(r.calls("POST", "/commit").length).toBe(2);
    });

    it("TestV3WorkerBundleManifestDigestAuthoringPerformsNoUpload", async () => {
      const dir = scratch({ "index.js": moduleSource(1) });
      const first = await mustCreate(r, BUNDLE, bundleConfig(dir));
      const artifactCalls = r.log.filter((e) => e.path.includes("/artifacts/")).length;
      const state = await mustCreate(r, BUNDLE, { revision_owner: "someone-else", manifest_digest: first.attributes["manifest_digest"] });
      expect(r.log.filter((e) => e.path.includes("/artifacts/")).length).toBe(artifactCalls);
      expect(state.attributes).toMatchObject({ main_module: null, modules: null, manifest_digest: first.attributes["manifest_digest"] });
    });

    it("TestV3WorkerBundleBothSpellingsMustAgree", async () => {
      const dir = scratch({ "index.js": moduleSource(1) });
      const wrong = `sha256:${"ab".repeat(32)}`;
      const refused = await converge(r, BUNDLE, bundleConfig(dir, "counter", { manifest_digest: wrong }), null);
      expect(refused.action).toBe("refused");
      expect(errorsOf(refused.diagnostics).map((d) => d.summary)).toEqual(["Conflicting bundle authoring"]);
      // The apply refuses too, should a plan with a stale digest reach it, before any host event.
      const planned = { ...bundleConfig(dir, "counter"), manifest_digest: wrong, name: "bundle-abababababab-efe899c74558", space: "default" };
      const created = await r.provider.create(BUNDLE, planned, r.context());
      expect(created.state).toBeNull();
      expect(created.diagnostics.map((d) => d.summary)).toEqual(["Conflicting bundle authoring"]);
      expect(r.log.filter((e) => e.path.includes("/artifacts/") || e.method === "PUT")).toEqual([]);
      const right = await mustCreate(r, BUNDLE, bundleConfig(dir, "counter"));
      const agreeing = await converge(r, BUNDLE, bundleConfig(dir, "counter", { manifest_digest: right.attributes["manifest_digest"] }), right);
      expect(agreeing.action, show(agreeing.diagnostics)).toBe("no-op");
    });

    it("TestV3WorkerBundleModifyPlanDetectsChangedBytes", async () => {
      const dir = scratch({ "index.js": moduleSource(1) });
      const config = bundleConfig(dir);
      const state = await mustCreate(r, BUNDLE, config);
      writeFileSync(join(dir, "index.js"), moduleSource(2));
      const changed = await r.provider.plan({ type: BUNDLE, address: "b", prior: state, config });
      expect(errorsOf(changed.diagnostics)).toEqual([]);
      expect(changed.requiresReplace).toEqual(expect.arrayContaining([["manifest_digest"], ["name"]]));
      expect(changed.planned!["manifest_digest"]).not.toBe(state.attributes["manifest_digest"]);
      expect(changed.planned!["name"]).toMatch(/^bundle-[0-9a-f]{12}-efe899c74558$/);
      expect(changed.planned!["name"]).not.toBe(state.attributes["name"]);
      writeFileSync(join(dir, "index.js"), moduleSource(1));
      const restored = await r.provider.plan({ type: BUNDLE, address: "b", prior: state, config });
      expect(restored.requiresReplace).toEqual([]);
      expect(restored.planned).toEqual(state.attributes);
    });

    it("a module file that does not exist fails validate and the plan, before any write", async () => {
      const dir = scratch({ "index.js": moduleSource(1) });
      const missing = join(dir, "missing.js");
      const config = { ...bundleConfig(dir), modules: [{ name: "index.js", content_type: "application/javascript+module", content_file: missing }] };
      const validated = r.provider.validate(BUNDLE, config);
      expect(errorsOf(validated).map((d) => [d.summary, d.attribute, d.code])).toEqual([
        ["Module file not readable", "modules[0].content_file", "takoform.provider/local-file-unreadable"],
      ]);
      expect(validated[0]!.detail).toContain("does not exist");
      // The plan refuses it too (a file removed after validate): never an unknown digest that
      // would leave the apply to fail midway.
      const plan = await r.provider.plan({ type: BUNDLE, address: "b", prior: null, config });
      expect(errorsOf(plan.diagnostics).map((d) => d.summary)).toEqual(["Unreadable module file"]);
      expect(r.mutations()).toEqual([]);
    });

    it("TestV3WorkerBundleImportRestoresManifestDigest", async () => {
      const dir = scratch({ "index.js": moduleSource(1) });
      const original = await mustCreate(r, BUNDLE, bundleConfig(dir));
      const name = original.attributes["name"] as string;
      const digest = original.attributes["manifest_digest"] as string;
      const imported = await mustRead(r, (await r.provider.importState(BUNDLE, name)).state!);
      expect(imported.attributes).toMatchObject({ manifest_digest: digest, main_module: null, modules: null, uid: original.attributes["uid"] });
      const restated = await converge(r, BUNDLE, { name, manifest_digest: digest }, imported);
      expect(restated.action, show(restated.diagnostics)).toBe("no-op");
      const before = r.log.length;
      const switched = await converge(r, BUNDLE, { name, main_module: "index.js", modules: bundleConfig(dir)["modules"]! }, imported);
      expect(switched.plan.requiresReplace).toEqual([]);
      expect(switched.action, show(switched.diagnostics)).toBe("update");
      expect(r.log.slice(before).filter((e) => e.method !== "GET")).toEqual([]);
      expect(switched.state!.attributes).toMatchObject({
        main_module: "index.js",
        manifest_digest: digest,
        uid: original.attributes["uid"],
        generation: original.attributes["generation"],
      });
      expect((switched.state!.attributes["modules"] as unknown[])[0]).toMatchObject({ size: 90 });
    });

    it("TestV3WorkerBundleTimeoutOnlyUpdateSucceedsWithoutHostMutation", async () => {
      const dir = scratch({ "index.js": moduleSource(1) });
      const state = await mustCreate(r, BUNDLE, bundleConfig(dir));
      const before = r.log.length;
      const out = await converge(r, BUNDLE, bundleConfig(dir, "counter", { create_timeout: "5m", delete_timeout: "45m" }), state);
      expect(out.action).toBe("update");
      expect(out.state!.attributes).toMatchObject({ create_timeout: "5m", delete_timeout: "45m", uid: state.attributes["uid"], generation: "1" });
      expect(r.log.slice(before).filter((e) => e.method !== "GET")).toEqual([]);
      // A spec change planned in place would be a provider bug: refused, nothing sent.
      const stray = await r.provider.update(
        BUNDLE,
        state,
        { ...state.attributes, main_module: null, modules: null, manifest_digest: `sha256:${"ab".repeat(32)}` },
        r.context(),
      );
      expect(stray.state).toBe(state);
      expect(stray.diagnostics[0]!.summary).toBe("WorkerBundle declares no update capability");
      const version = await mustCreate(r, "takoform_module_worker", { name: "w" });
      const strayMw = await r.provider.update("takoform_module_worker", version, { ...version.attributes, name: "other" }, r.context());
      expect(strayMw.diagnostics[0]!.summary).toBe("ModuleWorker declares no update capability");
      expect(r.log.slice(before).filter((e) => e.method === "PUT" && !e.path.endsWith("/w"))).toEqual([]);
    });
  });
}
