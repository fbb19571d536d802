// The module layering of docs/ARCHITECTURE.md §3, guarded: every import of src/** is read and
// checked against the direction of the layers, the module facades (index.ts), and for cycles
// between files and between the folders of a module. Each failure names the file, the line and
// the import to change. (TAKOFORM_LAYERING_REPORT=1 prints the problems instead of failing.)

import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cyclicComponents, importGraph, loopThrough, type ImportEdge } from "./imports.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Which modules each module imports (ARCHITECTURE §3): the real graph, not a looser permission,
 * so the table (and §3, which it mirrors) says what each module actually depends on; a test
 * below fails on a permission no import uses. A module is a folder directly under src/;
 * `package` is src/index.ts, the package's public entry. `registry-data` is the generated data
 * under registry/generated/ (read by src/registry only).
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  core: [],
  forms: ["core"],
  registry: ["core", "registry-data"],
  // The authoring path runs in the user's app, often as CommonJS: it must not load forms (its
  // RFC 8785 dependency is ESM-only), nor anything of the engine.
  constructs: ["core"],
  generate: ["core", "forms", "registry", "constructs"],
  client: ["core", "forms"],
  provider: ["core", "forms", "registry", "client"],
  // The secrets owner and the stores handle records whose types are core's (WriteIntent, the
  // Value model): they sit on core alone, beside the protocol layers rather than above them.
  secrets: ["core"],
  state: ["core", "secrets"],
  engine: ["core", "forms", "provider", "secrets", "state"],
  // What the command shows (plans, progress, runs, state as text and JSON), rendered from what
  // the engine returns and emits: above the engine, so the engine itself renders nothing.
  views: ["core", "registry", "provider", "secrets", "state", "engine"],
  host: ["core", "forms"],
  // The wiring of a run (the stack loaded, its state, the provider connected to a host, the
  // embedded one by default), below the CLI, which is built on it.
  automation: ["core", "forms", "registry", "client", "provider", "state", "engine", "host", "generate"],
  cli: ["views", "host", "automation"],
  // For users' tests: a host per test, deployed to through the published automation API.
  testing: ["host", "automation"],
  package: ["constructs"],
};

/**
 * Files other than a module's index.ts files that other modules may import, and why. Each keeps
 * something heavy (or something the importer writes) out of what the importer loads.
 */
const ENTRY_POINTS: Record<string, string> = {
  "src/core/package-root.ts": "`takoform --version` loads the dispatcher and this file only (test/package/loading.test.ts)",
  "src/core/canonical-json.ts":
    "RFC 8785 serialization, on an ESM-only dependency (canonicalize) the authoring path must never load, so kept out of core/index.ts, which constructs loads",
  "src/views/diagnostics.ts":
    "the diagnostics renderers the CLI's console loads on every command, without the plan renderers (and the engine) views/index.ts loads",
  "src/views/stack-choice.ts": "the stacks `synth --stack` picks, without the plan renderers views/index.ts loads",
  "src/automation/api.ts":
    "the published automation entry (only what users need): takoform-cdk/testing deploys through it as a user's program would, not through the CLI's facade",
  "src/host/api.ts": "the published host entry (takoform-cdk/host): what a program needs to run the embedded host, not the internal facade",
  "src/automation/forms-api.ts":
    "the published Forms entry (takoform-cdk/forms): code generation and reading definitions, without the engine automation/api.ts loads",
  "src/registry/bundled.ts": "the bundled generated registry, kept out of registry/index.ts so the generator, which writes it, never imports it",
  "src/constructs/resource.ts":
    "the construct base class the generator checks member names against, without loading the generated classes it writes (constructs/index.ts re-exports them)",
  "registry/generated/index.gen.ts": "the bundled registry's generated tables (read through src/registry/bundled.ts)",
};

/**
 * The CLI is built on the published API (issue 28): outside src/cli it may import only the five
 * published entry points and the views it renders with (src/views/**), besides node: and npm
 * packages, which are not edges here.
 */
const CLI_MAY_IMPORT = (to: string): boolean =>
  to.startsWith("src/cli/") ||
  to.startsWith("src/views/") ||
  ["src/index.ts", "src/automation/api.ts", "src/testing/index.ts", "src/host/api.ts", "src/automation/forms-api.ts"].includes(to);

/**
 * The internal imports of src/cli not yet moved onto the published API, file by file: this list
 * only shrinks, and it is empty. A new internal import fails the test below, and so does an entry
 * here that no import uses any more (delete it, so the list keeps saying what is left).
 */
const CLI_INTERNAL_LEFT: Record<string, readonly string[]> = {};

function moduleOf(file: string): string {
  const parts = file.split("/");
  if (parts[0] === "registry") return "registry-data";
  if (parts[0] !== "src") return parts[0]!;
  return parts.length === 2 ? "package" : parts[1]!;
}

/** The first-level folder of a file inside its module (`engine/plan`), or undefined for a file at the module's root. */
function folderOf(file: string): string | undefined {
  const parts = file.split("/");
  return parts[0] === "src" && parts.length > 3 ? `${parts[1]}/${parts[2]}` : undefined;
}

const isFacade = (file: string): boolean => file.endsWith("/index.ts") || file in ENTRY_POINTS;

const where = (e: ImportEdge): string => `${e.from}:${e.line} imports "${e.specifier}"${e.dynamic ? " (dynamic)" : ""}`;

const { files, edges } = importGraph(ROOT);
const REPORT_ONLY = process.env["TAKOFORM_LAYERING_REPORT"] === "1";

function check(problems: string[]): void {
  if (REPORT_ONLY) {
    if (problems.length > 0) console.log(`${problems.length} problem(s):\n${problems.join("\n")}`);
    return;
  }
  expect(problems, problems.join("\n")).toEqual([]);
}

