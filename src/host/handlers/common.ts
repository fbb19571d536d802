// Helpers shared by the resource handlers.

import { refuseMovedAway } from "../moved-away.ts";
import { formatFormRef, formRefsEqual } from "../../core/index.ts";
import type { CatalogForm } from "../catalog.ts";
import type { HostContext, RequestContext } from "../context.ts";
import { HostError, invalidArgument } from "../errors.ts";
import { jsonResponse, textBytes, type HostResponse } from "../http.ts";
import { formMissing, parseExactFormQuery } from "../query.ts";
import { etagOf, representResource } from "../representation.ts";
import { recordedRef, type CommitPolicy, type StoredResource } from "../store/index.ts";

export interface ExactTarget {
  form: CatalogForm;
  space: string;
  name: string;
}

/** Resolves the exact-form query of a path-bearing resource route (read, observe, delete). */
export function exactTarget(ctx: HostContext, rc: RequestContext): ExactTarget {
  const query = parseExactFormQuery(rc.match.query);
  const { group, kind, name } = rc.match.params as { group: string; kind: string; name: string };
  if (query.ref.apiVersion !== undefined && query.ref.apiVersion !== group) {
    throw invalidArgument(`the query group ${query.ref.apiVersion} does not match the path group ${group}`);
  }
  if (query.ref.kind !== undefined && query.ref.kind !== kind) {
    throw invalidArgument(`the query kind ${query.ref.kind} does not match the path kind ${kind}`);
  }
  const form = ctx.catalog.form(query.ref);
  if (form === undefined) throw formMissing(ctx.catalog, ctx.lane, query.ref);
  return { form, space: query.space, name };
}

/** The caller's resource at the target, recorded under exactly the target's ref. */
export function resourceUnderExactRef(ctx: HostContext, rc: RequestContext, target: ExactTarget): StoredResource {
  const address = { tenant: rc.caller.tenant, space: target.space, apiVersion: target.form.ref.apiVersion, kind: target.form.ref.kind, name: target.name };
  const resource = ctx.store.resources.byAddress(address);
  // Moved to another lane's identity: never "absent" to a client recorded under this one.
  if (resource === undefined) refuseMovedAway(ctx, address);
  // A resource recorded under another exact ref is not addressed by this request (decision 0022 rule 3).
  if (resource === undefined || !formRefsEqual(recordedRef(resource), target.form.ref)) {
    throw new HostError(
      "resource_not_found",
      `${target.form.ref.kind} "${target.name}" does not exist in space "${target.space}" under ${formatFormRef(target.form.ref)}`,
    );
  }
  return resource;
}

export function resourceResponse(ctx: HostContext, status: number, resource: StoredResource, wrap = false): HostResponse {
  const text = representResource(ctx.catalog, resource);
  return jsonResponse(status, textBytes(wrap ? `{"resource":${text}}` : text), { ETag: etagOf(resource) });
}

/** The commit policy when this mutation should answer 202, else undefined. */
export function asyncPolicy(ctx: HostContext, rc: RequestContext): CommitPolicy | undefined {
  if (rc.probe?.kind === "async") return "poll";
  if (ctx.settings.asyncAlways) return "timer";
  return undefined;
}
