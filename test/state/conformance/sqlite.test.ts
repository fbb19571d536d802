// The state contract on the local SQLite store.

import { stateConformance } from "./suite.ts";
import { sqliteTarget } from "./target.ts";

stateConformance(sqliteTarget);
