// Update (decision 0017 rules 1–3; reference §5.2). Always under the ref recorded in STATE,
// encoded with that ref's codec — an update of a resource created under an older definition is
// a mutation of that contract, never a silent migration to the create default. Fenced on the
// recorded generation and uid.
//
// A Form that declares no update is never updated on the host; the only in-place change a plan
// can carry for it is provider-side (timeouts, revision_owner, the bundle's authoring spelling),
// which is recorded without a host call. Anything else reaching here is a provider bug.

import { AcceptedError } from "../../client/index.ts";
import { type Attributes, type Diagnostic, goJson } from "../../core/index.ts";
import type { JsonValue } from "../../forms/index.ts";
import { cloneAttributes, cloneValue, knownString, unknownToNull } from "../attributes.ts";
import { encodeSpec } from "../codec/encode.ts";
import { hostCallDiagnostic } from "../diagnostics/host-fault.ts";
import { explainCapability } from "./capability.ts";
import { providerCode } from "../diagnostics/codes.ts";
import { servePrior, type Served } from "../dispatch.ts";
import { LaneUnavailableError, laneUnavailable, type ProviderRuntime } from "../runtime.ts";
import { verifiedState } from "../state/write.ts";
import { adoptAuthoring, checkWrite } from "../write-checks.ts";
import type { ResourceState, WriteContext, WriteResult } from "../types.ts";
import { artifactSurface } from "../bundle/artifact.ts";
import { recordedIncarnation } from "./incarnation.ts";
import { intentAttributes, mutationOptions, type WriteAttempt } from "./intent.ts";
import { outcomeUnknown, unresolvedWrite } from "./unresolved.ts";

const PROVIDER_SIDE = ["create_timeout", "update_timeout", "delete_timeout", "revision_owner", "name_prefix"];

export async function updateResource(
  rt: ProviderRuntime,
  type: string,
  prior: ResourceState,
  planned: Attributes,
  context: WriteContext,
): Promise<WriteResult> {
  const keep = (diagnostics: Diagnostic[]): WriteResult => ({ state: prior, diagnostics });
  const dispatch = await servePrior(rt, type, prior.attributes);
  if (dispatch.diagnostic) return keep([dispatch.diagnostic]);
  const { served, kind, space, identity: fullIdentity } = dispatch.prior;
  if (!served.codec.declaresUpdate) return providerSideUpdate(rt, type, prior, planned, served, fullIdentity);

  const recorded = recordedIncarnation(prior.attributes, "update", kind, fullIdentity);
  if (recorded.diagnostic) return keep([recorded.diagnostic]);
  const fenced = recorded.incarnation;
  const { uid, generation } = fenced;
  const values = cloneAttributes(planned);
  // The plan ran the same checks (plan/write.ts, plan/bundle.ts): a refusal here is of a value known only now.
  const built = await checkWrite(served.codec, values, "update_timeout", "apply");
  if (built.diagnostics.length > 0 || built.spec === undefined) return keep(built.diagnostics.map((d) => ({ ...fullIdentity, ...d })));
  adoptAuthoring(served.codec, values, built.authoring);

  let client;
  try {
    client = await rt.client();
  } catch (err) {
    return keep([laneUnavailable(type, err instanceof LaneUnavailableError ? err : new LaneUnavailableError(err))]);
  }
  const fence = { expectedUid: uid, expectedGeneration: generation };
  const intent = { operation: "update" as const, type, space, name: fenced.name, ref: served.ref, uid, attributes: intentAttributes(served.codec, values) };
  const attempt: WriteAttempt = { recorded: false };
  try {
    const options = {
      ...mutationOptions(context, Date.now() + built.timeoutMs, intent, attempt),
      availability: rt.availability.gate(space, served.ref, "update"),
    };
    const result = await client.applyResource({ ref: served.ref, name: fenced.name, space, spec: built.spec }, fence, options);
    const written = verifiedState({ type, schema: rt.schema(type)!, served, space, values }, result.resource, { adoptHostSpec: false });
    return { state: { type, attributes: written.attributes }, diagnostics: written.diagnostics };
  } catch (err) {
    const fences = {
      ...fullIdentity,
      pointer: "/spec",
      expectedUid: uid,
      expectedGeneration: generation,
      ...(knownString(prior.attributes, "revision") !== undefined ? { expectedRevision: knownString(prior.attributes, "revision")! } : {}),
    };
    if (outcomeUnknown(attempt, err)) return unresolvedWrite("update", kind, err, fences, prior);
    const d = explainCapability(rt, err, hostCallDiagnostic(`Failed to update ${kind}`, err, fences), type, values);
    if (err instanceof AcceptedError && err.operationId !== undefined) {
      // Deliberately stricter than upstream: an accepted update keeps its operation in state, so
      // the next refresh consults it through the resume table instead of guessing.
      const attributes = cloneAttributes(prior.attributes);
      attributes["pending_operation_id"] = err.operationId;
      return { state: { type, attributes }, diagnostics: [d] };
    }
    return keep([d]);
  }
}

