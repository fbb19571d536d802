// A derived revision name is stable across a lane upgrade (docs/provider.md, "Revision names";
// docs/state.md, "Upgrading a state's lane"). A WorkerVersion's content digest hashes its spec,
// and the spec spells each reference's Edge family group, which differs per Host API lane. A
// version created under v1alpha3 and moved to v1beta1 (same object, same meaning) would otherwise
// derive another name at the next plan and be replaced for nothing but the spelling.
//
// So a recorded name is also "the derived name" when it is the name the same planned spec derives
// spelled as another lane spells it: every reference ({apiVersion, kind, name} at a field the codec
// declares as a reference) whose group is an Edge group of the codec's lane is re-spelled with the
// corresponding group of the other lane (ours to ours, upstream's to upstream's). Nothing else in
// the spec changes, so any other change of content still derives a new name. A new revision is
// always named from its own lane's spelling, byte-compatible with upstream's provider.

import { LANES, laneOfGroup, type Lane } from "../../core/index.ts";
import type { JsonObject } from "../../forms/index.ts";
import type { CodecScalarType, FormCodec } from "../../registry/index.ts";
import { deriveRevisionName } from "./names.ts";

type Reference = { apiVersion?: unknown };

function respellRef(value: unknown, from: Lane, to: Lane): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const group = (value as Reference).apiVersion;
  const mapped = group === from.edgeGroups.bundled ? to.edgeGroups.bundled : group === from.edgeGroups.upstream ? to.edgeGroups.upstream : undefined;
  return mapped === undefined ? value : { ...(value as object), apiVersion: mapped };
}

function respellMembers(value: unknown, members: readonly { wire: string; type: CodecScalarType }[], from: Lane, to: Lane): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const out = { ...(value as Record<string, unknown>) };
  for (const member of members) if (member.type.kind === "ref" && Object.hasOwn(out, member.wire)) out[member.wire] = respellRef(out[member.wire], from, to);
  return out;
}

/** The spec as `to` spells it: the references the codec declares, re-spelled from `from`'s groups. */
export function respelledSpec(codec: Pick<FormCodec, "fields">, spec: JsonObject, from: Lane, to: Lane): JsonObject {
  const out: Record<string, unknown> = { ...spec };
  for (const field of codec.fields) {
    if (!Object.hasOwn(out, field.wire)) continue;
    const value = out[field.wire];
    const type = field.type;
    if (type.kind === "ref") out[field.wire] = respellRef(value, from, to);
    else if (type.kind === "binding-list" && Array.isArray(value))
      out[field.wire] = value.map((b) => respellMembers(b, [{ wire: "resource", type: { kind: "ref", target: type.target } }], from, to));
    else if (type.kind === "object-list" && Array.isArray(value)) out[field.wire] = value.map((o) => respellMembers(o, type.members, from, to));
    else if (type.kind === "object") out[field.wire] = respellMembers(value, type.members, from, to);
  }
  return out as JsonObject;
}

/**
 * The names the same planned spec derives as every other lane spells it (none for a revision
 * named by its manifest digest, or of a lane-neutral Form: those do not depend on the lane).
 */
export function derivedNamesUnderOtherLanes(codec: Pick<FormCodec, "ref" | "slug" | "artifactBacked" | "fields">, owner: string, spec: JsonObject): string[] {
  const own = laneOfGroup(codec.ref.apiVersion);
  if (own === undefined || codec.artifactBacked) return [];
  const out: string[] = [];
  for (const lane of LANES) {
    if (lane === own) continue;
    const name = deriveRevisionName(codec, owner, respelledSpec(codec, spec, own, lane));
    if (name !== undefined) out.push(name);
  }
  return out;
}
