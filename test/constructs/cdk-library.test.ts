// Issue 24, item 3: which CDK library the constructs are built on (src/constructs/cdk.ts) — the
// one the project's package.json names, else cdktf when installed, else cdktn — and the refusal of
// a stack made by the other one, in this process (this repository names both, so cdktf).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as cdktf from "cdktf";
import * as cdktn from "cdktn";
import { afterAll, describe, expect, it } from "vitest";
import { CDK_LIBRARY, chooseCdkLibrary, type CdkLibraryName } from "../../src/constructs/cdk.ts";
import { EdgeKVNamespace, TakoformProvider } from "../../src/index.ts";

const root = mkdtempSync(join(tmpdir(), "takoform-cdk-choice-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A project directory whose package.json has `manifest`, and a subdirectory the app may run in. */
function projectWith(name: string, manifest: Record<string, unknown> | null): string {
  const dir = join(root, name);
  mkdirSync(join(dir, "src"), { recursive: true });
  if (manifest !== null) writeFileSync(join(dir, "package.json"), JSON.stringify(manifest));
  return join(dir, "src");
}
const both = (): boolean => true;
const only =
  (name: CdkLibraryName) =>
  (n: CdkLibraryName): boolean =>
    n === name;

describe("the CDK library the constructs are built on", () => {
  it("is the one the nearest package.json names, in any dependency field", () => {
    expect(chooseCdkLibrary(projectWith("terrain", { dependencies: { cdktn: "0.24.0" } }), both)).toEqual({
      name: "cdktn",
      reason: `${join(root, "terrain", "package.json")} depends on cdktn`,
    });
    expect(chooseCdkLibrary(projectWith("dev-only", { devDependencies: { cdktf: "0.21.0" } }), both).name).toBe("cdktf");
    expect(chooseCdkLibrary(projectWith("peer", { peerDependencies: { cdktn: "*" } }), both).name).toBe("cdktn");
  });

  it("is cdktf when installed and the project names neither or both, else cdktn", () => {
    expect(chooseCdkLibrary(projectWith("neither", { dependencies: { constructs: "10.7.2" } }), both)).toEqual({
      name: "cdktf",
      reason: `${join(root, "neither", "package.json")} names neither cdktf nor cdktn, and cdktf is installed`,
    });
    expect(chooseCdkLibrary(projectWith("both", { dependencies: { cdktf: "0.21.0" }, devDependencies: { cdktn: "0.24.0" } }), only("cdktn"))).toEqual({
      name: "cdktn",
      reason: `${join(root, "both", "package.json")} names both, and cdktn is installed`,
    });
  });

  it("refuses a named library that is not installed, and a project with neither installed, saying what to do", () => {
    expect(() => chooseCdkLibrary(projectWith("missing", { dependencies: { cdktn: "0.24.0" } }), only("cdktf"))).toThrow(
      `takoform-cdk: ${join(root, "missing", "package.json")} depends on cdktn, which is not installed; run npm install`,
    );
    expect(() => chooseCdkLibrary(projectWith("none", {}), () => false)).toThrow(
      "takoform-cdk: its constructs are built on cdktf or cdktn, and neither is installed; install one beside takoform-cdk (npm install --save-exact cdktf@0.21.0, or cdktn@0.24.0)",
    );
  });

  it("in this repository (which names both) is cdktf, and its own stacks take the constructs", () => {
    expect(CDK_LIBRARY.name).toBe("cdktf");
    const stack = new cdktf.TerraformStack(cdktf.Testing.app(), "s");
    new TakoformProvider(stack, "takoform");
    new EdgeKVNamespace(stack, "kv", { name: "kv" });
    expect(JSON.parse(cdktf.Testing.synth(stack)).resource).toEqual({ takoform_edge_kv_namespace: { kv: { name: "kv" } } });
  });

  it("refuses a stack the other library made, before anything is added to it", () => {
    const stack = new cdktn.TerraformStack(cdktn.Testing.app(), "terrain");
    const refusal =
      "takoform-cdk: the stack terrain is a cdktn TerraformStack, but takoform-cdk's constructs are built on cdktf " +
      `(${CDK_LIBRARY.reason}). An app uses one of the two: make the project's package.json depend on cdktn and not on cdktf.`;
    expect(() => new TakoformProvider(stack, "takoform")).toThrow(refusal);
    expect(() => new EdgeKVNamespace(stack, "kv", { name: "kv" })).toThrow(refusal);
    expect(stack.node.children).toEqual([]);
  });
});
