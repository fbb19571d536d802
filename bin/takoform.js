#!/usr/bin/env node
// The `takoform` command: the compiled package's bundle of it (dist/cli/, built by `npm run build`,
// which `npm ci`, `npm pack` and the test suite's global setup run).
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
