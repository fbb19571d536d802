// Discovery, availability (/forms), the Form Definition surface and the support profiles.
// Every Form lookup resolves the whole exact identity or fails form_unknown; nothing falls back
// to another definition of the kind.

import { type LifecycleOperation, REQUIRED_FEATURES, SUPPORT_API_VERSION, type WireSupportProfile } from "../../core/index.ts";
import type { JsonObject } from "../../forms/index.ts";
import type { CatalogForm } from "../catalog.ts";
import type { HostContext, RequestContext } from "../context.ts";
import { requireEmptyBody } from "../envelope.ts";
import { HostError, invalidArgument } from "../errors.ts";
import { jsonResponse, type HostResponse } from "../http.ts";
import { identityHeaders } from "../identity.ts";
import { formMissing, parseExactFormQuery, requireNoQuery } from "../query.ts";

export function handleDiscovery(ctx: HostContext, rc: RequestContext): HostResponse {
  requireNoQuery(rc.match.query, "discovery");
  requireEmptyBody(rc.body, "discovery");
  const api = `${rc.origin}${ctx.lane.apiRoot}`;
  const features = Object.fromEntries(REQUIRED_FEATURES.map((f) => [f, true]));
  return jsonResponse(
    200,
    {
      api_versions: [ctx.lane.hostApiVersion],
      features,
      endpoints: { api, artifacts: `${api}/artifacts`, operations: `${api}/operations`, support: `${api}/support` },
    },
    identityHeaders(ctx.store.secret, rc.caller),
  );
}

/** Operations the host offers for a Form: its lifecycle capabilities (no lane has a `refresh` operation). */
function offeredOperations(form: CatalogForm): LifecycleOperation[] {
  return form.definition.lifecycleCapabilities.filter((c): c is LifecycleOperation => c !== "refresh");
}

/** A Form whose declared outputs have no rule cannot run here: it is known and installed, not executable. */
function executable(form: CatalogForm): boolean {
  return form.definition.outputSchema === undefined || form.rules.outputs !== undefined;
}

export function handleForms(ctx: HostContext, rc: RequestContext): HostResponse {
  requireEmptyBody(rc.body, "availability");
  const query = parseExactFormQuery(rc.match.query);
  const form = ctx.catalog.form(query.ref);
  if (form === undefined) throw formMissing(ctx.catalog, ctx.lane, query.ref);
  const identity = form.packageDigest === undefined ? { formRef: form.ref } : { formRef: form.ref, packageDigest: form.packageDigest };
  const runnable = executable(form);
  return jsonResponse(200, {
    forms: [
      {
        identity,
        definitionKnown: true,
        installed: true,
        executable: runnable,
        activated: runnable,
        availableToPrincipal: ctx.availability.isAvailable(rc.caller, form.ref),
        operations: offeredOperations(form),
      },
    ],
  });
}

export function handleFormDefinition(ctx: HostContext, rc: RequestContext): HostResponse {
  requireEmptyBody(rc.body, "form definition");
  const query = parseExactFormQuery(rc.match.query);
  const { group, kind } = rc.match.params as { group: string; kind: string };
  if (query.ref.apiVersion !== undefined && query.ref.apiVersion !== group) {
    throw invalidArgument(`the query group ${query.ref.apiVersion} does not match the path group ${group}`);
  }
  if (query.ref.kind !== undefined && query.ref.kind !== kind) throw invalidArgument(`the query kind ${query.ref.kind} does not match the path kind ${kind}`);
  const form = ctx.catalog.form(query.ref);
  if (form === undefined) throw formMissing(ctx.catalog, ctx.lane, query.ref);
  const identity = form.packageDigest === undefined ? { formRef: form.ref } : { formRef: form.ref, packageDigest: form.packageDigest };
  const body: JsonObject = { identity: identity as unknown as JsonObject };
  if (form.definition.title.length > 0) body.displayName = form.definition.title;
  if (form.definition.description !== undefined && form.definition.description.length > 0) body.description = form.definition.description;
  body.desiredSchema = form.desiredSchema;
  return jsonResponse(200, body);
}

const FIELD_KEY = /^[a-z][a-zA-Z0-9]{0,63}$/;

