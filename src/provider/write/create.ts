// Create (decision 0017 rule 1; reference §5.1): always under the DefaultCreates ref of the type's
// line served under the negotiated lane.
// The client runs availability → prepare → PUT with `If-None-Match: *`, so a create never
// overwrites anything; a positive availability answer is remembered for the run
// (AvailabilityMemo). An artifact-backed revision uploads the manifest of its local files first
// (only the blobs the host lacks) and applies the digest the host committed. The create timeout bounds the
// whole call. A create whose answer proves nothing (none arrived, it is not the host's envelope,
// or it is not a verified answer) is unresolved, and its recorded intent is left to the next run;
// one the host verifiably accepted (a 202 whose Operation did not finish in time, or failed)
// still writes state.

import { AcceptedError } from "../../client/index.ts";
import { type Attributes, type Diagnostic, isSpaceId, laneNamed } from "../../core/index.ts";
import { cloneAttributes, knownString } from "../attributes.ts";
import { providerCode } from "../diagnostics/codes.ts";
import { hostCallDiagnostic } from "../diagnostics/host-fault.ts";
import { invalidSpace, serveCreate } from "../dispatch.ts";
import { LaneUnavailableError, laneUnavailable, type ProviderRuntime } from "../runtime.ts";
import { verifiedState } from "../state/write.ts";
import { adoptAuthoring, checkWrite } from "../write-checks.ts";
import type { WriteContext, WriteResult } from "../types.ts";
import { acceptedCreate } from "./accepted.ts";
import { intentAttributes, mutationOptions, type WriteAttempt } from "./intent.ts";
import { createName } from "./name.ts";
import { explainCapability } from "./capability.ts";
import { explainNameTaken } from "./name-taken.ts";
import { outcomeUnknown, unresolvedWrite } from "./unresolved.ts";

const fail = (diagnostics: Diagnostic[]): WriteResult => ({ state: null, diagnostics });

function withIdentity(diagnostics: Diagnostic[], identity: Omit<Diagnostic, "severity" | "summary">): Diagnostic[] {
  return diagnostics.map((d) => ({ ...identity, ...d }));
}

export async function createResource(rt: ProviderRuntime, type: string, planned: Attributes, context: WriteContext): Promise<WriteResult> {
  const line = rt.line(type);
  if (line === undefined) return fail([rt.unserved(type)]);
  // The create identity depends on the lane, so the host is reached first.
  let client;
  try {
    client = await rt.client();
  } catch (err) {
    return fail([laneUnavailable(type, err instanceof LaneUnavailableError ? err : new LaneUnavailableError(err))]);
  }
  const dispatch = serveCreate(rt, type, laneNamed(client.lane.name));
  if (dispatch.diagnostic) return fail([dispatch.diagnostic]);
  const { served } = dispatch;
  const { codec } = served;
  const kind = served.ref.kind;
  const space = knownString(planned, "space") ?? rt.defaultSpace;
  if (!isSpaceId(space)) return fail([invalidSpace(type, space)]);
  const identity = { resourceType: type, space, ref: served.ref };
  const values = cloneAttributes(planned);
  // The plan ran the same checks (plan/write.ts, plan/bundle.ts): a refusal here is of a value known only now.
  const built = await checkWrite(codec, values, "create_timeout", "apply");
  if (built.diagnostics.length > 0 || built.spec === undefined) return fail(withIdentity(built.diagnostics, identity));
  adoptAuthoring(codec, values, built.authoring);
  const named = createName(codec, values, built.spec, identity);
  if ("diagnostic" in named) return fail([named.diagnostic]);
  const { name } = named;
  values["name"] = name;
  values["space"] = space;
  const nameIdentity = { ...identity, name };

  const deadline = Date.now() + built.timeoutMs;
  const scope = context.idempotencyScope !== undefined ? { idempotencyScope: context.idempotencyScope } : {};

  let spec = built.spec;
  if (built.authoring?.mode === "local") {
    let committed: string;
    try {
      committed = (await client.uploadArtifact(built.authoring.manifest, built.authoring.blobs, { deadline, ...scope })).manifestDigest;
    } catch (err) {
      return fail([hostCallDiagnostic(`Failed to upload the ${kind} artifact`, err, { ...nameIdentity, pointer: "/manifestDigest" })]);
    }
    if (committed !== built.authoring.manifestDigest) {
      return fail([
        {
          severity: "error",
          summary: `Failed to upload the ${kind} artifact`,
          detail: `The host committed manifest ${committed}, not the authored ${built.authoring.manifestDigest}; the provider will not apply an artifact other than the one it uploaded.`,
          code: providerCode("host-response-invalid"),
          ...nameIdentity,
          pointer: "/manifestDigest",
          repair: "The host answered an artifact commit for different bytes; report it to the host operator.",
        },
      ]);
    }
    spec = { manifestDigest: committed };
  }

  const ctx = { type, schema: rt.schema(type)!, served, space, values };
  const intent = { operation: "create" as const, type, space, name, ref: served.ref, uid: "", attributes: intentAttributes(codec, values) };
  const attempt: WriteAttempt = { recorded: false };
  try {
    const options = { ...mutationOptions(context, deadline, intent, attempt), availability: rt.availability.gate(space, served.ref, "create") };
    const result = await client.applyResource({ ref: served.ref, name, space, spec }, {}, options);
    const written = verifiedState(ctx, result.resource, { adoptHostSpec: false });
    return { state: { type, attributes: written.attributes }, diagnostics: written.diagnostics };
  } catch (err) {
    // First: a reply that proves nothing (none, not the host's envelope, not verified) keeps the intent.
    if (outcomeUnknown(attempt, err)) return unresolvedWrite("create", kind, err, { ...nameIdentity, pointer: "/spec" }, null);
    if (err instanceof AcceptedError) return acceptedCreate(ctx, name, err, identity);
    const failed = explainCapability(rt, err, hostCallDiagnostic(`Failed to create ${kind}`, err, { ...nameIdentity, pointer: "/spec" }), type, values);
    return fail([await explainNameTaken(client, err, failed, { space, ref: served.ref, name, deadline })]);
  }
}
