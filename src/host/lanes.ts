// Which lanes a host serves, and which bundled package folders that installs (docs/host.md,
// "Lanes"). The lanes themselves are data: src/core/lanes.ts.

import { LANE_NEUTRAL_PACKAGES, LANES, isLaneName, ORIGINAL_LANE, type Lane, type LaneName } from "../core/index.ts";

/** Operations accepted before lanes were recorded commit under this lane. */
export const LEGACY_LANE: LaneName = ORIGINAL_LANE.name;

/** The served lanes, in preference order. Refuses an empty set and a name this build does not speak. */
export function servedLanes(names: readonly string[]): Lane[] {
  for (const name of names)
    if (!isLaneName(name)) throw new Error(`unknown Host API lane ${JSON.stringify(name)}; this host speaks ${LANES.map((l) => l.name).join(", ")}`);
  const lanes = LANES.filter((l) => names.includes(l.name));
  if (lanes.length === 0) throw new Error("a host serves at least one Host API lane");
  return lanes;
}

/** The bundled package folders (relative to registry/packages) the served lanes install. */
export function bundledDirectories(lanes: readonly Lane[]): string[] {
  return [...LANE_NEUTRAL_PACKAGES, ...lanes.flatMap((l) => l.bundledPackages)];
}
