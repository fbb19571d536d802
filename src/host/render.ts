// Derived renderings: a resource's Ready condition is a function of stored specs, pins and
// uids — never of a revision — so recomputing it cannot cascade. Precedence (reference §11
// Q18): the first drifted relation in pointer order, then the Form rules' rendering, else
// Ready=True/Available. One condition (Ready) is served.
//
// hostReason is capped at 256 characters by the wire schema, yet must name the pointer, both
// uids and both exact refs (§11 Q1). The compact form below fits with this host's 21-character
// uids: the group and kind are implied by the pointer, so only definitionVersion and
// schemaDigest are written; the full prose, with group, kind and name, is in `message`.

import { formatFormRef, type WireCondition } from "../core/index.ts";
import type { Catalog, CatalogForm } from "./catalog.ts";
import { recordedRef, type RelationPin, type StoredResource, type Store } from "./store/index.ts";
import type { ReadyRendering, RuleView } from "./rules/types.ts";
import { type JsonObject } from "../forms/index.ts";

const HOST_REASON_MAX = 256;

export interface RenderEnv {
  store: Store;
  catalog: Catalog;
  view: RuleView;
  now(): number;
}

/** The Ready rendering of one resource given its current pins. */
export function renderReady(
  env: RenderEnv,
  resource: StoredResource,
  pins: readonly RelationPin[],
  spec: JsonObject,
  form: CatalogForm | undefined,
): ReadyRendering {
  for (const pin of pins) {
    // A self-reference pins the holder itself, which cannot drift away from itself.
    if (pin.targetUid === resource.uid) continue;
    const drift = pinDrift(env.store, pin);
    if (drift !== undefined) return drift;
  }
  if (form?.rules.renderReady !== undefined) {
    const rendering = form.rules.renderReady({ view: env.view, form, resource, spec });
    if (rendering !== undefined) return rendering;
  }
  return { status: "True", reason: "Available", message: "the resource is available" };
}

/** Compares one pin with what its name resolves to now. */
export function pinDrift(store: Store, pin: RelationPin): ReadyRendering | undefined {
  const current = store.resources.byAddress({
    tenant: pin.tenant,
    space: pin.space,
    apiVersion: pin.targetApiVersion,
    kind: pin.targetKind,
    name: pin.targetName,
  });
  const pinnedRef = {
    apiVersion: pin.targetApiVersion,
    kind: pin.targetKind,
    definitionVersion: pin.targetDefinitionVersion,
    schemaDigest: pin.targetSchemaDigest,
  };
  const target = `${pin.targetApiVersion} ${pin.targetKind} "${pin.targetName}"`;
  if (current === undefined) {
    return {
      status: "False",
      reason: "DependencyMissing",
      hostReason: hostReason(pin.pointer, pin.targetUid, "none", pin, undefined),
      message:
        `relation ${pin.pointer} targets ${target}, pinned to uid ${pin.targetUid} (formRef ${formatFormRef(pinnedRef)}), ` +
        `which no longer exists; re-create the target, then re-apply this resource`,
    };
  }
  const sameRef = current.definitionVersion === pin.targetDefinitionVersion && current.schemaDigest === pin.targetSchemaDigest;
  if (current.uid === pin.targetUid && sameRef) return undefined;
  const what = current.uid !== pin.targetUid ? "changed incarnation" : "changed contract";
  return {
    status: "False",
    reason: "ExternalChange",
    hostReason: hostReason(pin.pointer, pin.targetUid, current.uid, pin, current),
    message:
      `relation ${pin.pointer} targets ${target}, which ${what}: pinned uid ${pin.targetUid} (formRef ${formatFormRef(pinnedRef)}), ` +
      `now uid ${current.uid} (formRef ${formatFormRef(recordedRef(current))}); the host does not re-bind automatically, re-apply this resource to re-pin it`,
  };
}

function hostReason(pointer: string, oldUid: string, newUid: string, pin: RelationPin, current: StoredResource | undefined): string {
  const oldRef = `${pin.targetDefinitionVersion} ${pin.targetSchemaDigest}`;
  const newRef = current === undefined ? "none" : `${current.definitionVersion} ${current.schemaDigest}`;
  const verbose = `relation ${pointer} uid ${oldUid} -> ${newUid} formRef ${oldRef} -> ${newRef}`;
  if (verbose.length <= HOST_REASON_MAX) return verbose;
  const compact = (p: string): string => `${p} ${oldUid}->${newUid} ${oldRef}->${newRef}`;
  const plain = compact(pointer);
  if (plain.length <= HOST_REASON_MAX) return plain;
  // Keep the pointer's tail (the most specific tokens) when even the compact form overflows.
  const room = HOST_REASON_MAX - compact("").length - 1;
  const tail = room > 0 ? `…${pointer.slice(pointer.length - room)}` : "";
  return compact(tail).slice(0, HOST_REASON_MAX);
}

/** RFC 3339 at whole seconds (the Kubernetes convention for condition times). */
export function rfc3339Seconds(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/**
 * Merges a new Ready rendering into the previously served list. `lastTransitionTime` moves only
 * when the condition's status changes (the Kubernetes convention); returns null when nothing in
 * the served conditions would change.
 */
export function mergeReady(previous: string | null, next: ReadyRendering, now: number): string | null {
  const prior = previous === null ? [] : (JSON.parse(previous) as WireCondition[]);
  const old = prior.find((c) => c.type === "Ready");
  const condition: WireCondition = { type: "Ready", status: next.status, reason: next.reason, lastTransitionTime: "" };
  if (next.hostReason !== undefined) condition.hostReason = next.hostReason;
  if (next.message !== undefined) condition.message = next.message;
  if (
    old !== undefined &&
    old.status === condition.status &&
    old.reason === condition.reason &&
    old.hostReason === condition.hostReason &&
    old.message === condition.message
  ) {
    return null;
  }
  condition.lastTransitionTime = old !== undefined && old.status === condition.status ? old.lastTransitionTime : rfc3339Seconds(now);
  // Member order fixed so the same rendering is always the same bytes.
  const ordered: WireCondition = {
    type: condition.type,
    status: condition.status,
    reason: condition.reason,
    ...(condition.hostReason !== undefined ? { hostReason: condition.hostReason } : {}),
    ...(condition.message !== undefined ? { message: condition.message } : {}),
    lastTransitionTime: condition.lastTransitionTime,
  };
  return JSON.stringify([ordered]);
}
