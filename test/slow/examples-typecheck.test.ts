// Issue 14, item 3: every example in the repository passes the typecheck that runs before synth
// (examples/tsconfig.json checks them all). Slow tier: it runs the project's TypeScript compiler
// over five apps, cold. The typecheck's behaviour itself is test/cli/init-typecheck.test.ts.

import { cpSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, Scratch } from "../scenario/harness.ts";
import { EXAMPLE_SOURCES, linkNodeModules } from "../support/node-modules.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const scratch = new Scratch();
afterAll(() => scratch.cleanup());
const bare = { TAKOFORM_ENDPOINT: undefined, TAKOFORM_TOKEN: undefined, TAKOFORM_SPACE: undefined };

describe("typecheck before synth", () => {
  it("the repository's examples pass it", async () => {
    const copy = scratch.path("repo");
    cpSync(join(ROOT, "examples"), join(copy, "examples"), { recursive: true, filter: EXAMPLE_SOURCES });
    linkNodeModules(copy);
    writeFileSync(join(copy, "package.json"), JSON.stringify({ name: "repo", private: true, type: "module" }));
    for (const example of ["worker-app", "worker-site", "cycles", "raw-pinned", "multi-stack"]) {
      const synth = await runCli(["synth", "-C", join(copy, "examples", example), "--json"], { cwd: copy, env: bare, timeoutMs: 180_000 });
      expect(synth.code, synth.stdout + synth.stderr).toBe(0);
      // One tsconfig (examples/tsconfig.json) checks them all; each project keeps its own build info.
      expect(JSON.parse(synth.stdout)).toMatchObject({ ok: true, typecheck: { status: "passed" } });
    }
  }, 240_000);
});
