import { defineConfig } from "vitest/config";

// Two tiers for now: `default` (what `npm test` runs) and `slow` (fault-injection soaks, generated
// stack floods, large graphs), which only `npm run test:all` adds. CI runs `test:all`.
// Each tier starts one PostgreSQL server for its pg tests (test/support/pg-global.ts).
const shared = { testTimeout: 30_000, hookTimeout: 30_000, pool: "forks" as const, globalSetup: ["test/support/pg-global.ts"] };

export default defineConfig({
  test: {
    projects: [
      { test: { ...shared, name: "default", include: ["test/**/*.test.ts"], exclude: ["test/slow/**"] } },
      { test: { ...shared, name: "slow", include: ["test/slow/**/*.test.ts"], testTimeout: 600_000 } },
    ],
  },
});
