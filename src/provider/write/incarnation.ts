// A fenced write (update, delete) addresses one recorded incarnation, so state must hold its
// name, uid and generation. An accepted create that never settled leaves them out; the write is
// then refused before any host call, with a repair that settles it first.

import type { Attributes, Diagnostic } from "../../core/index.ts";
import { knownString } from "../attributes.ts";
import { providerCode } from "../diagnostics/codes.ts";

export interface RecordedIncarnation {
  name: string;
  uid: string;
  generation: string;
}

const MISSING: Record<"update" | "delete", { detail: string; repair: string }> = {
  update: {
    detail: "State does not record the name, uid and generation the update must be fenced on (an accepted create that never settled leaves them out).",
    repair: "Run a refresh first; it settles the resource and records its uid and generation.",
  },
  delete: {
    detail: "State does not record the uid and generation a delete is fenced on (an accepted create that never settled leaves them out).",
    repair: "Run a refresh first; it settles the pending operation and records the uid and generation, then destroy again.",
  },
};

/** The incarnation recorded in `attributes`, or the error refusing an `operation` of `kind` without it. */
export function recordedIncarnation(
  attributes: Attributes,
  operation: "update" | "delete",
  kind: string,
  identity: Omit<Diagnostic, "severity" | "summary">,
): { incarnation: RecordedIncarnation; diagnostic?: undefined } | { incarnation?: undefined; diagnostic: Diagnostic } {
  const name = knownString(attributes, "name");
  const uid = knownString(attributes, "uid");
  const generation = knownString(attributes, "generation");
  if (name !== undefined && uid !== undefined && generation !== undefined) return { incarnation: { name, uid, generation } };
  return {
    diagnostic: {
      severity: "error",
      summary: `Cannot ${operation} ${kind} without its recorded incarnation`,
      detail: MISSING[operation].detail,
      code: providerCode("internal"),
      ...identity,
      pointer: "/metadata",
      repair: MISSING[operation].repair,
    },
  };
}
