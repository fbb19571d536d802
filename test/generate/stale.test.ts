import { describe, it, expect } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkGenerated, generate, GENERATED_HEADER } from "../../src/generate/index.ts";
import { PACKAGES, ROOT } from "../codec/support.ts";

const bundled = () => generate({ formsDirs: [PACKAGES], layout: "bundled", displayBase: ROOT });

function takoform(args: string[], cwd = ROOT) {
  return spawnSync(process.execPath, [join(ROOT, "bin/takoform.js"), ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
}

describe("the checked-in generated output", () => {
  it("names only generated files that exist, each under the layout's own directories", () => {
    const { files, layout } = bundled();
    for (const path of files.keys())
      expect(
        layout.ownedDirs.some((dir) => path.startsWith(`${dir}/`)),
        path,
      ).toBe(true);
  });

  it("is exactly what `takoform get` writes (regenerate with `npm run gen` when this fails)", () => {
    const result = bundled();
    expect(result.problems).toEqual([]);
    const stale = checkGenerated(ROOT, result.layout, result.files);
    expect(stale).toEqual({ changed: [], missing: [], extra: [] });
    expect([...result.files.keys()]).toContain("registry/generated/index.gen.ts");
    expect([...result.files.keys()]).toContain("codecs/edge/v1alpha1/module-worker@0.2.0.gen.json");
    expect([...result.files.keys()].filter((p) => p.startsWith("registry/generated/validators/")).length).toBeGreaterThanOrEqual(17);
    expect([...result.files.keys()]).toContain("src/constructs/generated/index.gen.ts");
  });

  it("is deterministic and every file starts with the generated header", () => {
    const a = bundled().files;
    const b = bundled().files;
    expect([...a.entries()]).toEqual([...b.entries()]);
    for (const [path, content] of a) {
      // JSON has no comments: a generated document carries the header as its first member, "//".
      const header = path.endsWith(".json") ? `{\n  "//": "${GENERATED_HEADER.slice(3)}` : `${GENERATED_HEADER}\n`;
      expect(content.startsWith(header), path).toBe(true);
      expect(content).not.toMatch(/\b20\d\d-\d\d-\d\dT/);
    }
  });

  it("`takoform get --bundled --out DIR` writes the same bytes, and --check passes in the package", () => {
    const out = mkdtempSync(join(tmpdir(), "takoform-gen-"));
    try {
      const run = takoform(["get", "--bundled", "--out", out]);
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      for (const [path, content] of bundled().files) expect(readFileSync(join(out, path), "utf8"), path).toBe(content);
      const again = takoform(["get", "--bundled", "--out", out]);
      expect(again.stdout).toContain("0 written");
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
    const check = takoform(["get", "--check"]);
    expect(check.stderr).toBe("");
    expect(check.status).toBe(0);
    expect(check.stdout).toContain("up to date");
    // Three commands that each generate every Form's codecs and constructs: seconds on a quiet
    // machine, past vitest's 30 s on a loaded one.
  }, 120_000);

  it("usage errors: no --forms outside the package, --bundled with --forms", () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "takoform-nogen-"));
    try {
      const run = takoform(["get", "-C", elsewhere]);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain("give --forms DIR");
      expect(takoform(["get", "--bundled", "--forms", "x"]).stderr).toContain("takes no --forms");
      expect(takoform(["get", "--type-name", "nonsense"]).stderr).toContain("expected <apiVersion>/<Kind>=<type>");
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
