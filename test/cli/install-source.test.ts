// Issue 26, item 7: the takoform-cdk dependency `takoform init` writes is one that installs the
// package that ran it — read from npm's hidden lockfile for an installed copy, a `file:`
// reference to a checkout that is not installed at all. Real directory trees, no mocks.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ownDependencySpec } from "../../src/cli/install-source.ts";

const work = mkdtempSync(join(tmpdir(), "takoform-install-source-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `<work>/<name>/node_modules/<path>` with a hidden lockfile holding `packages`. */
function installed(name: string, path: string, packages: Record<string, unknown> | null): string {
  const project = join(work, name);
  const root = join(project, "node_modules", ...path.split("/"));
  mkdirSync(root, { recursive: true });
  if (packages !== null) writeFileSync(join(project, "node_modules", ".package-lock.json"), JSON.stringify({ lockfileVersion: 3, packages }));
  return root;
}

describe("ownDependencySpec", () => {
  it("a checkout that is not installed: a file: reference to it", () => {
    const checkout = join(work, "takoform-cdk");
    mkdirSync(checkout, { recursive: true });
    expect(ownDependencySpec(checkout, "0.1.0")).toBe(`file:${checkout}`);
  });

  it("installed from the registry (also through npx, nested under another package, or with no lockfile): ^VERSION", () => {
    const registry = "https://registry.npmjs.org/takoform-cdk/-/takoform-cdk-0.1.0.tgz";
    expect(ownDependencySpec(installed("app", "takoform-cdk", { "node_modules/takoform-cdk": { version: "0.1.0", resolved: registry } }), "0.1.0")).toBe(
      "^0.1.0",
    );
    const nested = installed("nested", "tool/node_modules/takoform-cdk", {
      "node_modules/tool/node_modules/takoform-cdk": { version: "0.2.0", resolved: registry },
    });
    expect(ownDependencySpec(nested, "0.2.0")).toBe("^0.2.0");
    expect(ownDependencySpec(installed("yarn", "takoform-cdk", null), "0.1.0")).toBe("^0.1.0");
  });

  it("installed from a local tarball: that tarball again, by its absolute path; from git: that git URL", () => {
    const tarball = join(work, "takoform-cdk-0.1.0.tgz");
    writeFileSync(tarball, "");
    expect(ownDependencySpec(installed("tgz", "takoform-cdk", { "node_modules/takoform-cdk": { resolved: "file:../takoform-cdk-0.1.0.tgz" } }), "0.1.0")).toBe(
      `file:${tarball}`,
    );
    // A tarball that is gone cannot be installed again: the registry version is the best guess.
    expect(ownDependencySpec(installed("gone", "takoform-cdk", { "node_modules/takoform-cdk": { resolved: "file:../missing.tgz" } }), "0.1.0")).toBe("^0.1.0");
    const git = "git+ssh://git@github.com/example/takoform-cdk.git#0123456789abcdef0123456789abcdef01234567";
    expect(ownDependencySpec(installed("git", "takoform-cdk", { "node_modules/takoform-cdk": { resolved: git } }), "0.1.0")).toBe(git);
  });
});
