// The state contract on the PostgreSQL store (the run's server: test/support/pg-global.ts).

import { describePg, dropSchemasAfterAll } from "../../support/pg.ts";
import { stateConformance } from "./suite.ts";
import { pgTarget } from "./target.ts";

describePg("PostgreSQL store", () => {
  dropSchemasAfterAll();
  stateConformance(pgTarget);
});
