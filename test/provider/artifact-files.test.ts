// The files authoring surface of the v1beta1 lane's two new artifact-backed revisions (reference
// v1beta1 §7, §10.3, §10.4, §13 items 5, 7, 8, 17), against the real local host over HTTP:
// StaticAssetBundle (any normalised media type) and SQLiteMigrationSet (application/sql only),
// each built from local files into a manifest of its own kind, in the author's order, uploaded
// before the revision is applied, named `static-asset-bundle-…` / `sqlite-migration-set-…`, and
// refused at plan over the host's published entry and byte ceilings.

import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Attributes } from "../../src/core/values.ts";
import { laneNamed } from "../../src/core/lanes.ts";
import { providerCode } from "../../src/provider/diagnostics/codes.ts";
import type { RuleModule } from "../../src/host/rules/types.ts";
import { converge, errorsOf, MODES, mustCreate, mustRead, scratch, show, useRig } from "./harness.ts";

const ASSETS = "takoform_static_asset_bundle";
const MIGRATIONS = "takoform_sqlite_migration_set";
const BETA = laneNamed("v1beta1");
const OWNER = "counter";
const OWNER_HEX = "efe899c74558"; // first 12 hex of SHA-256("counter") (reference provider §3.8)

const sha256 = (bytes: string | Buffer): string => createHash("sha256").update(bytes).digest("hex");

/** RFC 8785 text of a files manifest, written by hand: keys sorted, the files in the given order. */
function manifestDigest(kind: string, files: { path: string; mediaType: string; content: string }[]): string {
  const entries = files.map(
    (f) =>
      `{"digest":"sha256:${sha256(f.content)}","mediaType":${JSON.stringify(f.mediaType)},"path":${JSON.stringify(f.path)},"size":${Buffer.byteLength(f.content)}}`,
  );
  return `sha256:${sha256(`{"apiVersion":"artifacts.takoform.com/v1alpha1","files":[${entries.join(",")}],"kind":${JSON.stringify(kind)}}`)}`;
}

function filesConfig(dir: string, files: { path: string; mediaType: string; file?: string }[], extra: Attributes = {}): Attributes {
  return { revision_owner: OWNER, files: files.map((f) => ({ path: f.path, media_type: f.mediaType, content_file: join(dir, f.file ?? f.path) })), ...extra };
}

const SITE = { "index.html": "<!doctype html><p>hello</p>\n", "app.css": "p { color: teal }\n", "logo.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>\n" };
const SITE_FILES = [
  { path: "index.html", mediaType: "text/html" },
  { path: "app.css", mediaType: "text/css" },
  { path: "logo.svg", mediaType: "image/svg+xml" },
];
const SQL = { "0001_init.sql": "CREATE TABLE hits (n INTEGER NOT NULL);\n", "0002_seed.sql": "INSERT INTO hits (n) VALUES (0);\n" };
const SQL_FILES = [
  { path: "0001_init.sql", mediaType: "application/sql" },
  { path: "0002_seed.sql", mediaType: "application/sql" },
];

