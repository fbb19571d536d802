// WorkerDeployment: the one mutable path for traffic (decision 0016).
//
//   validateWrite  weights sum to exactly 10000 (apply and import only; a prepare
//                  accepts it, reference §2.7 step 6)                           invalid_argument
//   checkMutation  one deployment per worker incarnation (its own re-apply is fine);
//                  every weighted version: named once (by uid), owned by this worker
//                  (its stored /worker pin), Ready, not being removed             invalid_argument
//                  the new weighted set still serves every live attachment and
//                  inbound service binding of the worker                         unsupported_capability
//   checkDelete    no live dependent of the worker remains                       dependency_in_use
//   renderDependents  its worker, whose Ready rendering reads this deployment

import { HostError, invalidArgument } from "../../errors.ts";
import type { JsonObject } from "../../../forms/index.ts";
import type { DeleteContext, FormRules, MutationContext, RenderContext, SpecProblem } from "../types.ts";
import { dependentText, deploymentsOf, pinnedTarget, unserved, versionUnavailable, workerDependents, type WeightedVersion } from "./aggregate.ts";
import { RELATION, describe } from "./family.ts";

export const TOTAL_WEIGHT = 10000;

function weightProblems(spec: JsonObject): SpecProblem[] {
  const versions = spec.versions;
  if (!Array.isArray(versions)) return [];
  let sum = 0;
  for (const v of versions) {
    const weight = v !== null && typeof v === "object" && !Array.isArray(v) ? v.weight : undefined;
    if (typeof weight === "number") sum += weight;
  }
  if (sum === TOTAL_WEIGHT) return [];
  return [{ pointer: "/versions", message: `the weights sum to ${sum}; a WorkerDeployment's weights must sum to exactly ${TOTAL_WEIGHT}` }];
}

function checkDeployment(ctx: MutationContext): void {
  const { view } = ctx;
  const workerTarget = ctx.targets.find((t) => t.instance.relation.pointer === RELATION.worker);
  if (workerTarget === undefined) return;
  const worker = workerTarget.resource;
  const self = ctx.existing?.uid;
  const label = `WorkerDeployment "${ctx.name}"`;

  const other = deploymentsOf(view, worker.uid).find((d) => d.uid !== self);
  if (other !== undefined) {
    throw invalidArgument(
      `${describe(worker)} (uid ${worker.uid}) already has the active WorkerDeployment "${other.name}"; a worker has exactly one deployment, ` +
        `and traffic moves by re-weighting it`,
      { hostCode: "deployment_not_single" },
    );
  }

  const weighted: WeightedVersion[] = [];
  const seen = new Map<string, string>();
  for (const t of ctx.targets) {
    if (t.instance.relation.pointer !== RELATION.versions) continue;
    const version = t.resource;
    const at = t.instance.pointer;
    const earlier = seen.get(version.uid);
    if (earlier !== undefined) {
      throw invalidArgument(
        `${label}: relation ${at} weights WorkerVersion "${version.name}" (uid ${version.uid}) a second time; ${earlier} already weights it`,
        {
          hostCode: "deployment_version_duplicate",
        },
      );
    }
    seen.set(version.uid, at);
    const owner = pinnedTarget(view, version.uid, RELATION.worker);
    if (owner !== worker.uid) {
      throw invalidArgument(
        `${label}: relation ${at} weights WorkerVersion "${version.name}", which belongs to the worker at uid ${owner ?? "none"}, ` +
          `not to ${describe(worker)} at uid ${worker.uid}`,
        { hostCode: "deployment_version_ownership" },
      );
    }
    const unavailable = versionUnavailable(view, version);
    if (unavailable !== undefined) {
      throw invalidArgument(`${label}: relation ${at} weights WorkerVersion "${version.name}", which cannot serve traffic: ${unavailable}`, {
        hostCode: "deployment_version_unavailable",
      });
    }
    weighted.push({ pointer: at, uid: version.uid, name: version.name, version });
  }

  // The reverse gate: the change must keep serving everything that already depends on it.
  for (const dependent of workerDependents(view, worker.uid)) {
    const gap = unserved(view, weighted, dependent.handler);
    if (gap === undefined) continue;
    throw new HostError(
      "unsupported_capability",
      `${label} would stop serving the ${dependent.handler} handler that live ${dependentText(dependent)} depends on: ${gap}; ` +
        `weight versions that export ${dependent.handler}, or remove the dependent first`,
      { hostCode: "deployment_leaves_dependent_unserved" },
    );
  }
}

function checkDeploymentDelete(ctx: DeleteContext): void {
  const { view, resource } = ctx;
  const workerUid = pinnedTarget(view, resource.uid, RELATION.worker);
  if (workerUid === undefined) return;
  const dependents = workerDependents(view, workerUid);
  if (dependents.length === 0) return;
  const shown = dependents.slice(0, 8).map(dependentText).join(", ");
  const more = dependents.length > 8 ? ` and ${dependents.length - 8} more` : "";
  throw new HostError(
    "dependency_in_use",
    `${describe(resource)} serves ${dependents.length} live dependent(s) of its worker: ${shown}${more}; remove them before the deployment that serves them`,
    { hostCode: "deployment_serves_dependents" },
  );
}

function deploymentDependents({ view, resource }: RenderContext): string[] {
  const worker = pinnedTarget(view, resource.uid, RELATION.worker);
  return worker === undefined ? [] : [worker];
}

export const workerDeploymentRules: FormRules = {
  validateWrite: (spec) => weightProblems(spec),
  checkMutation: checkDeployment,
  checkDelete: checkDeploymentDelete,
  renderDependents: deploymentDependents,
};
