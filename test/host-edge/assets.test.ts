// WorkerVersion.assets over real HTTP (reference v1beta1 §8.6, §8.7, §13 items 9–10): a relation
// below an optional object, resolved and pinned like any other; the SPA fallback's index.html
// proven in the exact referenced manifest before mutation, on apply and import; the bundle held by
// the versions that name it.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { laneNamed } from "../../src/core/lanes.ts";
import { CORPUS } from "../host/family.ts";
import { filesManifest, readyOf, sha256Of } from "../host/wire.ts";
import { canonicalJson } from "../../src/forms/digest.ts";
import { Edge, modes } from "./edge.ts";

const INDEX = { path: "index.html", mediaType: "text/html", content: "<!doctype html>\n" };
const LOGO = { path: "img/logo.svg", mediaType: "image/svg+xml", content: "<svg/>\n" };

describe.each(modes((f) => f.lane === "v1beta1"))("static assets on a WorkerVersion — $label", (mode) => {
  let edge: Edge;
  beforeAll(async () => {
    edge = await Edge.open(mode);
    await edge.aggregate("aw", { deploy: false });
  });
  afterAll(async () => edge.close());

  const assets = (bundle: string, notFoundHandling: "none" | "single_page_application", runWorkerFirst = false) => ({
    bundle: edge.to("StaticAssetBundle", bundle),
    runWorkerFirst,
    notFoundHandling,
  });
  const version = (bundle: string, notFoundHandling: "none" | "single_page_application", runWorkerFirst = false) =>
    edge.versionSpec({ bundle: "aw-b-1", worker: "aw", handlers: ["fetch"], extra: { assets: assets(bundle, notFoundHandling, runWorkerFirst) } });

  it("static-asset-spa-paths", async () => {
    // The runner's own bundle: one index.html; its manifest digest is the contract's probe pin.
    const manifest = filesManifest("StaticAssetBundle", [INDEX]);
    const digest = await edge.wire.files("StaticAssetBundle", [INDEX]);
    expect(digest).toBe(sha256Of(canonicalJson(manifest as never)));
    if (CORPUS !== undefined && mode.family.source === "upstream") {
      const contract = JSON.parse(
        readFileSync(join(CORPUS, laneNamed("v1beta1").corpus.folder, laneNamed("v1beta1").corpus.conformanceDir, "contract.json"), "utf8"),
      );
      expect(digest).toBe(contract.runnerInput.staticAssetBundle.desired.manifestDigest);
    }
    const bundle = await edge.create("StaticAssetBundle", "static-assets-probe", { manifestDigest: digest });
    const created = await edge.create("WorkerVersion", "static-assets-spa-version", version("static-assets-probe", "single_page_application"));
    expect(created.spec.assets).toEqual(assets("static-assets-probe", "single_page_application"));
    const read = await edge.read("WorkerVersion", "static-assets-spa-version");
    expect(readyOf(read)).toMatchObject({ status: "True", reason: "Available" });
    // The bundle is held by the version: its delete waits for the version's.
    await edge.refuses(() => edge.removeRaw("StaticAssetBundle", "static-assets-probe", bundle.metadata.generation), "dependency_in_use", [
      /static-assets-spa-version/,
    ]);
    await edge.remove("WorkerVersion", "static-assets-spa-version", read.metadata.generation);
    await edge.remove("StaticAssetBundle", "static-assets-probe", bundle.metadata.generation);
    await edge.readAbsent("StaticAssetBundle", "static-assets-probe");
  });

  it("single_page_application without index.html in the referenced manifest is invalid_argument before mutation, on apply and import", async () => {
    await edge.create("StaticAssetBundle", "no-index", { manifestDigest: await edge.wire.files("StaticAssetBundle", [LOGO]) });
    const spec = version("no-index", "single_page_application");
    // A prepare only reads the spec; the manifest is opened where the protocol mutates.
    expect((await edge.prepare("WorkerVersion", "spa-no-index", spec)).status).toBe(200);
    await edge.refuses(() => edge.createRaw("WorkerVersion", "spa-no-index", spec), "invalid_argument", [
      /single_page_application/,
      /has no index\.html/,
      /StaticAssetBundle "no-index"/,
    ]);
    await edge.refuses(() => edge.importRaw("WorkerVersion", "spa-no-index", spec, "native-spa-no-index"), "invalid_argument", [/has no index\.html/]);
    await edge.readAbsent("WorkerVersion", "spa-no-index");
    // The same bundle without the fallback is fine: a missing path is a miss.
    const plain = await edge.create("WorkerVersion", "assets-none", version("no-index", "none", true));
    expect(plain.spec.assets.notFoundHandling).toBe("none");
    // index.html nested in a folder is not the bundle's index.html.
    await edge.create("StaticAssetBundle", "nested-index", {
      manifestDigest: await edge.wire.files("StaticAssetBundle", [{ ...INDEX, path: "app/index.html" }]),
    });
    await edge.refuses(() => edge.createRaw("WorkerVersion", "spa-nested", version("nested-index", "single_page_application")), "invalid_argument", [
      /has no index\.html/,
    ]);
  });

  it("/assets/bundle is a relation below an optional object: absent is no relation, a missing target is resource_not_found", async () => {
    const without = await edge.create("WorkerVersion", "no-assets", edge.versionSpec({ bundle: "aw-b-1", worker: "aw", handlers: ["fetch"] }));
    expect(without.spec.assets).toBeUndefined();
    await edge.refuses(() => edge.createRaw("WorkerVersion", "assets-missing", version("never-created", "none")), "resource_not_found", [/\/assets\/bundle/]);
    // A WorkerBundle is not a StaticAssetBundle: the reference names its kind, which the schema fixes.
    const wrongKind = { ...version("aw-b-1", "none"), assets: { ...assets("aw-b-1", "none"), bundle: edge.to("WorkerBundle", "aw-b-1") } };
    const refused = await edge.refusal(await edge.createRaw("WorkerVersion", "assets-wrong-kind", wrongKind));
    expect(refused.code).toBe("invalid_argument");
  });

  it("the version pins the bundle's incarnation: a re-created bundle drifts the version", async () => {
    const first = await edge.create("StaticAssetBundle", "pinned-assets", { manifestDigest: await edge.wire.files("StaticAssetBundle", [INDEX, LOGO]) });
    const v = await edge.create("WorkerVersion", "pins-assets", version("pinned-assets", "single_page_application"));
    const pinned = edge.host.controls.resource({
      tenant: "tenant-a",
      space: "conformance",
      apiVersion: edge.group,
      kind: "WorkerVersion",
      name: "pins-assets",
    });
    expect(pinned?.uid).toBe(v.metadata.uid);
    edge.host.controls.recreateOutOfBand({
      tenant: "tenant-a",
      space: "conformance",
      apiVersion: edge.group,
      kind: "StaticAssetBundle",
      name: "pinned-assets",
    });
    const drifted = await edge.read("WorkerVersion", "pins-assets");
    expect(readyOf(drifted)).toMatchObject({ status: "False", reason: "ExternalChange" });
    expect(readyOf(drifted).hostReason).toContain(`/assets/bundle uid ${first.metadata.uid}`);
  });
});
