// The lanes a project's local states were written under, for a program that serves the project's
// embedded host data (`takoform dev`): a state keeps the lane it was written under, and a host
// serving that data on other lanes only would leave the state's next run to negotiate a lane its
// records were not written under (docs/host.md, "Lanes").

import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { LaneName } from "../core/index.ts";
import { recordedLane } from "../engine/index.ts";
import { openLocalStateReadOnly } from "../state/index.ts";

/**
 * The project's local state files in their default places: the project's own
 * `.takoform/state.db` and each stack's `.takoform/stacks/<stack>/state.db`, stacks by name.
 */
export function localStatePaths(projectDir: string): string[] {
  const paths = [join(projectDir, ".takoform", "state.db")];
  const stacks = join(projectDir, ".takoform", "stacks");
  if (existsSync(stacks)) for (const name of readdirSync(stacks).sort()) paths.push(join(stacks, name, "state.db"));
  return paths.filter((path) => existsSync(path));
}

/** Each distinct lane of the project's local states, in the order of localStatePaths; a state with no records and no binding has none. */
export async function localStateLanes(projectDir: string): Promise<LaneName[]> {
  const lanes: LaneName[] = [];
  for (const path of localStatePaths(projectDir)) {
    // Read-only: serving the data must not create, upgrade or lock a state.
    const reader = openLocalStateReadOnly(path);
    try {
      const lane = await recordedLane(reader);
      if (lane !== undefined && !lanes.includes(lane)) lanes.push(lane);
    } finally {
      await reader.close();
    }
  }
  return lanes;
}
