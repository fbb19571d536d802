import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

// The package's own name resolves to the sources in tests (package.json "exports" name dist/,
// which tests reach only through the spawned command), so a test importing "takoform-cdk" and
// one importing "../../src/..." share one copy of every module.
const alias = [
  { find: /^takoform-cdk$/, replacement: src("index.ts") },
  { find: /^takoform-cdk\/(engine|engine\/config|host|client|provider|state)$/, replacement: src("$1/index.ts") },
];

const shared = { testTimeout: 30_000, hookTimeout: 30_000, pool: "forks" as const };

export default defineConfig({
  resolve: { alias },
  test: {
    globalSetup: ["test/setup/build.ts"],
    projects: [
      { extends: true, test: { ...shared, name: "default", include: ["test/**/*.test.ts"], exclude: ["test/slow/**"] } },
      { extends: true, test: { ...shared, name: "slow", include: ["test/slow/**/*.test.ts"], testTimeout: 600_000 } },
    ],
  },
});
