// The package's public entry points, imported by the package's own name the way a user's project
// or an embedding program imports them: `takoform-cdk` for authoring, and
// `takoform-cdk/automation` and `takoform-cdk/testing` to deploy from a program and to test, and
// `takoform-cdk/host` to run the embedded host; the modules' own facades (engine, the host's
// index.ts, client, provider, state) are internal and not published
// (docs/ARCHITECTURE.md §5). package.json "exports" name the compiled dist/; inside this
// repository's tests the same names resolve to the sources (vitest.config.ts aliases them, and
// tsconfig.json maps them for the typecheck), so the tests below compare against src/ modules.
// The type-only exports are checked by the typecheck (`npm test` runs tsc over test/).

import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ContributeOptions, ContributionValues, WorkerAppConfig, MeshServiceConfig, TakoformProviderConfig } from "takoform-cdk";
import * as generated from "../../src/constructs/generated/index.gen.ts";

const ROOT = join(import.meta.dirname, "..", "..");

// Type-level: these fail the typecheck if the root entry stops exporting the authoring types.
const contribution: ContributionValues = { serviceBindings: [] };
const options: ContributeOptions = {};
const app: Pick<WorkerAppConfig, "name" | "contentDir"> = { name: "counter", contentDir: "dist" };
const service: MeshServiceConfig = { name: "a", entrypoint: "a.js" };
const block: TakoformProviderConfig = {};

/** Public subpath → the source module it is compiled from. */
const ENTRIES: Record<string, string> = {
  ".": "src/index",
  "./automation": "src/automation/api",
  "./testing": "src/testing/index",
  "./host": "src/host/api",
  "./forms": "src/automation/forms-api",
};

describe("package.json exports", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { name: string; exports: Record<string, unknown>; bin: Record<string, string> };

  it("lists exactly the root and the documented subpaths, each naming compiled JavaScript and its declarations", () => {
    expect(pkg.name).toBe("takoform-cdk");
    expect(Object.keys(pkg.exports).sort()).toEqual(Object.keys(ENTRIES).sort());
    for (const [subpath, source] of Object.entries(ENTRIES)) {
      expect(pkg.exports[subpath], subpath).toEqual({ types: `./dist/${source}.d.ts`, default: `./dist/${source}.js` });
      expect(existsSync(join(ROOT, `${source}.ts`)), source).toBe(true);
      // The global setup built dist/ before this run.
      expect(existsSync(join(ROOT, "dist", `${source}.js`)), source).toBe(true);
      expect(existsSync(join(ROOT, "dist", `${source}.d.ts`)), source).toBe(true);
    }
    expect(pkg.bin).toEqual({ takoform: "bin/takoform.js" });
  });

  it("the compiled declarations import no .ts path (a consumer needs no allowImportingTsExtensions)", () => {
    for (const source of Object.values(ENTRIES)) {
      const text = readFileSync(join(ROOT, "dist", `${source}.d.ts`), "utf8");
      expect(text, source).not.toMatch(/from\s+["']\.{1,2}\/[^"']*\.ts["']/);
      expect(text, source).toMatch(/from\s+["']\.{1,2}\/[^"']*\.js["']/);
    }
  });
});

describe("Node's own resolver (strict exports, no bundler leniency)", () => {
  it("resolves the package name and each subpath from a directory inside the repository to the compiled file", () => {
    const specifiers = Object.keys(ENTRIES).map((s) => (s === "." ? "takoform-cdk" : `takoform-cdk/${s.slice(2)}`));
    const script = `process.stdout.write(JSON.stringify(${JSON.stringify(specifiers)}.map((s) => import.meta.resolve(s))))`;
    const out = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: join(ROOT, "test", "constructs"), encoding: "utf8" });
    expect(out.status, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual(Object.values(ENTRIES).map((f) => pathToFileURL(join(ROOT, "dist", `${f}.js`)).href));
  });

  it("refuses internal paths: only the listed entry points are API", () => {
    const script = `try { import.meta.resolve("takoform-cdk/src/engine/run.ts"); process.stdout.write("resolved"); } catch (e) { process.stdout.write(e.code); }`;
    const out = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: join(ROOT, "test", "constructs"), encoding: "utf8" });
    expect(out.stdout).toBe("ERR_PACKAGE_PATH_NOT_EXPORTED");
  });

  it("refuses the modules' own facades, which are internal (docs/api.md)", () => {
    const facades = ["engine", "engine/config", "host/index", "client", "provider", "state"].map((m) => `takoform-cdk/${m}`);
    const script = `process.stdout.write(JSON.stringify(${JSON.stringify(facades)}.map((s) => { try { import.meta.resolve(s); return "resolved"; } catch (e) { return e.code; } })))`;
    const out = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: join(ROOT, "test", "constructs"), encoding: "utf8" });
    expect(out.status, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual(facades.map(() => "ERR_PACKAGE_PATH_NOT_EXPORTED"));
  });
});

describe("takoform-cdk (authoring)", () => {
  it("exports the provider block, WorkerApp and every generated construct class", async () => {
    const root = await import("takoform-cdk");
    expect(typeof root.TakoformProvider).toBe("function");
    expect(typeof root.WorkerApp).toBe("function");
    expect(typeof root.TakoformResource).toBe("function");
    const classes = Object.entries(generated).filter(([, v]) => typeof v === "function");
    expect(classes.length).toBeGreaterThanOrEqual(16);
    for (const [name, value] of classes) expect((root as Record<string, unknown>)[name], name).toBe(value);
    // The type-level declarations above are used, so the typecheck keeps them honest.
    expect([contribution, options, app, service, block]).toHaveLength(5);
  });
});

describe("published subpaths", () => {
  it("each resolves by the package name to the same module as its source path", async () => {
    const pairs: [string, string, string][] = [
      ["takoform-cdk/automation", "../../src/automation/api.ts", "openWorkspace"],
      ["takoform-cdk/testing", "../../src/testing/index.ts", "TestHost"],
      ["takoform-cdk/host", "../../src/host/api.ts", "LocalHost"],
    ];
    for (const [specifier, path, member] of pairs) {
      const bySelf = (await import(specifier)) as Record<string, unknown>;
      const byPath = (await import(path)) as Record<string, unknown>;
      expect(typeof bySelf[member], specifier).toBe("function");
      expect(bySelf[member], specifier).toBe(byPath[member]);
    }
  });
});
