// vitest globalSetup: one PostgreSQL server for every pg test of a run. TAKOFORM_TEST_PG_URL names
// an existing server to use; otherwise a throwaway cluster is started from the binaries on this
// machine (pg-cluster.ts) and stopped when the run ends. Without binaries the pg tests are skipped
// with the reason, except under CI=true, where a missing PostgreSQL fails the run.

import type { TestProject } from "vitest/node";
import { findPgBin, freePort, startPgCluster } from "./pg-cluster.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The server the pg tests use; null when there is none (then `pgSkipReason` says why). */
    pgUrl: string | null;
    pgSkipReason: string;
    /** True when the URL came from TAKOFORM_TEST_PG_URL: tests drop the schemas they made. */
    pgExternal: boolean;
    /**
     * The throwaway cluster only: a loopback TCP URL of a role that must log in with its password
     * (scram-sha-256), the password included; null otherwise.
     */
    pgPasswordUrl: string | null;
  }
}

/** The role and password the password tests log in with. */
const PASSWORD_ROLE = "takoform_pw";
const PASSWORD = "takoform-test-pw-Vh3";

export default async function setup(project: TestProject): Promise<(() => void) | void> {
  project.provide("pgPasswordUrl", null);
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
  const cluster = startPgCluster({ tcpPort: await freePort(), trustTcp: false });
  try {
    const pg = (await import("pg")).default;
    const client = new pg.Client({ connectionString: cluster.socketUrl });
    await client.connect();
    await client.query(`CREATE ROLE ${PASSWORD_ROLE} LOGIN PASSWORD '${PASSWORD}'`);
    await client.query(`GRANT CREATE ON DATABASE postgres TO ${PASSWORD_ROLE}`);
    await client.end();
  } catch (error) {
    cluster.stop();
    throw error;
  }
  project.provide("pgUrl", cluster.socketUrl);
  project.provide("pgPasswordUrl", `postgresql://${PASSWORD_ROLE}:${PASSWORD}@127.0.0.1:${cluster.tcpPort}/postgres`);
  project.provide("pgSkipReason", "");
  return () => cluster.stop();
}
