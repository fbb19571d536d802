// The typecheck process's first module when takoform runs from a source checkout (the tests
// import src/ directly, so there is no compiled child.js beside typecheck.ts; the published
// package forks dist/src/engine/config/typecheck/child.js and never loads this file).
import { register } from "tsx/esm/api";

register();
await import("./child.ts");
