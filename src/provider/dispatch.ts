// Which exact Form identity an operation addresses (decision 0017 rules 1–4):
// 1. create uses the DefaultCreates ref of the type's line served under the negotiated lane (an
//    Edge family type has one line per Host API lane; src/core/lanes.ts);
// 2. read, update, delete and the plan of an existing resource use the ref recorded in state
//    (`form_*`);
// 3. a recorded ref of another line (group + kind) than the resource type's fails closed, and so
//    does a recorded ref the build cannot serve — it is NEVER swapped for another ref of
//    the same kind, because that query's resource_not_found would read as deletion;
// 4. the plan uses the planned `form_*` when all four are known, else the default create ref;
// 5. a recorded ref of an Edge family group of another lane than the negotiated one fails closed,
//    naming the identity: that host lane does not serve it (decision 0017, reference v1beta1 §13
//    item 14), and it is never re-read under the other lane's line.
// Every failure here happens before any host call.

import {
  controlCharacterNote,
  type Attributes,
  type Diagnostic,
  formatFormRef,
  type FormRef,
  groupServedUnder,
  type Lane,
  laneOfGroup,
} from "../core/index.ts";
import { type FormCodec, listRefs, type ResourceTypeEntry, type SupportedRef } from "../registry/index.ts";
import { knownString } from "./attributes.ts";
import { providerCode } from "./diagnostics/codes.ts";
import { missingCreateTarget, type ProviderRuntime } from "./runtime.ts";

export interface Served {
  ref: SupportedRef;
  codec: FormCodec;
}

export type Dispatch = { served: Served; diagnostic?: undefined } | { served?: undefined; diagnostic: Diagnostic };

const FORM_ATTRIBUTES = ["form_api_version", "form_kind", "form_definition_version", "form_schema_digest"] as const;

/** The exact ref recorded in attributes, when all four members are known non-empty strings. */
export function recordedRef(attributes: Attributes | null | undefined): FormRef | undefined {
  const [apiVersion, kind, definitionVersion, schemaDigest] = FORM_ATTRIBUTES.map((n) => knownString(attributes, n));
  if (apiVersion === undefined || kind === undefined || definitionVersion === undefined || schemaDigest === undefined) return undefined;
  return { apiVersion, kind, definitionVersion, schemaDigest };
}

/** The five `form_*` attributes of a served ref (the package digest from the registry). */
export function formAttributes(ref: SupportedRef): Attributes {
  return {
    form_api_version: ref.apiVersion,
    form_kind: ref.kind,
    form_definition_version: ref.definitionVersion,
    form_schema_digest: ref.schemaDigest,
    form_package_digest: ref.packageDigest,
  };
}

/** The codec of the ref recorded in state, or the fail-closed diagnostic. */
export function serveState(rt: ProviderRuntime, type: string, attributes: Attributes, identity: Omit<Diagnostic, "severity" | "summary"> = {}): Dispatch {
  const ref = recordedRef(attributes);
  if (ref === undefined) {
    return {
      diagnostic: {
        severity: "error",
        summary: "State has no exact Form identity",
        detail:
          "State for this resource does not record all four members of its exact FormRef (form_api_version, form_kind, form_definition_version, form_schema_digest), so the provider cannot tell which contract it was written under.",
        code: providerCode("state-form-ref-missing"),
        resourceType: type,
        pointer: "/form",
        ...identity,
        repair:
          "State from another lane or build is never transformed. Remove this resource from state and import it under an exact Form identity, or create it explicitly.",
      },
    };
  }
  // A ref of another line (hand-edited or mixed-up state) would read, update or delete a
  // different Form's resource of the same name; refused before the codec is even looked up.
  const line = rt.table.type(type);
  const lines = rt.table.linesOf(type);
  if (line !== undefined && !lines.some((l) => ref.apiVersion === l.apiVersion && ref.kind === l.kind)) {
    return {
      diagnostic: {
        severity: "error",
        summary: "State Form identity belongs to another resource type",
        detail:
          `${type} serves ${lines.map((l) => `${l.apiVersion} ${l.kind}`).join(" and ")}; its state records ${formatFormRef(ref)}. ` +
          "Reading, updating or deleting under that ref would address another Form's resource, so the provider refuses before contacting the host.",
        code: providerCode("state-form-ref-mismatch"),
        resourceType: type,
        pointer: "/form",
        ...identity,
        ref,
        repair: `Remove this resource from state (takoform state rm) and import it into the resource type that serves ${ref.apiVersion} ${ref.kind}, or import the ${line.kind} it should manage.`,
      },
    };
  }
  const served = rt.table.tryForStateRef(ref);
  if (served !== undefined) return { served };
  const known = rt.table.renderedCodecRefsForKind(ref.kind);
  return {
    diagnostic: {
      severity: "error",
      summary: "State Form identity is not supported by this provider",
      detail:
        `This provider build carries ${ref.kind} codecs for ${listRefs(known)}. ` +
        `State records ${formatFormRef(ref)}; reading, updating or deleting it under any other exact FormRef would treat state written against one contract as another, so the provider refuses before contacting the host.`,
      code: providerCode("state-form-ref-unsupported"),
      resourceType: type,
      pointer: "/form",
      ...identity,
      ref,
      repair:
        "Pin the provider build (or project registry) that wrote this state, or migrate the resource explicitly: remove it from state and import it under a Form identity this build supports.",
    },
  };
}

