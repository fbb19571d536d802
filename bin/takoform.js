#!/usr/bin/env node
// The `takoform` command: the compiled package's bundle of it (dist/cli/, built by `npm run build`,
// which `npm ci`, `npm pack` and the test suite's global setup run).
import { setFlagsFromString } from "node:v8";
// V8 lets the old generation grow to up to four times what the last full collection kept before
// it collects again. A plan or apply keeps every record alive for the whole run, and a batch
// command that holds 300–350 MB of live records (100,000 resources) then peaks far above it with
// garbage that waits: at a factor of four 1.3 GB of RSS, at two still 0.94–1.05 GB for a destroy,
// whose walk promotes about 3.5 KB of short-lived garbage per step into the old generation until
// the heap reaches twice what was live when the walk began. A factor of 1.5 keeps the peak near
// one and a half times what is live, for no CPU the bench can tell from its noise
// (docs/engine.md, "Memory"). V8 reads the factor each time it sets the next limit, so setting it
// before anything is loaded covers the whole run.
setFlagsFromString("--heap-growing-percent=50");
let main;
try {
  ({ main } = await import("../dist/cli/main.js"));
} catch (error) {
  if (error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("dist/cli/main.js")) {
    console.error("takoform: this copy of takoform-cdk is not built (dist/ is missing); run `npm run build` in it first");
    process.exit(1);
  }
  throw error;
}
process.exitCode = await main(process.argv.slice(2));
