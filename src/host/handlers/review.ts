// validate (POST …/resources/validate) and prepare (POST …/resources/prepare). Neither mutates.
//
// validate resolves no stored resource, so its answer never depends on the tenant. Envelope
// faults are HTTP errors; spec faults (schema and host-side spec rules) are a 200 with
// `valid: false` and one diagnostic per problem (§11 Q21). What only apply and import refuse
// (the spec-only semantic rules: deployment weights, the environment namespace) is reported as
// a `warning` diagnostic beside `valid: true` — the spec is valid, and the write will be refused.
//
// prepare materializes and validates the spec (schema + host-side spec rules), resolves the
// target under the exact ref, and mints a prepareDigest bound to the post-fence state. It does
// not resolve relations, run aggregate rules or the spec-only semantic rules; those surface at
// apply (§2.7 step 6, §11 Q20).

import { refuseMovedAway } from "../moved-away.ts";
import { formRefsEqual, HEADER } from "../../core/index.ts";
import type { HostContext, RequestContext } from "../context.ts";
import { decodeJsonBody, decodeResourceCore } from "../envelope.ts";
import { HostError, invalidArgument } from "../errors.ts";
import { generationHeader } from "../fences.ts";
import { jsonResponse, type HostResponse } from "../http.ts";
import { prepareDigest } from "../prepare-binding.ts";
import { formMissing, requireNoQuery } from "../query.ts";
import { materializeSpec, requireValidSpec, writeProblems } from "../spec.ts";
import type { SpecProblem } from "../rules/types.ts";
import { recordedRef } from "../store/index.ts";

const MAX_DIAGNOSTICS = 256;

export function handleValidate(ctx: HostContext, rc: RequestContext): HostResponse {
  requireNoQuery(rc.match.query, "validate");
  const { core } = decodeResourceCore(decodeJsonBody(rc.body), [], []);
  const form = ctx.catalog.form(core.formRef);
  if (form === undefined) throw formMissing(ctx.catalog, ctx.lane, core.formRef);
  const spec = materializeSpec(form, core.spec);
  const { problems } = spec;
  const entry = (severity: "error" | "warning") => (p: SpecProblem) => ({
    severity,
    field: `/spec${p.pointer}`.slice(0, 512),
    message: p.message.slice(0, 4096) || "invalid",
  });
  const diagnostics = [...problems.map(entry("error")), ...writeProblems(form, spec).map(entry("warning"))].slice(0, MAX_DIAGNOSTICS);
  return jsonResponse(200, { valid: problems.length === 0, diagnostics });
}

export function handlePrepare(ctx: HostContext, rc: RequestContext): HostResponse {
  requireNoQuery(rc.match.query, "prepare");
  const { core } = decodeResourceCore(decodeJsonBody(rc.body), [], []);
  const form = ctx.catalog.form(core.formRef);
  if (form === undefined) throw formMissing(ctx.catalog, ctx.lane, core.formRef);
  ctx.availability.assert(rc.caller, form.ref);
  const spec = requireValidSpec(form, core.spec);
  const fence = generationHeader(rc.headers);
  const address = { tenant: rc.caller.tenant, space: core.space, apiVersion: form.ref.apiVersion, kind: form.ref.kind, name: core.name };
  const current = ctx.store.resources.byAddress(address);
  if (current === undefined) refuseMovedAway(ctx, address);
  // Resolved under the exact ref: a name held under another contract is absent here, and the
  // create it prepares conflicts at apply (§11 Q22).
  const existing = current !== undefined && formRefsEqual(recordedRef(current), form.ref) ? current : undefined;
  const label = `${form.ref.kind} "${core.name}"`;
  if (existing !== undefined) {
    if (fence === undefined) {
      throw invalidArgument(
        `prepare on an existing resource requires the ${HEADER.expectedGeneration} fence (${label} is at generation ${existing.generation})`,
      );
    }
    if (fence !== String(existing.generation)) {
      throw new HostError("generation_conflict", `${label} is at generation ${existing.generation}; prepare was fenced on generation ${fence}`);
    }
  } else if (fence !== undefined) {
    throw new HostError("resource_not_found", `${label} does not exist in space "${core.space}"; an update prepare needs an existing resource`);
  }
  const digest = prepareDigest(ctx.store.secret, {
    specDigest: spec.digest,
    ref: form.ref,
    tenant: rc.caller.tenant,
    space: core.space,
    name: core.name,
    uid: existing?.uid ?? "",
    generation: existing === undefined ? "0" : String(existing.generation),
  });
  const echoedForm = core.packageDigest === undefined ? { formRef: core.formRef } : { formRef: core.formRef, packageDigest: core.packageDigest };
  const resource = { apiVersion: core.apiVersion, kind: core.kind, form: echoedForm, metadata: { name: core.name, space: core.space }, spec: spec.spec };
  return jsonResponse(200, { resource, review: { prepareDigest: digest, specDigest: spec.digest } });
}
