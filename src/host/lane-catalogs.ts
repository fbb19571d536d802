// Which definitions each served lane installs (docs/host.md, "Lanes"). Every lane has a catalog
// of its own, so nothing keyed by name@version can answer for the other lane's contract
// (reference v1beta1 §13 items 4, 15, 20):
//
// - a Form of an Edge family group belongs to that group's lane (src/core/lanes.ts) and is
//   installed only there; a Form of any other group is lane-neutral and installed in every lane;
// - an Interface or Binding goes where it is named, by exact digest: into each lane one of whose
//   Forms provides, requires or accepts it (a Binding's targetInterface counts for the Binding's
//   lanes); a contract no loaded Form names is lane-neutral.
//
// A Form whose lane the host does not serve is not installed, and is reported as a problem, so
// `host serve` says why `--forms` of the other lane installed nothing.

import { bindingRefKey, formatFormRef, interfaceRefKey, type Lane, laneOfGroup } from "../core/index.ts";
import type { CatalogInput } from "./catalog.ts";

type FormInput = CatalogInput["forms"][number];

/** Definitions refused for a lane the host does not serve; they are not installed. */
export class UnservedLaneError extends Error {
  override name = "UnservedLaneError";
}

export interface LaneCatalogs {
  byLane: Map<string, CatalogInput>;
  problems: Error[];
}

function namedContracts(form: FormInput): { interfaces: string[]; bindings: string[] } {
  const definition = form.definition;
  const interfaces = [
    ...(definition.providedInterfaces ?? []).map((i) => interfaceRefKey(i)),
    ...form.relations.flatMap((r) => (r.requiredInterface === null ? [] : [interfaceRefKey(r.requiredInterface)])),
  ];
  const bindings = (definition.acceptedBindings ?? []).map((b) => bindingRefKey(b));
  return { interfaces, bindings };
}

/** Splits everything loaded into one catalog input per served lane. */
export function splitByLane(loaded: CatalogInput, served: readonly Lane[]): LaneCatalogs {
  const problems: Error[] = [];
  const servedNames = new Set(served.map((l) => l.name));
  // Which lanes name each contract: undefined = nobody names it (lane-neutral).
  const interfaceLanes = new Map<string, Set<string>>();
  const bindingLanes = new Map<string, Set<string>>();
  const note = (map: Map<string, Set<string>>, key: string, lanes: readonly string[]) => {
    const set = map.get(key) ?? new Set<string>();
    for (const lane of lanes) set.add(lane);
    map.set(key, set);
  };

  const byLane = new Map<string, { forms: FormInput[]; interfaces: CatalogInput["interfaces"][number][]; bindings: CatalogInput["bindings"][number][] }>();
  for (const lane of served) byLane.set(lane.name, { forms: [], interfaces: [], bindings: [] });

  for (const form of loaded.forms) {
    const owner = laneOfGroup(form.ref.apiVersion);
    // The lanes a Form belongs to (all, for a lane-neutral group); contracts it names follow it,
    // served or not, so a contract named only by an unserved lane's Forms is not installed.
    const lanes = owner === undefined ? served.map((l) => l.name) : [owner.name];
    const contracts = namedContracts(form);
    for (const key of contracts.interfaces) note(interfaceLanes, key, lanes);
    for (const key of contracts.bindings) note(bindingLanes, key, lanes);
    if (owner !== undefined && !servedNames.has(owner.name)) {
      problems.push(
        new UnservedLaneError(
          `${form.path ?? formatFormRef(form.ref)}: ${formatFormRef(form.ref)} belongs to the Host API lane ${owner.hostApiVersion}, which this host does not serve (--lane ${owner.name} or --lane both serves it)`,
        ),
      );
      continue;
    }
    for (const lane of lanes) byLane.get(lane)?.forms.push(form);
  }
  // A Binding's target Interface is named wherever the Binding is.
  for (const binding of loaded.bindings) {
    const lanes = bindingLanes.get(bindingRefKey(binding.ref));
    if (lanes !== undefined) note(interfaceLanes, interfaceRefKey(binding.definition.targetInterface), [...lanes]);
  }
  const everyLane = served.map((l) => l.name);
  for (const contract of loaded.interfaces) {
    for (const lane of interfaceLanes.get(interfaceRefKey(contract.ref)) ?? everyLane) byLane.get(lane)?.interfaces.push(contract);
  }
  for (const contract of loaded.bindings) {
    for (const lane of bindingLanes.get(bindingRefKey(contract.ref)) ?? everyLane) byLane.get(lane)?.bindings.push(contract);
  }
  return { byLane, problems };
}