function specText(served: Served, attributes: Attributes): string | undefined {
  const encoded = encodeSpec(served.codec, attributes, { mode: "plan" });
  return encoded.unresolved || encoded.errors.length > 0 ? undefined : goJson(encoded.spec as JsonValue);
}

/** The in-place change of a Form without update: provider-side attributes only, no host call. */
async function providerSideUpdate(
  rt: ProviderRuntime,
  type: string,
  prior: ResourceState,
  planned: Attributes,
  served: Served,
  identity: Omit<Diagnostic, "severity" | "summary">,
): Promise<WriteResult> {
  const kind = served.ref.kind;
  const refuse = (why: string): WriteResult => ({
    state: prior,
    diagnostics: [
      {
        severity: "error",
        summary: `${kind} declares no update capability`,
        detail: `${kind} cannot be changed in place, but this in-place update carries a change of ${why}, which is a provider bug. Nothing was sent to the host.`,
        code: providerCode("internal"),
        ...identity,
        repair: "Report this provider bug; as a workaround, replace the resource (takoform apply -replace=<address>).",
      },
    ],
  });
  const sameName = knownString(planned, "name") === knownString(prior.attributes, "name");
  const plannedSpace = knownString(planned, "space") ?? knownString(prior.attributes, "space");
  if (!sameName || plannedSpace !== knownString(prior.attributes, "space")) return refuse("its name or space");
  const next = cloneAttributes(prior.attributes);
  if (served.codec.artifactBacked) {
    const values = cloneAttributes(planned);
    const built = await checkWrite(served.codec, values, "update_timeout", "apply");
    if (built.diagnostics.length > 0) return { state: prior, diagnostics: built.diagnostics.map((d) => ({ ...identity, ...d })) };
    adoptAuthoring(served.codec, values, built.authoring);
    if (
      built.authoring === undefined ||
      built.authoring.mode === "unresolved" ||
      built.authoring.manifestDigest !== knownString(prior.attributes, "manifest_digest")
    )
      return refuse("the artifact's manifest digest");
    for (const name of artifactSurface(served.codec).authoring) next[name] = unknownToNull(cloneValue(values[name] ?? null));
  } else {
    const before = specText(served, prior.attributes);
    const after = specText(served, planned);
    if (after === undefined || before !== after) return refuse("its desired spec");
    // Spec-equal spellings (e.g. vars_json formatting) are recorded as planned, so the next plan is empty.
    for (const field of served.codec.fields) next[field.attribute] = unknownToNull(cloneValue(planned[field.attribute] ?? null));
  }
  for (const name of PROVIDER_SIDE) {
    if (Object.hasOwn(rt.schema(type)!.attributes, name)) next[name] = unknownToNull(cloneValue(planned[name] ?? null));
  }
  return { state: { type, attributes: next }, diagnostics: [] };
}
