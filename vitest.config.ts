import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

// The package's own name resolves to the sources in tests (package.json "exports" name dist/,
// which tests reach only through the spawned command), so a test importing "takoform-cdk" and
// one importing "../../src/..." share one copy of every module.
const alias = [
  { find: /^takoform-cdk$/, replacement: src("index.ts") },
  { find: /^takoform-cdk\/automation$/, replacement: src("automation/api.ts") },
  { find: /^takoform-cdk\/testing$/, replacement: src("testing/index.ts") },
  { find: /^takoform-cdk\/host$/, replacement: src("host/api.ts") },
];

// Three tiers (README "Tests"). `npm test` runs unit and integration; `npm run test:all` (and CI)
// adds slow. Tiers are assigned here, by file, so test files never move:
// - unit: in-process and fast — no host, no server, no child process;
// - integration: everything else by default — the real local host over HTTP, the command in a
//   child process, fault injection;
// - slow: benchmarks-as-tests on large graphs, the packed-tarball install, the crash soak that
//   SIGKILLs applies over and over, the examples' cold typecheck, and whole lane upgrades.
// A new test file lands in integration unless it is listed below.
const UNIT = [
  "test/client/{go-json,keys,pure,transport,fuzz}.test.ts",
  "test/core/*.test.ts",
  "test/cli/watch-inputs.test.ts",
  "test/architecture/*.test.ts",
  "test/codec/*.test.ts",
  "test/engine/{dag,exports,values,recover}.test.ts",
  "test/engine/config/{expression,refusals,variables,synth}.test.ts",
  "test/engine/graph/graph.test.ts",
  "test/engine/plan/steps.test.ts",
  "test/views/*.test.ts",
  "test/forms/{corpus,refs-digest,strict-json,definition,package,relations,validate}.test.ts",
  "test/generate/{naming,schema-baseline,corpus}.test.ts",
  "test/host-edge/parsers.test.ts",
  "test/host/spec-lookup.test.ts",
  "test/provider/{diagnostics,import-id,relation-drift,schema,validate,cron-agreement,unservable-line}.test.ts",
  "test/registry/*.test.ts",
  "test/registry-class/*.test.ts",
  "test/state/{store,sensitive,unavailable}.test.ts",
  "test/secrets/*.test.ts",
  "test/worker-app/synth.test.ts",
];
const SLOW = [
  "test/slow/**/*.test.ts",
  "test/engine/graph/perf.test.ts",
  "test/cycles/perf.test.ts",
  "test/state/perf.test.ts",
  "test/scenario/crash.test.ts",
  // Whole lane upgrades, end to end: host and state upgrade-lane with the command spawned a few
  // dozen times, a dev server, and on PostgreSQL a paused process and a lease taken over.
  "test/scenario/{lane-upgrade,pg-lane-upgrade}.test.ts",
  "test/package/tarball.test.ts",
];

// The provider's and the engine's scenario suites run once per Host API lane (issue 17): the
// `unit` and `integration` projects on the preferred lane, and `lane-v1alpha3` again on the other
// one. Their harnesses read the lane from TAKOFORM_TEST_LANE (test/support/lane.ts), so every
// test is written once. Left out of the second run: the suites that name their lanes themselves,
// or test what only the preferred lane has (the v1beta1 files Forms).
const LANE_SUITES = ["test/provider/*.test.ts", "test/scenario/{revisions,worker-app,drift-repair,dependencies,lost-reply,host-objects}.test.ts"];
const LANE_OWN = ["test/provider/{lanes,artifact-files,revision-names}.test.ts"];

const shared = { testTimeout: 30_000, hookTimeout: 30_000, pool: "forks" as const, isolate: false };
// The tiers that hold pg tests start one PostgreSQL server each for them (test/support/pg-global.ts);
// unit tests never reach a server.
const pg = { globalSetup: ["test/support/pg-global.ts"] };

// One worker per core and one more. Much of an integration test is waiting (on a spawned command,
// a retry's backoff, a lease, a held create), so workers = cores left cores idle: on 2 cores,
// `npm test` took 3 min 6 s with two workers and 2 min 29 s with three, and a fourth added CPU
// but no speed. vitest's own default (cores − 1) would be one worker here.
const maxWorkers = availableParallelism() + 1;

export default defineConfig({
  resolve: { alias },
  test: {
    globalSetup: ["test/setup/build.ts"],
    maxWorkers,
    projects: [
      // No tier isolates its files: a worker keeps one module graph for every file it runs, instead
      // of importing the sources again for each of ~220 files (that import was a quarter of the
      // suite's CPU). It holds because no test file changes shared state: hosts, servers,
      // scratch directories and PostgreSQL schemas are each file's own and closed by it,
      // environment variables reach only spawned commands, and fake timers are restored.
      { extends: true, test: { ...shared, name: "unit", include: UNIT, exclude: SLOW } },
      { extends: true, test: { ...shared, ...pg, name: "integration", include: ["test/**/*.test.ts"], exclude: [...UNIT, ...SLOW] } },
      { extends: true, test: { ...shared, ...pg, name: "slow", include: SLOW, testTimeout: 600_000, hookTimeout: 600_000 } },
      {
        extends: true,
        test: {
          ...shared,
          ...pg,
          name: "lane-v1alpha3",
          include: LANE_SUITES,
          exclude: [...LANE_OWN, ...SLOW],
          env: { TAKOFORM_TEST_LANE: "v1alpha3" },
        },
      },
    ],
  },
});
