// The package's public entry points, imported by the package's own name (self-reference through
// package.json "exports"), the way a user's project or an embedding program imports them:
// `takoform-cdk` for authoring, and `takoform-cdk/{engine,host,client,provider,state}` for
// embedding and tests (docs/ARCHITECTURE.md §5). The type-only exports are checked by the
// typecheck (`npm test` runs tsc over test/), through the declarations below.

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ContributeOptions, ContributionValues, WorkerAppConfig, MeshServiceConfig, TakoformProviderConfig } from "takoform-cdk";
import * as generated from "../../src/constructs/generated/index.gen.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const cleanup: string[] = [];
afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

// Type-level: these fail the typecheck if the root entry stops exporting the authoring types.
const contribution: ContributionValues = { serviceBindings: [] };
const options: ContributeOptions = {};
const app: Pick<WorkerAppConfig, "name" | "contentDir"> = { name: "counter", contentDir: "dist" };
const service: MeshServiceConfig = { name: "a", entrypoint: "a.js" };
const block: TakoformProviderConfig = {};

describe("package.json exports", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { name: string; exports: Record<string, string> };

  it("names an explicit entry for the root and each embedding subpath, each an existing file", () => {
    expect(pkg.name).toBe("takoform-cdk");
    for (const [subpath, file] of Object.entries({
      ".": "./src/index.ts",
      "./engine": "./src/engine/index.ts",
      "./host": "./src/host/index.ts",
      "./client": "./src/client/index.ts",
      "./provider": "./src/provider/index.ts",
      "./state": "./src/state/index.ts",
    })) {
      expect(pkg.exports[subpath]).toBe(file);
      expect(existsSync(join(ROOT, file))).toBe(true);
    }
  });
});

describe("Node's own resolver (strict exports, no bundler leniency)", () => {
  it("resolves the package name and each subpath from a directory inside the repository to its index file", () => {
    const specifiers = ["takoform-cdk", "takoform-cdk/engine", "takoform-cdk/host", "takoform-cdk/client", "takoform-cdk/provider", "takoform-cdk/state"];
    const script = `process.stdout.write(JSON.stringify(${JSON.stringify(specifiers)}.map((s) => import.meta.resolve(s))))`;
    const out = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: join(ROOT, "test", "constructs"), encoding: "utf8" });
    expect(out.status, out.stderr).toBe(0);
    const files = ["src/index.ts", "src/engine/index.ts", "src/host/index.ts", "src/client/index.ts", "src/provider/index.ts", "src/state/index.ts"];
    expect(JSON.parse(out.stdout)).toEqual(files.map((f) => pathToFileURL(join(ROOT, f)).href));
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

describe("embedding subpaths", () => {
  it("each resolves by the package name to the module inside the repository", async () => {
    const pairs: [string, string, string][] = [
      ["takoform-cdk/engine", "../../src/engine/index.ts", "runPlan"],
      ["takoform-cdk/host", "../../src/host/index.ts", "LocalHost"],
      ["takoform-cdk/client", "../../src/client/index.ts", "HostClient"],
      ["takoform-cdk/provider", "../../src/provider/index.ts", "TakoformProvider"],
      ["takoform-cdk/state", "../../src/state/index.ts", "openLocalState"],
    ];
    for (const [specifier, path, member] of pairs) {
      const bySelf = (await import(specifier)) as Record<string, unknown>;
      const byPath = (await import(path)) as Record<string, unknown>;
      expect(typeof bySelf[member], specifier).toBe("function");
      expect(bySelf[member], specifier).toBe(byPath[member]);
    }
  });

  it("a host, a client, a provider, a state store and the engine from the subpaths alone plan and apply a stack", async () => {
    const { LocalHost, DEV_TOKEN } = await import("takoform-cdk/host");
    const { HostClient } = await import("takoform-cdk/client");
    const { TakoformProvider, bundledRegistry } = await import("takoform-cdk/provider");
    const { openLocalState } = await import("takoform-cdk/state");
    const { runPlan, runApply } = await import("takoform-cdk/engine");
    const { loadStackConfig, resolveVariables } = await import("takoform-cdk/engine/config/index.ts");

    const host = await LocalHost.open({ data: ":memory:" });
    const { url } = await host.listen("127.0.0.1", 0);
    const client = await HostClient.connect({ endpoint: url, token: DEV_TOKEN.token });
    const dir = mkdtempSync(join(tmpdir(), "takoform-embed-"));
    cleanup.push(dir);
    const store = openLocalState(join(dir, "state.db"));
    try {
      const provider = new TakoformProvider({ client, registry: bundledRegistry, defaultSpace: "default" });
      const loaded = loadStackConfig({ resource: { takoform_module_worker: { api: { name: "api" } } } });
      expect(loaded.diagnostics).toEqual([]);
      const variables = resolveVariables(loaded.config!.variables);
      expect(variables.diagnostics).toEqual([]);
      const setup = { provider, stack: loaded.config!, variables };
      const planned = await runPlan(setup, store);
      expect(planned.plan.resourceChanges.map((c) => [c.address, c.actions])).toEqual([["takoform_module_worker.api", ["create"]]]);
      const run = await runApply(setup, store, { lock: { holder: "embed-test" } });
      expect(run.status).toBe("applied");
      expect(host.controls.resourceCount()).toBe(1);
    } finally {
      await store.close();
      client.close();
      await host.close();
    }
  });
});