/** What an operation on an existing resource starts from (read, update, delete). */
export interface PriorDispatch {
  served: Served;
  kind: string;
  /** The recorded name, when state holds one. */
  name: string | undefined;
  /** The recorded space, else the provider default. */
  space: string;
  /** The identity every diagnostic of the operation carries, the served ref included. */
  identity: Omit<Diagnostic, "severity" | "summary">;
}

/**
 * The served line and the ref recorded in state for `type`, with the resource's identity, or
 * the fail-closed diagnostic (unserved type, missing or unsupported ref, a ref of another lane
 * than the negotiated one) before any host call.
 */
export async function servePrior(
  rt: ProviderRuntime,
  type: string,
  attributes: Attributes,
): Promise<{ prior: PriorDispatch; diagnostic?: undefined } | { prior?: undefined; diagnostic: Diagnostic }> {
  if (rt.line(type) === undefined) return { diagnostic: rt.unserved(type) };
  const name = knownString(attributes, "name");
  const space = knownString(attributes, "space") ?? rt.defaultSpace;
  const identity = { resourceType: type, space, ...(name !== undefined ? { name } : {}) };
  const dispatch = serveState(rt, type, attributes, identity);
  if (dispatch.diagnostic) return { diagnostic: dispatch.diagnostic };
  const { served } = dispatch;
  const elsewhere = laneMismatch(type, served.ref, await rt.lane(), identity);
  if (elsewhere !== undefined) return { diagnostic: elsewhere };
  return { prior: { served, kind: served.ref.kind, name, space, identity: { ...identity, ref: served.ref } } };
}

/**
 * A recorded ref whose Edge family group belongs to another lane than the negotiated one
 * (undefined while no lane is known: the host call that follows reports why).
 */
export function laneMismatch(
  type: string,
  ref: FormRef,
  lane: Lane | undefined,
  identity: Omit<Diagnostic, "severity" | "summary"> = {},
): Diagnostic | undefined {
  if (lane === undefined || groupServedUnder(ref.apiVersion, lane)) return undefined;
  const owner = laneOfGroup(ref.apiVersion)!;
  return {
    severity: "error",
    summary: "State Form identity belongs to another Host API lane",
    detail:
      `State records ${formatFormRef(ref)}, an identity of the Host API lane ${owner.hostApiVersion}; this provider speaks ${lane.hostApiVersion} to the host. ` +
      "The provider never reads, updates or deletes a resource under another lane's identity, so it refuses before contacting the host.",
    code: providerCode("state-lane-mismatch"),
    resourceType: type,
    pointer: "/form",
    ...identity,
    ref,
    repair: `Point the provider at a host that serves ${owner.hostApiVersion} (or pin lane = "${owner.name}" in the provider block, or TAKOFORM_LANE=${owner.name}), or move the state to ${lane.hostApiVersion} identities the host holds with \`takoform state upgrade-lane\`.`,
  };
}

/**
 * The create target of a type under the negotiated lane: the DefaultCreates ref and codec of the
 * type's line served under it.
 */
export function serveCreate(rt: ProviderRuntime, type: string, lane: Lane): Dispatch {
  const line = rt.table.lineFor(type, lane);
  if (line === undefined) return { diagnostic: notServedUnderLane(rt, type, lane) };
  try {
    return { served: rt.table.defaultCreate(line) };
  } catch (err) {
    return { diagnostic: missingCreateTarget(type, line, err) };
  }
}

/** A type none of whose lines the negotiated lane serves (a Form new in a later lane). */
function notServedUnderLane(rt: ProviderRuntime, type: string, lane: Lane): Diagnostic {
  const lanes = rt.table.linesOf(type).map((l) => laneOfGroup(l.apiVersion)?.hostApiVersion ?? "every lane");
  return {
    severity: "error",
    summary: `${type} is not served under the Host API lane ${lane.hostApiVersion}`,
    detail: `Its Form exists only under ${[...new Set(lanes)].join(" and ")}; the host was negotiated on ${lane.hostApiVersion}, whose Form family has no such Form.`,
    code: providerCode("host-does-not-support-form"),
    resourceType: type,
    repair:
      "Deploy it against a host lane that serves it (unpin the provider's lane, or point the endpoint at a host offering that lane), or remove the resource.",
  };
}

/** The diagnostic of a space that is not a SpaceID (the resource's, or the provider default). */
export function invalidSpace(type: string, space: unknown): Diagnostic {
  return {
    severity: "error",
    summary: "Invalid or missing SpaceID",
    code: providerCode("attribute-value-invalid"),
    detail: `${JSON.stringify(space)} is not a SpaceID: 1 to 255 characters, no "/", no control characters, and no leading or trailing white space${typeof space === "string" ? controlCharacterNote("space", space) : ""}.`,
    resourceType: type,
    attribute: "space",
    pointer: "/metadata/space",
    repair: "Set space (or the provider's default space) to a valid SpaceID.",
  };
}
