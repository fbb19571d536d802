// ModuleWorker readiness, a derived rendering (decision 0016 rule 9): Ready is a claim about
// SERVICE. Ready=True/Available only when the worker incarnation's active deployment weights
// versions that all export `fetch`; Ready=False/Provisioning with no deployment;
// Ready=False/UnsupportedCapability when the deployment serves no `fetch`. The rendering reads
// only pins, uids and the versions' stored specs — never weights or revisions — so a pure
// re-weighting between fetch-serving versions leaves it, and the worker's revision, unchanged.

import type { FormRules, ReadyRendering, RenderContext } from "../types.ts";
import { activeDeployment, unserved, weightedVersions } from "./aggregate.ts";
import { SERVICE_HANDLER, hostReason } from "./family.ts";

export function workerReadiness({ view, resource }: RenderContext): ReadyRendering {
  const who = `ModuleWorker "${resource.name}" (uid ${resource.uid})`;
  const deployment = activeDeployment(view, resource.uid);
  if (deployment === undefined) {
    const text = `${who} has no active WorkerDeployment, so it serves no traffic`;
    return { status: "False", reason: "Provisioning", hostReason: hostReason(text), message: `${text}; create a WorkerDeployment weighting its versions` };
  }
  const gap = unserved(view, weightedVersions(view, deployment.uid), SERVICE_HANDLER);
  if (gap !== undefined) {
    const text = `WorkerDeployment "${deployment.name}" does not serve ${SERVICE_HANDLER} for ${who}: ${gap}`;
    return {
      status: "False",
      reason: "UnsupportedCapability",
      hostReason: hostReason(text),
      message: `${text}; weight only versions that export ${SERVICE_HANDLER}`,
    };
  }
  return { status: "True", reason: "Available", message: `${who} is served by WorkerDeployment "${deployment.name}"` };
}

export const moduleWorkerRules: FormRules = {
  renderReady: workerReadiness,
};
