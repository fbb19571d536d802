// The two ways state is written (reference §5.5):
// - VERIFIED, from a representation the client verified against the exact identity (create,
//   update, read): metadata, conditions, outputs, the exact ref, relation drift, and the desired
//   fields — from the host spec when adopting it, else the values the plan or state already had
//   (with anything null or unknown filled from the host spec); a host value semantically equal to
//   the one already held (semantic.ts) keeps the held spelling;
// - ACCEPTED, when a create was accepted but no verified representation came back: the name,
//   space, exact ref, uid when known and pending_operation_id, so the next run reconciles the
//   existing resource instead of creating a duplicate.

import { type Attributes, type Diagnostic, errorText, isUnknown, type Value, type WireResource } from "../../core/index.ts";
import { canonicalJson, type JsonObject, type JsonValue } from "../../forms/index.ts";
import { cloneValue, unknownToNull } from "../attributes.ts";
import { completeValue } from "../codec/complete.ts";
import { CodecDecodeError, decodeOutputs, decodeSpec } from "../codec/decode.ts";
import { providerCode } from "../diagnostics/codes.ts";
import { formAttributes, type Served } from "../dispatch.ts";
import { relationDriftOf } from "../relation/drift.ts";
import { semanticallyEqual } from "../semantic.ts";
import type { ResourceTypeSchema } from "../types.ts";
import { projectConditions } from "./conditions.ts";

/** Attributes the provider keeps from configuration; the host never sees them. */
const PROVIDER_SIDE = ["name_prefix", "revision_owner", "create_timeout", "update_timeout", "delete_timeout", "main_module", "modules", "files"] as const;

export interface StateContext {
  type: string;
  schema: ResourceTypeSchema;
  served: Served;
  space: string;
  /** Plan or state values: provider-side attributes and desired fields come from here. */
  values: Attributes;
}

export interface WrittenState {
  attributes: Attributes;
  diagnostics: Diagnostic[];
}

/** A value in the shape state keeps: every nested object with all of its declared members. */
function shaped(ctx: StateContext, name: string, value: Value): Value {
  const attribute = ctx.schema.attributes[name];
  return attribute === undefined ? value : completeValue(attribute.type, value);
}

function base(ctx: StateContext): Attributes {
  const out: Attributes = {};
  for (const name of Object.keys(ctx.schema.attributes)) out[name] = null;
  for (const name of PROVIDER_SIDE) {
    if (Object.hasOwn(ctx.schema.attributes, name)) out[name] = shaped(ctx, name, unknownToNull(cloneValue(ctx.values[name] ?? null)));
  }
  Object.assign(out, formAttributes(ctx.served.ref));
  out["space"] = ctx.space;
  return out;
}

function isEmpty(value: Value | undefined): boolean {
  return value === undefined || value === null || isUnknown(value);
}

/**
 * A verified state write. `adoptHostSpec` re-reads every desired field from the host (Forms that
 * declare update, so out-of-band edits show as drift); otherwise the values are kept and only
 * null or unknown ones are filled from the host spec — which is also what makes an import's first
 * read fill every desired attribute.
 */
export function verifiedState(ctx: StateContext, resource: WireResource, options: { adoptHostSpec: boolean }): WrittenState {
  const diagnostics: Diagnostic[] = [];
  const codec = ctx.served.codec;
  const out = base(ctx);
  out["name"] = resource.metadata.name;
  out["uid"] = resource.metadata.uid;
  out["generation"] = resource.metadata.generation;
  out["revision"] = resource.metadata.revision;
  const { conditions, ready } = projectConditions(resource.status);
  out["conditions"] = conditions;
  out["ready"] = ready;
  const outputs = resource.status?.outputs as JsonObject | undefined;
  out["outputs_json"] = outputs === undefined ? "{}" : canonicalJson(outputs as JsonValue);
  const decodedOutputs = decodeOutputs(codec, outputs);
  Object.assign(out, decodedOutputs.attributes);
  for (const p of decodedOutputs.problems) {
    diagnostics.push({
      severity: "error",
      summary: `Host response does not satisfy the declared output ${p.output}`,
      detail: `${p.detail}. A verified representation must carry every output the Form declares, with its declared type.`,
      code: providerCode("host-response-invalid"),
      resourceType: ctx.type,
      space: ctx.space,
      name: resource.metadata.name,
      ref: ctx.served.ref,
      pointer: `/status/outputs/${p.output}`,
      repair: "The host broke its Form's output contract; report it to the host operator. Refresh again once the host serves the output.",
    });
  }
  out["pending_operation_id"] = null;
  out["relation_drift_reason"] = relationDriftOf(resource)?.reason ?? null;

  let host: Attributes | undefined;
  try {
    host = decodeSpec(codec, resource.spec as JsonObject);
  } catch (err) {
    diagnostics.push({
      severity: "error",
      summary: `Host response does not satisfy the ${codec.ref.kind} spec`,
      detail: `The host's spec does not decode under the exact Form identity state records: ${errorText(err)}`,
      code: providerCode("host-response-invalid"),
      resourceType: ctx.type,
      space: ctx.space,
      name: resource.metadata.name,
      ref: ctx.served.ref,
      pointer: err instanceof CodecDecodeError ? err.pointer : "/spec",
      repair: "The host answered a spec its own Form Definition does not admit; report it to the host operator.",
    });
  }
  for (const field of codec.fields) {
    const kept = ctx.values[field.attribute];
    const fromHost = host?.[field.attribute];
    let value = options.adoptHostSpec && host !== undefined ? (fromHost ?? null) : isEmpty(kept) ? (fromHost ?? null) : unknownToNull(cloneValue(kept!));
    // The host's spelling of the value state already holds (normalized JSON, a sorted set) keeps state's spelling.
    const type = ctx.schema.attributes[field.attribute]?.type;
    if (type !== undefined && !isEmpty(kept) && value !== null && semanticallyEqual(type, kept!, value)) value = unknownToNull(cloneValue(kept!));
    out[field.attribute] = shaped(ctx, field.attribute, value);
  }
  if (codec.artifactBacked) {
    const digest = (resource.spec as JsonObject)["manifestDigest"];
    if (typeof digest === "string" && digest !== "") out["manifest_digest"] = digest;
  }
  return { attributes: out, diagnostics };
}

/** The ACCEPTED write of a create the host took but did not verifiably finish. */
export function acceptedState(ctx: StateContext, name: string, accepted: { operationId?: string; uid?: string }): Attributes {
  const out = base(ctx);
  out["name"] = name;
  out["uid"] = accepted.uid ?? null;
  out["generation"] = null;
  out["revision"] = null;
  out["conditions"] = [];
  out["ready"] = false;
  out["outputs_json"] = "{}";
  for (const output of ctx.served.codec.outputs) out[output.attribute] = null;
  out["pending_operation_id"] = accepted.operationId ?? null;
  out["relation_drift_reason"] = null;
  for (const field of ctx.served.codec.fields)
    out[field.attribute] = shaped(ctx, field.attribute, unknownToNull(cloneValue(ctx.values[field.attribute] ?? null)));
  return out;
}
