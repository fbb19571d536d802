// The Host API lane a parameterised suite runs on (docs/ARCHITECTURE.md; vitest.config.ts runs the
// provider and scenario suites once per lane): TAKOFORM_TEST_LANE names it, else the preferred
// lane. Harnesses read it here; tests never spell a lane to mean "the lane of this run".

import { isLaneName, laneNamed, PREFERRED_LANE, type Lane } from "../../src/core/lanes.ts";

export function testLane(): Lane {
  const name = process.env["TAKOFORM_TEST_LANE"];
  if (name === undefined || name === "") return PREFERRED_LANE;
  if (!isLaneName(name)) throw new Error(`TAKOFORM_TEST_LANE=${name} is not a Host API lane this build speaks`);
  return laneNamed(name);
}