for (const mode of MODES) {
  describe(`files authoring on v1beta1 (async: ${mode})`, () => {
    const r = useRig({ async: mode, lanes: ["v1beta1"] });

    it("a StaticAssetBundle's files become a StaticAssetBundle manifest in the author's order, uploaded before the revision is applied; no bytes in state", async () => {
      const dir = scratch(SITE);
      const planned = await r.provider.plan({ type: ASSETS, address: "a", prior: null, config: filesConfig(dir, SITE_FILES) });
      expect(errorsOf(planned.diagnostics), show(planned.diagnostics)).toEqual([]);
      const digest = manifestDigest(
        "StaticAssetBundle",
        SITE_FILES.map((f) => ({ ...f, content: SITE[f.path as keyof typeof SITE] })),
      );
      // The plan knows the digest and the derived name before anything is uploaded.
      expect(planned.planned!["manifest_digest"]).toBe(digest);
      const name = `static-asset-bundle-${digest.slice(7, 19)}-${OWNER_HEX}`;
      expect(planned.planned!["name"]).toBe(name);
      expect(name).toHaveLength(45);
      expect(r.log.filter((e) => e.path.includes("/artifacts/"))).toEqual([]);

      const state = await mustCreate(r, ASSETS, filesConfig(dir, SITE_FILES));
      const steps = r.log.filter((e) => e.path.includes("/artifacts/") || (e.method === "PUT" && e.path.includes("/StaticAssetBundle/")));
      const kinds = steps.map((e) =>
        e.path.endsWith("/uploads") ? "start" : e.path.includes("/blobs/") ? "blob" : e.path.endsWith("/commit") ? "commit" : "apply",
      );
      expect(kinds.filter((k, i) => k !== kinds[i - 1])).toEqual(["start", "blob", "commit", "apply"]);
      const started = JSON.parse(steps[0]!.requestBody).manifest;
      expect(started.kind).toBe("StaticAssetBundle");
      expect(started.files.map((f: { path: string }) => f.path)).toEqual(["index.html", "app.css", "logo.svg"]);
      expect(started.mainModule).toBeUndefined();
      const put = r.calls("PUT", "/StaticAssetBundle/").at(-1)!;
      expect(put.path).toBe(`${BETA.apiRoot}/resources/${BETA.edgeGroups.bundled}/StaticAssetBundle/${name}`);
      expect(JSON.parse(put.requestBody).spec).toEqual({ manifestDigest: digest });
      expect(state.attributes).toMatchObject({ name, manifest_digest: digest, form_api_version: BETA.edgeGroups.bundled });
      expect(state.attributes["files"]).toEqual(
        SITE_FILES.map((f) => ({
          path: f.path,
          media_type: f.mediaType,
          content_file: join(dir, f.path),
          size: Buffer.byteLength(SITE[f.path as keyof typeof SITE]),
          digest: `sha256:${sha256(SITE[f.path as keyof typeof SITE])}`,
        })),
      );
      expect(JSON.stringify(state)).not.toContain("hello");
      const read = await mustRead(r, state);
      expect(read.attributes["files"]).toEqual(state.attributes["files"]);
      const again = await converge(r, ASSETS, filesConfig(dir, SITE_FILES), read);
      expect(again.action, show(again.diagnostics)).toBe("no-op");
    });

    it("a SQLiteMigrationSet's files become a MigrationBundle manifest whose order is the migration order: another order is another set", async () => {
      const dir = scratch(SQL);
      const state = await mustCreate(r, MIGRATIONS, filesConfig(dir, SQL_FILES));
      const digest = manifestDigest(
        "MigrationBundle",
        SQL_FILES.map((f) => ({ ...f, content: SQL[f.path as keyof typeof SQL] })),
      );
      expect(state.attributes["manifest_digest"]).toBe(digest);
      const name = `sqlite-migration-set-${digest.slice(7, 19)}-${OWNER_HEX}`;
      expect(state.attributes["name"]).toBe(name);
      expect(name).toHaveLength(46);
      const started = JSON.parse(
        r
          .calls("POST", "/artifacts/uploads")
          .filter((e) => e.path.endsWith("/uploads"))
          .at(-1)!.requestBody,
      ).manifest;
      expect(started.kind).toBe("MigrationBundle");
      expect(started.files.map((f: { path: string }) => f.path)).toEqual(["0001_init.sql", "0002_seed.sql"]);

      // The same files in the other order: a different manifest, so a new revision beside the old one.
      const reversed = [...SQL_FILES].reverse();
      const plan = await r.provider.plan({ type: MIGRATIONS, address: "m", prior: state, config: filesConfig(dir, reversed) });
      expect(errorsOf(plan.diagnostics)).toEqual([]);
      const other = manifestDigest(
        "MigrationBundle",
        reversed.map((f) => ({ ...f, content: SQL[f.path as keyof typeof SQL] })),
      );
      expect(plan.planned!["manifest_digest"]).toBe(other);
      expect(other).not.toBe(digest);
      expect(plan.planned!["name"]).toBe(`sqlite-migration-set-${other.slice(7, 19)}-${OWNER_HEX}`);
      expect(plan.requiresReplace).toEqual(expect.arrayContaining([["manifest_digest"], ["name"]]));
    });

    it("changed bytes under an unchanged path are a new digest at plan, and so a new name", async () => {
      const dir = scratch(SITE);
      const config = filesConfig(dir, SITE_FILES);
      const state = await mustCreate(r, ASSETS, config);
      writeFileSync(join(dir, "app.css"), "p { color: crimson }\n");
      const plan = await r.provider.plan({ type: ASSETS, address: "a", prior: state, config });
      expect(errorsOf(plan.diagnostics)).toEqual([]);
      expect(plan.planned!["manifest_digest"]).not.toBe(state.attributes["manifest_digest"]);
      expect(plan.planned!["name"]).not.toBe(state.attributes["name"]);
      expect(plan.requiresReplace).toEqual(expect.arrayContaining([["manifest_digest"], ["name"]]));
    });

    it("a bare manifest_digest names a committed manifest and uploads nothing; both spellings must agree", async () => {
      const dir = scratch(SITE);
      const first = await mustCreate(r, ASSETS, filesConfig(dir, SITE_FILES));
      const artifactCalls = r.log.filter((e) => e.path.includes("/artifacts/")).length;
      const digestOnly = await mustCreate(r, ASSETS, { revision_owner: "someone-else", manifest_digest: first.attributes["manifest_digest"] });
      expect(r.log.filter((e) => e.path.includes("/artifacts/")).length).toBe(artifactCalls);
      expect(digestOnly.attributes).toMatchObject({ files: null, manifest_digest: first.attributes["manifest_digest"] });
      const conflicting = await converge(
        r,
        ASSETS,
        filesConfig(dir, SITE_FILES, { revision_owner: "third", manifest_digest: `sha256:${"ab".repeat(32)}` }),
        null,
      );
      expect(conflicting.action).toBe("refused");
      expect(errorsOf(conflicting.diagnostics).map((d) => d.summary)).toEqual(["Conflicting static asset bundle authoring"]);
    });
  });
}

