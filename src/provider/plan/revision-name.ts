// ModifyPlan step 3: the derived name of a revision-role resource (decision 0029 rules 1–3;
// reference §3.4). When configuration leaves `name` out, the plan derives it from the planned
// content and the declared `revision_owner`:
// - no owner: refused (two owners could otherwise reach one name);
// - a pinned name beside an owner: refused (the owner would decide nothing);
// - content not yet known: unknown on a create, left as it is on a replacement (marking it
//   unknown would force a replacement on every plan; the same-name check reports the real issue);
// - a changed derived name forces a replacement, added here by hand because attribute-level
//   replacement has already been decided when this hook runs;
// - a relation-drift replacement's new object is named as the drifted revision's successor, and a
//   recorded successor name is kept (revision/successor.ts);
// - a recorded name derived from the same content as another Host API lane spells it is kept
//   (a revision moved by a lane upgrade; revision/other-lanes.ts).

import { type Diagnostic, UNKNOWN, type Value, valuesEqual } from "../../core/index.ts";
import type { JsonObject } from "../../forms/index.ts";
import { encodeSpec } from "../codec/encode.ts";
import { providerCode } from "../diagnostics/codes.ts";
import { knownString } from "../attributes.ts";
import { deriveRevisionName } from "../revision/names.ts";
import { isNameOfRevision, successorName } from "../revision/successor.ts";
import { derivedNamesUnderOtherLanes } from "../revision/other-lanes.ts";
import { addReplace, planIdentity, removeReplace, type PlanPass } from "./state.ts";

export function ownerMissing(kind: string, identity: Omit<Diagnostic, "severity" | "summary">): Diagnostic {
  return {
    severity: "error",
    summary: `Deriving this ${kind} name needs to know whose revision it is.`,
    detail:
      "A content-derived name is the same for every revision with identical content, so two owners deploying the same bytes would reach one name. " +
      "The owner half of the name keeps them apart, and only the configuration can say who the owner is.",
    code: providerCode("revision-owner-missing"),
    ...identity,
    pointer: "/metadata/name",
    attribute: "revision_owner",
    repair:
      "Set `revision_owner` to the stable name this revision belongs to — usually the takoform_module_worker it serves — or pin `name`. The official WorkerApp construct sets it for you.",
  };
}

export function ownerIgnored(kind: string, name: Value, identity: Omit<Diagnostic, "severity" | "summary">): Diagnostic {
  return {
    severity: "error",
    summary: `A pinned ${kind} name leaves \`revision_owner\` with nothing to decide.`,
    detail: "revision_owner only chooses the owner half of a derived name; with `name` set, no name is derived.",
    code: providerCode("revision-owner-ignored"),
    ...identity,
    ...(typeof name === "string" ? { name } : {}),
    pointer: "/metadata/name",
    attribute: "revision_owner",
    repair: "Remove `revision_owner`, or remove `name` to let the provider derive it.",
  };
}

/** The planned wire spec, when every value it needs is known (else undefined). */
export function plannedSpec(p: PlanPass): JsonObject | undefined {
  const codec = p.served.codec;
  if (codec.artifactBacked) {
    const digest = p.planned["manifest_digest"];
    return typeof digest === "string" && digest !== "" ? { manifestDigest: digest } : undefined;
  }
  const encoded = encodeSpec(codec, p.planned, { mode: "plan" });
  return encoded.unresolved || encoded.errors.length > 0 ? undefined : encoded.spec;
}

export function planRevisionName(p: PlanPass): void {
  const codec = p.served.codec;
  if (codec.role !== "revision") return;
  const configuredName = p.config["name"] ?? null;
  const configuredOwner = p.config["revision_owner"] ?? null;
  const identity = planIdentity(p);
  if (configuredName !== null) {
    // A name that is configured but not yet known still counts as pinned.
    if (configuredOwner !== null) p.diagnostics.push(ownerIgnored(codec.ref.kind, configuredName, identity));
    else ownerDecidesNothing(p);
    return;
  }
  if (configuredOwner === null) {
    p.diagnostics.push(ownerMissing(codec.ref.kind, identity));
    return;
  }
  const spec = plannedSpec(p);
  let derived: Value;
  if (spec !== undefined && typeof configuredOwner === "string") {
    const name = deriveRevisionName(codec, configuredOwner, spec);
    if (name === undefined) return;
    derived = recordedOrSuccessor(p, name, derivedNamesUnderOtherLanes(codec, configuredOwner, spec));
  } else if (p.prior !== null) {
    return;
  } else {
    derived = UNKNOWN;
  }
  if (p.prior !== null && derived === p.prior["name"]) ownerDecidesNothing(p);
  if (valuesEqual(p.planned["name"] ?? null, derived)) return;
  p.planned["name"] = derived;
  if (p.prior !== null) addReplace(p, "name");
}

/**
 * The name a derived revision plans, given its bare derived name (revision/successor.ts):
 * - an existing revision keeps its recorded name when that is the derived name or a drift
 *   successor of it — same content, same owner, so the same revision (0029's stability);
 * - the new object of a replacement forced by relation drift, whose derived name would be the
 *   name the replaced revision still occupies, is named as its successor, so it is created beside
 *   the old one while a holder moves over (0015 rule 9: the repairing apply stays reachable).
 */
function recordedOrSuccessor(p: PlanPass, derived: string, underOtherLanes: readonly string[]): string {
  const recorded = knownString(p.prior, "name");
  if (recorded !== undefined) {
    // A name derived from the same content as another lane spells it: the same revision, moved
    // by a lane upgrade (revision/other-lanes.ts).
    return [derived, ...underOtherLanes].some((name) => isNameOfRevision(name, recorded)) ? recorded : derived;
  }
  const replaced = knownString(p.replacing, "name");
  const replacedUid = knownString(p.replacing, "uid");
  if (knownString(p.replacing, "relation_drift_reason") === undefined || replaced === undefined || replacedUid === undefined) return derived;
  if (!isNameOfRevision(derived, replaced)) return derived; // the content changed too: the name is new already
  return successorName(derived, replacedUid) ?? derived;
}

/**
 * `revision_owner` only chooses the owner half of a derived name. When the name the plan arrives
 * at is the one the resource already has — a pinned name, or the same derived name (an imported
 * revision gaining its owner) — a change of the owner alone changes nothing on the host, so it
 * does not force a replacement; it is recorded by a provider-side update.
 */
function ownerDecidesNothing(p: PlanPass): void {
  if (p.prior === null) return;
  const name = p.planned["name"];
  if (typeof name === "string" && name === p.prior["name"]) removeReplace(p, "revision_owner");
}
