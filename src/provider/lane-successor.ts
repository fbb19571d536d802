// The identity a resource recorded under one Host API lane has under another (docs/state.md,
// "Upgrading a state's lane"): the type's line served under the target lane, at the SAME
// definitionVersion the state records — the correspondence the host's lane upgrade moves objects
// by (src/host/lane-move.ts). Pure: no host call. Whether the host really holds the object under
// that identity is for a read to prove (by uid), never assumed from this mapping.

import { type Diagnostic, formatFormRef, laneOfGroup, type Lane } from "../core/index.ts";
import { cloneAttributes } from "./attributes.ts";
import { providerCode } from "./diagnostics/codes.ts";
import { formAttributes, recordedRef } from "./dispatch.ts";
import type { ProviderRuntime } from "./runtime.ts";
import type { LaneSuccessor, ResourceState } from "./types.ts";

export function laneSuccessor(rt: ProviderRuntime, state: ResourceState, lane: Lane): LaneSuccessor {
  const type = state.type;
  const ref = recordedRef(state.attributes);
  const identity = { resourceType: type, pointer: "/form" };
  if (ref === undefined) {
    return {
      diagnostic: {
        severity: "error",
        summary: "State has no exact Form identity",
        detail: "Without all four form_* members the provider cannot tell which identity this resource has under another lane.",
        code: providerCode("state-form-ref-missing"),
        ...identity,
        repair: "Remove this resource from state and import it under an exact Form identity of the new lane.",
      },
    };
  }
  const owner = laneOfGroup(ref.apiVersion);
  // A lane-neutral Form (mesh, other, a project's own) is the same identity under every lane.
  if (owner === undefined || owner === lane) return { unchanged: true };
  const line = rt.table.lineFor(type, lane);
  const candidates = line === undefined ? [] : rt.table.codecsFor(line).filter((c) => c.ref.definitionVersion === ref.definitionVersion);
  if (candidates.length !== 1) {
    const diagnostic: Diagnostic = {
      severity: "error",
      summary: `${type} has no identity under the Host API lane ${lane.hostApiVersion} for this state`,
      detail:
        line === undefined
          ? `${type} serves no Form line under ${lane.hostApiVersion}.`
          : `State records ${formatFormRef(ref)}; this build carries ${candidates.length === 0 ? "no" : candidates.length} ${line.apiVersion} ${line.kind}@${ref.definitionVersion} definition${candidates.length === 1 ? "" : "s"} to re-bind it to (the same definitionVersion is required).`,
      code: providerCode("state-form-ref-unsupported"),
      ...identity,
      ref,
      repair: "Keep this state on its lane, or remove the resource from state and import it under an identity of the new lane.",
    };
    return { diagnostic };
  }
  const served = rt.table.forStateRef(candidates[0]!.ref);
  const attributes = cloneAttributes(state.attributes);
  Object.assign(attributes, formAttributes(served.ref));
  // A field only the new definition declares (WorkerVersion.assets) starts null; the read fills it.
  for (const field of served.codec.fields) if (!Object.hasOwn(attributes, field.attribute)) attributes[field.attribute] = null;
  return { state: { type, attributes }, from: ref, to: served.ref };
}
