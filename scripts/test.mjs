#!/usr/bin/env node
// `npm test`: typecheck, then vitest, then one plain closing line the CI harness reads:
// "N passed, N failed, N skipped". The exit code is non-zero when either step fails.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";

const env = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" };
// Tiers (vitest.config.ts): `npm test` runs unit, integration and lane-v1alpha3 (the provider and
// scenario suites again on the other Host API lane); `--all` adds slow
// (`npm run test:all`, what CI runs). A `--project NAME` given on the command line picks instead.
const all = process.argv.includes("--all");
const extra = process.argv.slice(2).filter((a) => a !== "--all");
const picked = extra.some((a) => a === "--project" || a.startsWith("--project="));
const projects = all || picked ? [] : ["--project", "unit", "--project", "integration", "--project", "lane-v1alpha3"];

mkdirSync(".ci-out", { recursive: true });
// Incremental: a repeated run re-checks only what changed (8 s → about 2.5 s on 2 cores).
const tsc = spawnSync("npx", ["tsc", "-p", ".", "--noEmit", "--incremental", "--tsBuildInfoFile", ".ci-out/typecheck.tsbuildinfo"], { stdio: "inherit", env });
const typecheckOk = tsc.status === 0;
if (!typecheckOk) console.error("typecheck failed");

const report = ".ci-out/vitest.json";
// A report left by an earlier run must not be counted as this run's.
rmSync(report, { force: true });
const vitest = spawnSync("npx", ["vitest", "run", ...projects, "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...extra], {
  stdio: "inherit",
  env,
});

let passed = 0,
  failed = 0,
  skipped = 0;
if (existsSync(report)) {
  const r = JSON.parse(readFileSync(report, "utf8"));
  passed = r.numPassedTests;
  failed = r.numFailedTests;
  skipped = r.numPendingTests + r.numTodoTests;
  // A file that fails to load counts as a failure even though it reports no tests.
  const brokenFiles = (r.testResults ?? []).filter((f) => f.status === "failed" && f.assertionResults.length === 0).length;
  failed += brokenFiles;
} else if (vitest.status !== 0) {
  // vitest stopped before reporting (its global setup, the build, failed): one failure, not zero.
  failed += 1;
}
if (!typecheckOk) failed += 1;
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(typecheckOk && vitest.status === 0 ? 0 : 1);