describe("files authoring is checked before anything is sent", () => {
  const r = useRig({ lanes: ["v1beta1"] });

  it("media types by manifest kind: any normalised type for assets, exactly application/sql for migrations; paths by the artifact grammar", () => {
    const before = r.log.length;
    const bad = (type: string, files: Attributes[]) => r.provider.validate(type, { revision_owner: OWNER, files });
    const file = join(scratch({ x: "x" }), "x");
    const entry = (path: string, media_type: string) => ({ path, media_type, content_file: file });
    const problems = (type: string, files: Attributes[]) => errorsOf(bad(type, files)).map((d) => [d.summary, d.attribute]);
    expect(problems(ASSETS, [entry("a.bin", "application/x-custom+thing")])).toEqual([]);
    expect(problems(ASSETS, [entry("index.html", "text/html; charset=utf-8"), entry("a.css", "Text/CSS"), entry("b", "css")])).toEqual(
      expect.arrayContaining([
        ["Invalid file media type", "files[0].media_type"],
        ["Invalid file media type", "files[1].media_type"],
        ["Invalid file media type", "files[2].media_type"],
      ]),
    );
    expect(problems(MIGRATIONS, [entry("0001.sql", "application/sql")])).toEqual([]);
    expect(problems(MIGRATIONS, [entry("0001.sql", "text/plain")])).toEqual(expect.arrayContaining([["Invalid file media type", "files[0].media_type"]]));
    expect(
      problems(ASSETS, [
        entry(".well-known/x", "text/plain"),
        entry("a/../b", "text/plain"),
        entry("/abs", "text/plain"),
        entry("ok", "text/plain"),
        entry("ok", "text/plain"),
      ]),
    ).toEqual(
      expect.arrayContaining([
        ["Invalid file path", "files[0].path"],
        ["Invalid file path", "files[1].path"],
        ["Invalid file path", "files[2].path"],
        ["Duplicate file path", "files[4].path"],
      ]),
    );
    expect(r.log.length).toBe(before);
  });

  it("a content_file that is not there is a plan error, before any host write", async () => {
    const dir = scratch({ "0001_init.sql": SQL["0001_init.sql"] });
    const config = filesConfig(dir, SQL_FILES);
    const out = await converge(r, MIGRATIONS, config, null);
    expect(out.action).toBe("refused");
    expect(errorsOf(out.diagnostics)).toEqual([expect.objectContaining({ code: providerCode("local-file-unreadable"), attribute: "files[1].content_file" })]);
    expect(r.mutations()).toEqual([]);
  });
});

/** A host extension that publishes small ceilings on the two files Forms' support profiles. */
function ceilings(files: number, bytes: number): RuleModule {
  return (registry) => {
    for (const kind of ["StaticAssetBundle", "SQLiteMigrationSet"]) {
      registry.register(BETA.edgeGroups.bundled, kind, {
        supportProfile: (profile) => ({ ...profile, limits: { ...(profile.limits ?? {}), maximumBundleFiles: files, maximumBundleBytes: bytes } }),
      });
    }
  };
}

describe("plan-time ceilings from the support profile (maximumBundleFiles, maximumBundleBytes)", () => {
  const r = useRig({ lanes: ["v1beta1"], rules: [ceilings(2, 200)] });

  it("more files than maximumBundleFiles, or more bytes than maximumBundleBytes, is refused at plan with nothing uploaded", async () => {
    const dir = scratch(SITE);
    const tooMany = await converge(r, ASSETS, filesConfig(dir, SITE_FILES), null);
    expect(tooMany.action).toBe("refused");
    expect(errorsOf(tooMany.diagnostics)).toEqual([
      expect.objectContaining({
        summary: "This static asset bundle lists more files than the host accepts",
        code: providerCode("host-limit-exceeded"),
        pointer: "/manifestDigest",
        attribute: "files",
      }),
    ]);
    expect(errorsOf(tooMany.diagnostics)[0]!.detail).toContain("maximumBundleFiles to 2");
    const big = scratch({ "0001.sql": `-- ${"x".repeat(300)}\n` });
    const tooBig = await converge(r, MIGRATIONS, filesConfig(big, [{ path: "0001.sql", mediaType: "application/sql" }]), null);
    expect(errorsOf(tooBig.diagnostics)).toEqual([
      expect.objectContaining({ summary: "This migration set is larger than the host accepts", code: providerCode("host-limit-exceeded") }),
    ]);
    expect(r.log.filter((e) => e.path.includes("/artifacts/") || e.method === "PUT")).toEqual([]);
    // Within both ceilings the same host takes it.
    const fits = await converge(r, ASSETS, filesConfig(dir, SITE_FILES.slice(0, 2)), null);
    expect(errorsOf(fits.diagnostics), show(fits.diagnostics)).toEqual([]);
    expect(fits.action).toBe("create");
  });
});
