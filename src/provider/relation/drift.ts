// Relation drift, read side (decision 0015 rules 7 and 9, 0022 rule 8; reference §4.4). A host
// reports a source whose relation target was replaced (ExternalChange) or removed
// (DependencyMissing) as Ready=False, and never re-binds it. The provider records the reason in
// `relation_drift_reason` so the next plan can propose the repairing apply, and raises a WARNING —
// never an error, because an error would abort the very refresh the repair is planned from.

import type { Diagnostic, WireResource } from "../../core/index.ts";
import { providerCode } from "../diagnostics/codes.ts";

export type DriftReason = "ExternalChange" | "DependencyMissing";

export interface RelationDrift {
  reason: DriftReason;
  hostReason?: string;
  message?: string;
}

const PROSE: Record<DriftReason, string> = {
  ExternalChange: "a resource it references was replaced by a different incarnation (or moved to another contract) under the same name",
  DependencyMissing: "a resource it references no longer exists",
};

/** The drift the representation reports: its first Ready condition, when False for a drift reason. */
export function relationDriftOf(resource: Pick<WireResource, "status"> | undefined): RelationDrift | undefined {
  const ready = resource?.status?.conditions?.find((c) => c.type === "Ready");
  if (ready === undefined || ready.status !== "False") return undefined;
  if (ready.reason !== "ExternalChange" && ready.reason !== "DependencyMissing") return undefined;
  const drift: RelationDrift = { reason: ready.reason };
  if (ready.hostReason !== undefined && ready.hostReason !== "") drift.hostReason = ready.hostReason;
  if (ready.message !== undefined && ready.message !== "") drift.message = ready.message;
  return drift;
}

export interface ParsedHostReason {
  pointer?: string;
  expectedUid?: string;
  currentUid?: string;
}

function token(text: string): string | undefined {
  const t = text.trimStart().split(/\s+/, 1)[0];
  if (t === undefined || t === "") return undefined;
  return t.replace(/[,;)]+$/, "") || undefined;
}

function uid(value: string | undefined): string | undefined {
  return value === undefined || value === "none" ? undefined : value;
}

/**
 * Lifts the pointer and both uids out of a hostReason, tolerantly. Understood phrasings:
 * - upstream: `relation <ptr> changed incarnation from uid <old> … to uid <new> …` and
 *   `relation <ptr> … uid <old> … no longer exists`. Deliberately, `to uid ` is searched without
 *   a leading space, so `from uid a to uid b` yields b (the upstream Go code misses it);
 * - this project's local host: `relation <ptr> uid <old> -> <new> formRef …` and its compact
 *   form `<ptr> <old>-><new> …` (`none` when the target is gone).
 * Any other wording yields nothing; the raw text is still shown to the operator.
 */
export function parseRelationHostReason(text: string): ParsedHostReason {
  let rest: string;
  let pointer: string | undefined;
  if (text.startsWith("relation ")) {
    pointer = token(text.slice("relation ".length));
    rest = text
      .slice("relation ".length)
      .trimStart()
      .slice(pointer?.length ?? 0);
  } else if (text.startsWith("/") || text.startsWith("…/")) {
    pointer = token(text);
    rest = text.slice(pointer?.length ?? 0);
  } else {
    return {};
  }
  if (pointer === undefined || !(pointer.startsWith("/") || pointer.startsWith("…/"))) return {};
  const out: ParsedHostReason = { pointer };

  const incarnation = " changed incarnation from uid ";
  const at = rest.indexOf(incarnation);
  if (at >= 0) {
    const afterFrom = rest.slice(at + incarnation.length);
    const expected = token(afterFrom);
    if (expected !== undefined) out.expectedUid = expected;
    const remainder = afterFrom.trimStart().slice(expected?.length ?? 0);
    const to = remainder.indexOf("to uid ");
    if (to >= 0) {
      const current = token(remainder.slice(to + "to uid ".length));
      if (current !== undefined) out.currentUid = current;
    }
    return out;
  }
  if (rest.includes(" no longer exists")) {
    const u = rest.indexOf(" uid ");
    if (u >= 0) {
      const expected = token(rest.slice(u + " uid ".length));
      if (expected !== undefined) out.expectedUid = expected;
    }
    return out;
  }
  const verbose = /^\s*uid (\S+) -> (\S+)/.exec(rest);
  const compact = verbose ?? /^\s*([^\s>]+)->(\S+)/.exec(rest);
  if (compact !== null) {
    const expected = uid(compact[1]);
    const current = uid(compact[2]);
    if (expected !== undefined) out.expectedUid = expected;
    if (current !== undefined) out.currentUid = current;
  }
  return out;
}

/** The warning a read raises for a drifted relation. */
export function relationDriftWarning(
  drift: RelationDrift,
  declaresUpdate: boolean,
  identity: Omit<Diagnostic, "severity" | "summary">,
  kind: string,
): Diagnostic {
  const parsed = drift.hostReason !== undefined ? parseRelationHostReason(drift.hostReason) : {};
  const remedy = declaresUpdate
    ? "re-applying this resource in place with its unchanged spec"
    : "replacing this resource, because its Form declares no in-place update";
  const d: Diagnostic = {
    severity: "warning",
    summary: `${kind} references a resource that changed out of band`,
    detail:
      `The host reports this resource not ready, with the portable reason ${drift.reason}: ${PROSE[drift.reason]}. ` +
      "It remains pinned to the incarnation it was applied against; a host never re-binds a reference by name on its own." +
      (drift.message !== undefined ? `\n\n${drift.message}` : ""),
    code: providerCode("relation-target-changed"),
    ...identity,
    repair:
      `The next plan proposes ${remedy}; that apply resolves the reference again against the resource that exists now. ` +
      "If the target no longer exists, re-create it first, or remove this resource together with it.",
  };
  if (parsed.pointer !== undefined) d.pointer = parsed.pointer;
  if (parsed.expectedUid !== undefined) d.expectedUid = parsed.expectedUid;
  if (parsed.currentUid !== undefined) d.currentUid = parsed.currentUid;
  if (drift.hostReason !== undefined) d.host = { hostCode: drift.hostReason, retryable: false, protocolInvalid: false, accepted: false };
  return d;
}