/** The FormSupport profile, derived from the installed Definition and adjusted by the Form rules. */
export function formSupport(form: CatalogForm): WireSupportProfile {
  const profile: WireSupportProfile = { apiVersion: SUPPORT_API_VERSION, kind: "FormSupport", formRef: { ...form.ref }, operations: offeredOperations(form) };
  const enums: Record<string, string[]> = {};
  const ranges: Record<string, { minimum?: number; maximum?: number }> = {};
  const properties = (form.desiredSchema.properties ?? {}) as Record<string, JsonObject>;
  for (const [field, schema] of Object.entries(properties)) {
    if (!FIELD_KEY.test(field) || typeof schema !== "object" || schema === null) continue;
    const values = closedEnum(schema) ?? closedEnum((schema.items ?? null) as JsonObject | null);
    if (values !== undefined) enums[field] = values;
    if (schema.type === "integer") {
      const range: { minimum?: number; maximum?: number } = {};
      if (typeof schema.minimum === "number" && Number.isSafeInteger(schema.minimum)) range.minimum = schema.minimum;
      if (typeof schema.maximum === "number" && Number.isSafeInteger(schema.maximum)) range.maximum = schema.maximum;
      if (range.minimum !== undefined || range.maximum !== undefined) ranges[field] = range;
    }
  }
  if (Object.keys(enums).length > 0) profile.supportedEnums = enums;
  if (Object.keys(ranges).length > 0) profile.supportedRanges = ranges;
  const bindings = (form.definition.acceptedBindings ?? []).map((b) => `${b.name}@${b.version}`);
  if (bindings.length > 0) profile.supportedBindings = [...new Set(bindings)];
  return form.rules.supportProfile === undefined ? profile : form.rules.supportProfile(profile, form);
}

function closedEnum(schema: JsonObject | null): string[] | undefined {
  if (schema === null || typeof schema !== "object" || !Array.isArray(schema.enum)) return undefined;
  const values = schema.enum.filter((v): v is string => typeof v === "string" && v.length <= 128);
  return values.length === schema.enum.length && values.length > 0 ? [...new Set(values)] : undefined;
}

export function handleSupportForms(ctx: HostContext, rc: RequestContext): HostResponse {
  requireNoQuery(rc.match.query, "support/forms");
  const profiles = ctx.catalog.allForms().slice(0, 1024).map(formSupport);
  return jsonResponse(200, { profiles });
}

export function handleSupportForm(ctx: HostContext, rc: RequestContext): HostResponse {
  requireNoQuery(rc.match.query, "support/forms/{group}/{version}/{kind}/{definitionVersion}");
  const { group, kind, definitionVersion } = rc.match.params as { group: string; kind: string; definitionVersion: string };
  const form = ctx.catalog.formAtVersion(group, kind, definitionVersion);
  if (form === undefined) throw new HostError("form_unknown", `no installed Form Definition is ${group} ${kind}@${definitionVersion}`);
  return jsonResponse(200, formSupport(form));
}

export function handleSupportInterface(ctx: HostContext, rc: RequestContext): HostResponse {
  requireNoQuery(rc.match.query, "support/interfaces/{name}/{version}");
  const { name, version } = rc.match.params as { name: string; version: string };
  // Each lane's catalog holds the contracts its own Forms name, so a name@version is one digest
  // here; only a lane whose Forms themselves name two digests of it (a conflicting install)
  // answers the first installed (docs/host.md, "Lanes").
  const found = ctx.catalog.interfacesAt(name, version)[0];
  if (found === undefined) throw new HostError("resource_not_found", `this host implements no Interface ${name}@${version}`);
  return jsonResponse(200, { apiVersion: SUPPORT_API_VERSION, kind: "InterfaceSupport", interfaceRef: found.ref });
}

export function handleSupportBinding(ctx: HostContext, rc: RequestContext): HostResponse {
  requireNoQuery(rc.match.query, "support/bindings/{name}/{version}");
  const { name, version } = rc.match.params as { name: string; version: string };
  const found = ctx.catalog.bindingsAt(name, version)[0];
  if (found === undefined) throw new HostError("resource_not_found", `this host implements no Binding ${name}@${version}`);
  return jsonResponse(200, { apiVersion: SUPPORT_API_VERSION, kind: "BindingSupport", bindingRef: found.ref });
}
