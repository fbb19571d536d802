// One host object, one record (docs/state.md §1). A host object is addressed by its space, its
// Form group and kind, and its name — names are unique there across every definition version —
// and, once it exists, by its uid. Two resources that address one object would both "create" it
// (the second create is the same request under the same Idempotency-Key, so the host replays the
// first one's answer), and destroying either would delete the other's object.
//
// - At plan: two configured resources whose planned objects are the same are refused, naming
//   both. Names are compared once known: a literal or derived revision name is known at plan,
//   a `name_prefix` name is minted at apply (random, so it collides with nothing), and a name
//   computed from a value only known after apply is checked by the state store's guard at apply
//   (StateConflictError), before its create is sent. `count` and `for_each` are refused when the
//   stack is loaded, so every configured resource is exactly one candidate.
// - An import (block or command) of an object another record already manages is refused, by
//   uid or by name.
// - A create whose object is the one an orphan or deposed record still holds waits for that
//   delete, so the name is free when the create is sent.

import { type Attributes, type Diagnostic, isUnknown } from "../core/index.ts";
import type { Provider, ResourceState } from "../provider/index.ts";
import { parseStateAddress, type ResourceRecord, type StateConflictError } from "../state/index.ts";
import { engineCode } from "./codes.ts";
import type { PlanStep, ResourceChange } from "./plan-data.ts";

/** Where a host object lives: space, Form group (FormRef apiVersion), kind and name. */
export interface HostObject {
  space: string;
  apiVersion: string;
  kind: string;
  name: string;
}

function known(value: unknown): string | null {
  return typeof value === "string" && value !== "" && !isUnknown(value) ? value : null;
}

/** The object an attribute document addresses; null while any part is not known yet. */
export function hostObjectOf(provider: Provider, type: string, attributes: Attributes | null | undefined): HostObject | null {
  if (attributes === null || attributes === undefined) return null;
  const schema = provider.schema(type);
  const space = known(attributes["space"]);
  const name = known(attributes["name"]);
  const apiVersion = known(attributes["form_api_version"]) ?? schema?.apiVersion ?? null;
  const kind = known(attributes["form_kind"]) ?? schema?.kind ?? null;
  if (space === null || name === null || apiVersion === null || kind === null) return null;
  return { space, apiVersion, kind, name };
}

export function objectKey(object: HostObject): string {
  return `${object.space}/${object.apiVersion}/${object.kind}/${object.name}`;
}

function describe(object: HostObject): string {
  return `${object.kind} "${object.name}" (${object.apiVersion}) in space "${object.space}"`;
}

/** Two configured resources planned onto one host object: one error each pair, at the later address. */
export function duplicateObjects(provider: Provider, changes: Iterable<ResourceChange>): Diagnostic[] {
  const first = new Map<string, string>();
  const out: Diagnostic[] = [];
  const planned = [...changes].filter((c) => c.after !== null && parseStateAddress(c.address).deposed === null);
  planned.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  for (const change of planned) {
    const object = hostObjectOf(provider, change.type, change.after);
    if (object === null) continue;
    const key = objectKey(object);
    const earlier = first.get(key);
    if (earlier === undefined) {
      first.set(key, change.address);
      continue;
    }
    out.push({
      severity: "error",
      code: engineCode("duplicate-host-object"),
      summary: `${earlier} and ${change.address} are the same host object`,
      detail:
        `Both address ${describe(object)}. A host object is one resource: the second would not create another, it would take over the first one's ` +
        "(its create is the same request, which the host answers with the first one's object), and destroying either would delete the object of both.",
      address: change.address,
      resourceType: change.type,
      space: object.space,
      name: object.name,
      attribute: "name",
      repair: `Give one of them another name (or name_prefix, or another revision_owner for a derived revision name), or remove one of ${earlier} and ${change.address}.`,
    });
  }
  return out;
}

/**
 * The refusal of importing (or adopting) `state` under `address` when another record already
 * manages that object, by uid or by name; null when none does.
 */
