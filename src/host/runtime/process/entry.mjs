// The first module of an isolate process started from a source checkout: the test suite imports
// src/ directly, so there is no compiled main.js beside it (the published package forks
// dist/src/host/runtime/process/main.js and never loads this file). It registers tsx, a
// development dependency, then imports the isolate's real entry point.
import { register } from "tsx/esm/api";

register();
await import("./main.ts");
