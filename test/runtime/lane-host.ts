// A host of one Host API lane with its worker runtime, driven over the Host API (test/host-edge's
// Edge helper): resources are created exactly as a client creates them, and a worker is reached
// at its endpoint through the runtime. For tests of what differs between the lanes' data planes.

import type { LaneName } from "../../src/core/lanes.ts";
import { bundledFamily } from "../host/family.ts";
import { Edge } from "../host-edge/edge.ts";

export interface LaneHost {
  edge: Edge;
  logs: string[];
  close(): Promise<void>;
}

export async function openLaneHost(lane: LaneName): Promise<LaneHost> {
  const logs: string[] = [];
  const family = bundledFamily(lane);
  const edge = await Edge.open({ label: family.label, family, async: false }, { log: (line) => logs.push(line), runtime: { log: (line) => logs.push(line) } });
  return { edge, logs, close: () => edge.close() };
}

/**
 * Deploys `source` as worker `name` (bundle, version with `extra` spec members, deployment,
 * endpoint) and returns the path-form URL of its endpoint.
 */
export async function deployWorker(edge: Edge, name: string, source: string, extra: Record<string, unknown> = {}, handlers = ["fetch"]): Promise<string> {
  await edge.create("ModuleWorker", name, {});
  await edge.create("WorkerBundle", `${name}-bundle`, { manifestDigest: await edge.bundleDigest(source) });
  await edge.create("WorkerVersion", `${name}-version`, edge.versionSpec({ bundle: `${name}-bundle`, worker: name, handlers, extra }));
  await edge.create("WorkerDeployment", `${name}-deployment`, edge.deploymentSpec(name, [[`${name}-version`, 10000]]));
  await edge.create("WorkerEndpoint", `${name}-endpoint`, { worker: edge.to("ModuleWorker", name) });
  for (let i = 0; i < 100; i++) {
    const served = edge.host.served().find((w) => w.name === name);
    const address = served?.addresses.find((a) => a.via === "WorkerEndpoint");
    if (address !== undefined) return address.pathUrl;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`worker ${name} is not served: ${JSON.stringify(edge.host.served())}`);
}
