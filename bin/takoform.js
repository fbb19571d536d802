#!/usr/bin/env node
// The `takoform` command. The package ships TypeScript sources and runs them through tsx.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