export function alreadyManaged(provider: Provider, address: string, state: ResourceState, records: Iterable<ResourceRecord>): Diagnostic | null {
  const base = parseStateAddress(address).address;
  const object = hostObjectOf(provider, state.type, state.attributes);
  const uid = known(state.attributes["uid"]);
  for (const record of records) {
    if (parseStateAddress(record.address).address === base) continue;
    const byUid = uid !== null && record.uid === uid;
    const byName =
      object !== null &&
      record.name === object.name &&
      record.space === object.space &&
      record.ref?.apiVersion === object.apiVersion &&
      record.ref?.kind === object.kind;
    if (!byUid && !byName) continue;
    return {
      severity: "error",
      code: engineCode("object-already-managed"),
      summary: `${record.address} already manages the object ${address} would import`,
      detail:
        `${object !== null ? describe(object) : "The object"}${uid !== null ? ` (uid ${uid})` : ""} is recorded in state under ${record.address}. ` +
        "Two records for one host object would each plan, change and delete it on their own. Nothing was recorded.",
      address,
      resourceType: state.type,
      ...(object !== null ? { space: object.space, name: object.name } : {}),
      ...(uid !== null ? { currentUid: uid } : {}),
      repair:
        `If ${address} is ${record.address} renamed, move the record instead of importing: \`takoform state mv ${record.address} ${address}\`, ` +
        `or "moved": [{ "from": "${record.address}", "to": "${address}" }] (cdktf: .moveFromId("${record.address}") on the new construct); ` +
        "state is re-keyed and nothing is sent to the host. Otherwise import another object.",
    };
  }
  return null;
}

/** The state store's guard, hit at apply (a name only known then, or a race with another run). */
export function conflictDiagnostic(error: StateConflictError): Diagnostic {
  const { address: base } = parseStateAddress(error.address);
  return {
    severity: "error",
    code: engineCode("duplicate-host-object"),
    summary: `${base} addresses the host object ${error.holder} already manages`,
    detail:
      `${error.by === "uid" ? `The object with uid ${error.object}` : `The object ${error.object} (space/group/kind/name)`} is recorded under ${error.holder}. ` +
      "One host object has one record, so this write was refused before anything was sent to the host, and state is unchanged.",
    address: base,
    repair:
      `Give ${base} another name (or name_prefix), or remove one of ${base} and ${error.holder} from the configuration. ` +
      `If ${base} is ${error.holder} renamed, declare the move instead, so the object is kept: "moved": [{ "from": "${error.holder}", "to": "${base}" }] (cdktf: .moveFromId("${error.holder}") on the new construct).`,
  };
}

/**
 * A replacement's create whose new object takes the name its own old object still holds (the
 * name was unknown at plan, so the plan could not order it destroy-first). The name is managed by
 * this state — at this very address — so it is never described as someone else's.
 */
export function successorNameHeld(base: string, object: string): Diagnostic {
  return {
    severity: "error",
    code: engineCode("replacement-name-taken"),
    summary: `${base}'s replacement would take the name its current object still holds`,
    detail:
      `The new object is ${object} (space/group/kind/name), which this state manages at ${base} itself: the object being replaced, deleted only after its successor exists (create_before_destroy). ` +
      "The host would refuse the create, so nothing was sent, and state is unchanged.",
    address: base,
    repair: `Give ${base} a name_prefix, or a name that differs from the current one, so the successor is created beside it; or remove create_before_destroy (and from the resources it inherits it from) so the old object is deleted first.`,
  };
}

/**
 * Orderings for objects that change hands within one apply: a create (or a replacement's
 * create) of an object that a record being deleted still holds — an orphan, a deposed object,
 * a destroy-first replacement of another address — waits for that delete, so the host has freed
 * the name before the create is sent.
 */
export function objectHandoverEdges(
  provider: Provider,
  changes: readonly ResourceChange[],
  records: ReadonlyMap<string, ResourceRecord>,
  steps: readonly PlanStep[],
): { from: string; to: string }[] {
  const deletes = new Map<string, { step: string; base: string }>();
  for (const step of steps) {
    if (step.action !== "delete") continue;
    const record = records.get(step.address);
    if (record === undefined || record.name === null || record.space === null || record.ref === null) continue;
    const key = objectKey({ space: record.space, apiVersion: record.ref.apiVersion, kind: record.ref.kind, name: record.name });
    deletes.set(key, { step: step.id, base: parseStateAddress(step.address).address });
  }
  if (deletes.size === 0) return [];
  const creates = new Map(steps.filter((s) => s.action === "create" || s.action === "create-placeholder").map((s) => [s.address, s.id]));
  const edges: { from: string; to: string }[] = [];
  for (const change of changes) {
    const create = creates.get(change.address);
    if (create === undefined) continue;
    const object = hostObjectOf(provider, change.type, change.after as Attributes | null);
    if (object === null) continue;
    const release = deletes.get(objectKey(object));
    // A resource's own old object is ordered by its replacement already (rules 2 and 3).
    if (release === undefined || release.base === change.address) continue;
    edges.push({ from: create, to: release.step });
  }
  return edges;
}
