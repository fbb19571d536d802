// The checks before a delete removes a resource, shared by a synchronous delete and the commit of
// an accepted (202) one. At commit the identity the delete was accepted for is resolved first,
// then the fences, then the dependency scan (reference §3.6): a resource that merely took the
// deleted one's name is never touched, and one that acquired a holder meanwhile survives.

import { refuseMovedAway } from "./moved-away.ts";
import { formatFormRef, formRefsEqual, type FormRef } from "../core/index.ts";
import type { HostContext } from "./context.ts";
import { HostError } from "./errors.ts";
import type { AcceptedIdentity } from "./gauntlet.ts";
import { formMissing } from "./query.ts";
import type { MutationPhase } from "./rules/types.ts";
import { recordedRef, type StoredResource } from "./store/index.ts";
import { ruleView } from "./view.ts";

export interface DeleteInput {
  tenant: string;
  principal: string;
  space: string;
  formRef: FormRef;
  name: string;
  generationFence: string;
  revisionFence: string | null;
  /** The conformance probe `external-change`: remove as if lost out of band. */
  bypassDependencies: boolean;
}

export function checkDelete(ctx: HostContext, input: DeleteInput, phase: MutationPhase, accepted?: AcceptedIdentity): StoredResource {
  const form = ctx.catalog.form(input.formRef);
  if (form === undefined) throw formMissing(ctx.catalog, ctx.lane, input.formRef);
  const label = `${input.formRef.kind} "${input.name}"`;
  const current = ctx.store.resources.byAddress({
    tenant: input.tenant,
    space: input.space,
    apiVersion: input.formRef.apiVersion,
    kind: input.formRef.kind,
    name: input.name,
  });
  if (accepted !== undefined) {
    if (current === undefined) throw new HostError("resource_not_found", `${label} no longer exists; the accepted delete removes nothing`);
    if (current.uid !== accepted.uid || !formRefsEqual(recordedRef(current), accepted.ref)) {
      throw new HostError(
        "uid_mismatch",
        `the delete was accepted for uid ${accepted.uid}; the name is now held by uid ${current.uid}, which the delete does not touch`,
      );
    }
  } else if (current === undefined || !formRefsEqual(recordedRef(current), input.formRef)) {
    if (current === undefined)
      refuseMovedAway(ctx, { tenant: input.tenant, space: input.space, apiVersion: input.formRef.apiVersion, kind: input.formRef.kind, name: input.name });
    throw new HostError("resource_not_found", `${label} does not exist in space "${input.space}" under ${formatFormRef(input.formRef)}`);
  }
  if (input.generationFence !== String(current.generation)) {
    throw new HostError("generation_conflict", `${label} is at generation ${current.generation}; the delete was fenced on generation ${input.generationFence}`);
  }
  if (input.revisionFence !== null && input.revisionFence !== String(current.revision)) {
    throw new HostError("revision_conflict", `${label} is at revision ${current.revision}; If-Match named revision ${input.revisionFence}`);
  }
  if (!input.bypassDependencies) {
    const holder = ctx.store.relations.foreignHolder(current.uid);
    if (holder !== undefined) {
      const holderResource = ctx.store.resources.byUid(holder.holderUid);
      const who = holderResource === undefined ? `uid ${holder.holderUid}` : `${holderResource.kind} "${holderResource.name}"`;
      throw new HostError("dependency_in_use", `${label} is referenced by ${who} through relation ${holder.pointer}; delete or re-point the holder first`, {
        hostCode: "relation_holder",
      });
    }
    if (form.rules.checkDelete !== undefined) {
      form.rules.checkDelete({ view: ruleView(ctx.store, ctx.catalog, input.tenant), phase, form, resource: current });
    }
  }
  return current;
}
