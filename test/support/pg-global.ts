// vitest globalSetup: one PostgreSQL server for every pg test of a run. TAKOFORM_TEST_PG_URL names
// an existing server to use; otherwise a throwaway cluster is started from the binaries on this
// machine (pg-cluster.ts) and stopped when the run ends. Without binaries the pg tests are skipped
// with the reason, except under CI=true, where a missing PostgreSQL fails the run.

import type { TestProject } from "vitest/node";
import { findPgBin, startPgCluster } from "./pg-cluster.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The server the pg tests use; null when there is none (then `pgSkipReason` says why). */
    pgUrl: string | null;
    pgSkipReason: string;
    /** True when the URL came from TAKOFORM_TEST_PG_URL: tests drop the schemas they made. */
    pgExternal: boolean;
  }
}

export default function setup(project: TestProject): (() => void) | void {
  const external = process.env["TAKOFORM_TEST_PG_URL"];
  if (external !== undefined && external !== "") {
    project.provide("pgUrl", external);
    project.provide("pgExternal", true);
    project.provide("pgSkipReason", "");
    return;
  }
  project.provide("pgExternal", false);
  if (findPgBin() === null) {
    const reason = "no PostgreSQL: set TAKOFORM_TEST_PG_URL, or install the server binaries (initdb, pg_ctl; Debian: postgresql)";
    if (process.env["CI"] === "true") throw new Error(`CI=true and ${reason}`);
    project.provide("pgUrl", null);
    project.provide("pgSkipReason", reason);
    return;
  }
  const cluster = startPgCluster();
  project.provide("pgUrl", cluster.url);
  project.provide("pgSkipReason", "");
  return () => cluster.stop();
}
