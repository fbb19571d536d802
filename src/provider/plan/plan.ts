// plan(request): Terraform's PlanResourceChange as the plugin framework runs it, then the
// provider's ModifyPlan hooks in their fixed order (reference §4.6):
//   propose → replacement by attribute → 1 relation-drift recovery → 2 bundle re-hash →
//   3 revision name → 4 same-name safety → 5 host support → no-op, else the write's own checks
//   (write-checks.ts, the apply's) → unknown marking.
// A plan whose planned state equals prior returns prior unchanged, so the engine sees a no-op.
// The engine plans the new object of a replacement with a second call whose prior is null, as
// Terraform core does. Nothing here mutates the host; step 5 only reads support profiles.
//
// `name_prefix` needs no hook of its own: its `name` is Optional+Computed, so it is unknown on a
// create, kept from prior on an update, and — because the engine plans a replacement's new object
// as a create — unknown again on a replacement, which is what lets the engine replace it side by side.

import { type Attributes, isSpaceId, type Lane, laneOfGroup, PREFERRED_LANE, UNKNOWN } from "../../core/index.ts";
import { type ResourceTypeEntry, undeclaredFieldProblems } from "../../registry/index.ts";
import { cloneAttributes } from "../attributes.ts";
import { completedForReading } from "../codec/complete.ts";
import { formAttributes, invalidSpace, laneMismatch, serveCreate, serveState, type Dispatch } from "../dispatch.ts";

/** The lane of a type's lead line (the preferred lane for a lane-neutral one). */
function leadLane(line: ResourceTypeEntry): Lane {
  return laneOfGroup(line.apiVersion) ?? PREFERRED_LANE;
}

/** The five `form_*` attributes of a create whose lane is not known yet. */
function unknownFormAttributes(): Attributes {
  return { form_api_version: UNKNOWN, form_kind: UNKNOWN, form_definition_version: UNKNOWN, form_schema_digest: UNKNOWN, form_package_digest: UNKNOWN };
}
import { type ProviderRuntime } from "../runtime.ts";
import type { PlanRequest, PlanResponse } from "../types.ts";
import { planArtifact } from "./bundle.ts";
import { planHostSupport } from "./host-support.ts";
import { attributesEqual, forceNewChanges, markComputedUnknown, propose } from "./propose.ts";
import { planRelationRecovery } from "./relation-recovery.ts";
import { planRevisionName } from "./revision-name.ts";
import { planImmutableRevisionSafety } from "./same-name.ts";
import { planWriteChecks } from "./write.ts";
import type { PlanPass } from "./state.ts";

export async function planResource(rt: ProviderRuntime, request: PlanRequest): Promise<PlanResponse> {
  const { type, config } = request;
  const line = rt.line(type);
  if (line === undefined) return { planned: null, requiresReplace: [], diagnostics: [rt.unserved(type)] };
  if (config === null) return { planned: null, requiresReplace: [], diagnostics: [] };
  const schema = rt.schema(type)!;
  // Compared and proposed against in the shape configuration is brought to (every nested member
  // present), so state written before that shape was enforced plans no spurious change either.
  const stored: Attributes | null = request.prior?.attributes ?? null;
  // Only read from here on (propose copies what it takes), so a record already in shape is used as it is.
  const prior: Attributes | null = stored === null ? null : completedForReading(schema, stored);

  // An existing resource is planned under the ref its state records (fail closed, and never under
  // another lane's identity); a new one under the create default of the negotiated lane's line.
  // With no lane to be had (the host is unreachable), a create is planned against the type's lead
  // line with its identity unknown: the apply decides it, and reports the unreachable host.
  const lane = await rt.lane();
  let dispatch: Dispatch;
  if (prior !== null) {
    dispatch = serveState(rt, type, prior, { resourceType: type });
    const elsewhere = dispatch.served === undefined ? undefined : laneMismatch(type, dispatch.served.ref, lane, { resourceType: type });
    if (elsewhere !== undefined) dispatch = { diagnostic: elsewhere };
  } else {
    dispatch = lane !== undefined ? serveCreate(rt, type, lane) : serveCreate(rt, type, leadLane(line));
  }
  if (dispatch.diagnostic) return { planned: null, requiresReplace: [], diagnostics: [dispatch.diagnostic] };

  const planned = propose(schema, config, prior, rt.defaultSpace);
  // The space a write is sent to, the provider's default included, is refused here as the apply
  // refuses it (dispatch.ts): validate sees only a space the configuration sets.
  const space = planned["space"];
  if (typeof space === "string" && !isSpaceId(space)) return { planned: null, requiresReplace: [], diagnostics: [invalidSpace(type, space)] };
  if (prior === null) Object.assign(planned, lane !== undefined ? formAttributes(dispatch.served.ref) : unknownFormAttributes());
  // A field only another definition of the type declares (an Edge field new in a later lane,
  // under an older lane's line) cannot be sent under this one.
  const undeclared = undeclaredFieldProblems(dispatch.served.codec, schema, planned).map((d) => ({ resourceType: type, ...d }));
  if (undeclared.length > 0) return { planned: null, requiresReplace: [], diagnostics: undeclared };
  const pass: PlanPass = {
    rt,
    type,
    line,
    schema,
    served: dispatch.served,
    prior,
    replacing: prior === null ? (request.replacing ?? null) : null,
    config,
    planned,
    requiresReplace: prior !== null ? forceNewChanges(schema, planned, prior) : [],
    diagnostics: [],
  };

  planRelationRecovery(pass);
  await planArtifact(pass);
  planRevisionName(pass);
  planImmutableRevisionSafety(pass);
  await planHostSupport(pass);

  if (prior !== null && pass.requiresReplace.length === 0 && attributesEqual(schema, planned, prior)) {
    return { planned: cloneAttributes(stored!), requiresReplace: [], diagnostics: pass.diagnostics };
  }
  await planWriteChecks(pass);
  markComputedUnknown(schema, planned, prior);
  return { planned, requiresReplace: pass.requiresReplace.map((a) => [a]), diagnostics: pass.diagnostics };
}
