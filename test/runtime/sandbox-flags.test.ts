// The isolate's Node flags follow the running Node (issue 23 item 6): Node 20 spells the
// permission model --experimental-permission, Node 22.13 and later (and 23.5 and later) --permission.
// The flag is chosen from the flags this Node knows (host/runtime/sandbox.ts), so the version
// table below is the check that the choice is the one each Node documents. And a process started
// with those flags and that environment reads its own code and nothing else, and sees no variable
// of its parent.

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { permissionFlag, sandboxEnv, sandboxFlags } from "../../src/host/runtime/sandbox.ts";

const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
const stable = major > 23 || (major === 23 && minor >= 5) || (major === 22 && minor >= 13);
const dir = mkdtempSync(join(tmpdir(), "takoform-sandbox-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the isolate's permission flags", () => {
  it(`on Node ${process.versions.node}: ${stable ? "--permission" : "--experimental-permission"}`, () => {
    expect(permissionFlag()).toBe(stable ? "--permission" : "--experimental-permission");
    expect(sandboxFlags(join(dir, "code.mjs"))[0]).toBe(permissionFlag());
  });

  it("a process started with them reads its own code only, and has none of its parent's environment", () => {
    const code = join(dir, "code.mjs");
    const secret = join(dir, "secret.txt");
    writeFileSync(secret, "not for the worker");
    writeFileSync(
      code,
      `import { readFileSync } from "node:fs";
const tryRead = (path) => { try { readFileSync(path); return "read"; } catch (error) { return error.code; } };
console.log(JSON.stringify({ own: tryRead(${JSON.stringify(code)}), secret: tryRead(${JSON.stringify(secret)}), passwd: tryRead("/etc/passwd"), environ: tryRead("/proc/" + process.ppid + "/environ"), env: Object.keys(process.env) }));
`,
    );
    const ran = spawnSync(process.execPath, [...sandboxFlags(code), code], {
      env: { ...sandboxEnv() },
      encoding: "utf8",
    });
    expect(ran.status, ran.stderr).toBe(0);
    const seen = JSON.parse(ran.stdout.trim().split("\n").pop()!) as Record<string, unknown>;
    expect(seen).toEqual({ own: "read", secret: "ERR_ACCESS_DENIED", passwd: "ERR_ACCESS_DENIED", environ: "ERR_ACCESS_DENIED", env: [] });
  });
});