describe("module layering (docs/ARCHITECTURE.md §3)", () => {
  it("reads the imports of every source file", () => {
    expect(files.length).toBeGreaterThan(300);
    expect(edges.length).toBeGreaterThan(files.length);
    // The reader sees type-only, re-export and dynamic imports alike.
    expect(edges.some((e) => e.dynamic)).toBe(true);
  });

  it("every import runs down the layers: a module imports only the modules below it", () => {
    const problems: string[] = [];
    for (const e of edges) {
      const from = moduleOf(e.from);
      const to = moduleOf(e.to);
      if (from === to) continue;
      const allowed = MAY_IMPORT[from];
      if (allowed === undefined) problems.push(`${where(e)}: module "${from}" is not in the layer table; add it to docs/ARCHITECTURE.md §3 and MAY_IMPORT`);
      else if (!allowed.includes(to)) {
        problems.push(
          `${where(e)}: ${from} may not import ${to} (${from} imports ${allowed.join(", ") || "nothing"}); move what it needs to a lower layer or pass it in, or, when ${to} is below ${from} in docs/ARCHITECTURE.md §3, add the edge to MAY_IMPORT and to §3's layer paragraph`,
        );
      }
    }
    check(problems);
  });

  it("the layer table is the real graph: every module it lets import another does", () => {
    const used = new Set(edges.map((e) => `${moduleOf(e.from)} ${moduleOf(e.to)}`));
    const problems: string[] = [];
    for (const [from, allowed] of Object.entries(MAY_IMPORT)) {
      for (const to of allowed) {
        if (!used.has(`${from} ${to}`))
          problems.push(`${from} no longer imports ${to}: remove it from MAY_IMPORT and from docs/ARCHITECTURE.md §3's layer paragraph`);
      }
    }
    check(problems);
  });

  it("a cross-module import goes through the other module's index.ts", () => {
    const problems: string[] = [];
    for (const e of edges) {
      const to = moduleOf(e.to);
      if (moduleOf(e.from) === to || isFacade(e.to)) continue;
      const facade = to === "registry-data" ? "src/registry/bundled.ts" : `src/${to}/index.ts`;
      problems.push(`${where(e)}: import it from ${facade} instead (export it there if it is not)`);
    }
    check(problems);
  });

  it("the CLI imports outside src/cli only the published entry points and src/views (and what CLI_INTERNAL_LEFT still lists)", () => {
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const e of edges) {
      if (!e.from.startsWith("src/cli/") || CLI_MAY_IMPORT(e.to)) continue;
      seen.add(`${e.from} ${e.to}`);
      if (!(CLI_INTERNAL_LEFT[e.from] ?? []).includes(e.to))
        problems.push(
          `${where(e)}: the CLI is built on the published API; import it from src/automation/api.ts (a Workspace method, or a type a user sees), src/index.ts or src/testing/index.ts, or move CLI-only code into src/cli/ or src/views/`,
        );
    }
    for (const [from, targets] of Object.entries(CLI_INTERNAL_LEFT)) {
      for (const to of targets) if (!seen.has(`${from} ${to}`)) problems.push(`${from} no longer imports ${to}: remove it from CLI_INTERNAL_LEFT`);
    }
    check(problems);
  });

  it("no file imports itself back, directly or around a loop", () => {
    const next = new Map<string, string[]>();
    for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
    const out = (f: string) => next.get(f) ?? [];
    const problems = cyclicComponents(files, out).map((members) => `file cycle: ${loopThrough(members, out).join(" → ")}`);
    check(problems);
  });

  it("the engine's apply and cycle resolution never call back into the planner", () => {
    const problems = edges
      .filter((e) => /^src\/engine\/(apply|cycles)\//.test(e.from) && e.to.startsWith("src/engine/plan/"))
      .map(
        (e) =>
          `${where(e)}: engine/${e.from.split("/")[2]} may not import engine/plan; what both need belongs at the engine's root (plan-data.ts, dependencies.ts, …) or in cycles/`,
      );
    check(problems);
  });

  it("the authoring entry (src/index.ts) loads only core and constructs", () => {
    const values = new Map<string, string[]>();
    for (const e of edges) if (!e.typeOnly && !e.dynamic) values.set(e.from, [...(values.get(e.from) ?? []), e.to]);
    const loaded = new Set<string>();
    const stack = ["src/index.ts"];
    while (stack.length > 0) {
      const file = stack.pop()!;
      if (loaded.has(file)) continue;
      loaded.add(file);
      stack.push(...(values.get(file) ?? []));
    }
    const modules = new Set([...loaded].map(moduleOf));
    expect([...modules].sort()).toEqual(["constructs", "core", "package"]);
  });

  it("no two folders of a module import each other, directly or around a loop", () => {
    const next = new Map<string, Set<string>>();
    const example = new Map<string, ImportEdge>();
    for (const e of edges) {
      const a = folderOf(e.from);
      const b = folderOf(e.to);
      if (a === undefined || b === undefined || a === b || moduleOf(e.from) !== moduleOf(e.to)) continue;
      next.set(a, (next.get(a) ?? new Set()).add(b));
      if (!example.has(`${a} ${b}`)) example.set(`${a} ${b}`, e);
    }
    const out = (f: string) => [...(next.get(f) ?? [])];
    const problems = cyclicComponents([...next.keys()].sort(), out).map((members) => {
      const loop = loopThrough(members, out);
      const steps = loop.slice(1).map((to, i) => `  ${where(example.get(`${loop[i]} ${to}`)!)}`);
      return `folder cycle: ${loop.join(" → ")}, e.g.\n${steps.join("\n")}`;
    });
    check(problems);
  });
});
