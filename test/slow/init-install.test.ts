// Issue 14, item 2, as a user meets it: `takoform init` in a temporary directory, `npm install`
// from the packed tarball (its dependencies and the project's dev tools linked from this
// repository's node_modules, offline), then the installed `takoform apply`, then `npm test`.
// Issue 26, item 7: the README's "Start a project" from a clone — `npx takoform init` run in this
// checkout writes a `file:` dependency on it, which `npm install` links as written.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { links, packTree, ROOT, run, shown } from "../package/pack.ts";

const work = mkdtempSync(join(tmpdir(), "takoform-init-install-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("init, npm install from the tarball, apply, npm test", () => {
  it("deploys the new project to the embedded host and passes its own test", () => {
    const { tarball } = packTree(work);
    const project = join(work, "my-stack");
    const init = run(process.execPath, [join(ROOT, "bin", "takoform.js"), "init", project, "--package", `file:${tarball}`], work);
    expect(init.status, shown(init)).toBe(0);
    const pkg = JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(pkg.dependencies["takoform-cdk"]).toBe(`file:${tarball}`);
    // Every dependency the template names and the package's own, linked (no network, no native
    // build); the package itself from the tarball.
    const own = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    const names = [...new Set([...Object.keys(own.dependencies), ...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)])].filter(
      (n) => n !== "takoform-cdk",
    );
    const installed = run("npm", ["install", "--offline", "--ignore-scripts", "--no-audit", "--no-fund", tarball, ...links(names)], project);
    expect(installed.status, shown(installed)).toBe(0);

    const apply = run("npx", ["takoform", "apply", "-auto-approve"], project, { TAKOFORM_ENDPOINT: "", TAKOFORM_TOKEN: "" });
    expect(apply.status, shown(apply)).toBe(0);
    expect(apply.stdout).toContain("Apply complete! Resources: 6 added, 0 changed, 0 destroyed.");
    expect(apply.stdout).toMatch(/url = "https:\/\/my-stack-endpoint-[0-9a-f]+\.workers\.localhost\/"/);
    const plan = run("npx", ["takoform", "plan", "-detailed-exitcode"], project, { TAKOFORM_ENDPOINT: "", TAKOFORM_TOKEN: "" });
    expect(plan.status, shown(plan)).toBe(0);

    const test = run("npm", ["test"], project);
    expect(test.status, shown(test)).toBe(0);
    expect(test.stdout).toMatch(/Tests\s+2 passed/);
  }, 900_000);

  it("from a clone: `npx takoform init` writes a file: dependency on the checkout, and the README's steps work as written", () => {
    const project = join(work, "from-clone");
    const init = run("npx", ["takoform", "init", project], ROOT);
    expect(init.status, shown(init)).toBe(0);
    const pkg = JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(pkg.dependencies["takoform-cdk"]).toBe(`file:${resolve(ROOT)}`);
    // package.json is installed as init wrote it (--no-save); the other packages come offline from
    // this repository's copies instead of the registry.
    const names = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)].filter((n) => n !== "takoform-cdk");
    const installed = run("npm", ["install", "--offline", "--ignore-scripts", "--no-audit", "--no-fund", "--no-save", ...links(names)], project);
    expect(installed.status, shown(installed)).toBe(0);
    expect(JSON.parse(readFileSync(join(project, "package.json"), "utf8"))).toEqual(pkg);

    const apply = run("npx", ["takoform", "apply", "-auto-approve"], project, { TAKOFORM_ENDPOINT: "", TAKOFORM_TOKEN: "" });
    expect(apply.status, shown(apply)).toBe(0);
    expect(apply.stdout).toContain("Apply complete! Resources: 6 added, 0 changed, 0 destroyed.");
    const test = run("npm", ["test"], project);
    expect(test.status, shown(test)).toBe(0);
    expect(test.stdout).toMatch(/Tests\s+2 passed/);
  }, 300_000);
});
