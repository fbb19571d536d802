// Output rules: host-assigned values for Forms that declare an outputSchema. Every value is a
// pure function of the resource's uid (and, for version ids, its generation), so an address is
// stable for the life of one incarnation and a new incarnation gets a new one.
//
// A DNS label is at most 63 characters, so a name is shortened to 54 before the "-<8 hex>"
// suffix; two incarnations never share a suffix in practice because it hashes the uid.

import { EDGE_FAMILY_GROUPS } from "../../core/index.ts";
import { sha256Hex } from "../../forms/index.ts";
import type { FormRules, RuleModule } from "./types.ts";

export const MESH_GROUP = "mesh.takoform-cdk.dev/v1alpha1";
/** Edge family groups of every lane (src/core/lanes.ts): their WorkerEndpoint gets a host-assigned address. */
export const EDGE_GROUPS: readonly string[] = EDGE_FAMILY_GROUPS;

function label(name: string, uid: string): string {
  return `${name.slice(0, 54)}-${sha256Hex(uid).slice(0, 8)}`;
}

/** Changes with every spec-changing update (generation), fixed otherwise. */
function versionId(uid: string, generation: number): string {
  return `v-${sha256Hex(`${uid}:${generation}`).slice(0, 16)}`;
}

const meshService: FormRules = {
  outputs: ({ uid, name, generation }) => ({
    versionId: versionId(uid, generation),
    url: `https://${label(name, uid)}.mesh.localhost/`,
  }),
};

const meshWorker: FormRules = {
  outputs: ({ uid, generation }) => ({
    versionId: versionId(uid, generation),
    namespaceId: `ns-${sha256Hex(`ns:${uid}`).slice(0, 16)}`,
  }),
};

const workerEndpoint: FormRules = {
  outputs: ({ uid, name }) => {
    const hostname = `${label(name, uid)}.workers.localhost`;
    return { hostname, url: `https://${hostname}/` };
  },
};

/** The output rules this host ships: the mesh family's Service and Worker, and Edge WorkerEndpoint. */
export const outputRules: RuleModule = (registry) => {
  registry.register(MESH_GROUP, "Service", meshService);
  registry.register(MESH_GROUP, "Worker", meshWorker);
  for (const group of EDGE_GROUPS) registry.register(group, "WorkerEndpoint", workerEndpoint);
};
