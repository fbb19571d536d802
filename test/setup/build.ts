// Vitest global setup: build dist/ once per run (incremental, so a no-op when nothing changed).
// Tests import the TypeScript sources directly, but every test that spawns the command runs
// `node bin/takoform.js`, which is the compiled package: without this a test could run a missing
// or stale dist.

import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export default function setup(): void {
  const script = fileURLToPath(new URL("../../scripts/build.mjs", import.meta.url));
  const build = spawnSync(process.execPath, [script], { encoding: "utf8" });
  if (build.status !== 0) throw new Error(`npm run build failed (exit ${build.status}):\n${build.stdout}${build.stderr}`);
}
