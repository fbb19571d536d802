// Orderings the host enforces beyond the relations a resource's attributes name (docs/provider.md
// §"Host-enforced needs"). An attachment names only the object it attaches to — a WorkerEndpoint,
// WorkerCronTrigger, WorkerCustomDomain or QueueConsumer names a ModuleWorker — yet the host
// refuses it (unsupported_capability) until that worker has an active deployment whose every
// weighted version serves the attachment's handler, and refuses to delete the deployment
// (dependency_in_use) while the attachment lives. The configuration never names the deployment,
// so neither the relations nor depends_on order the two; this table does.
//
// It is derived from the Forms, not from a list of resource types: a Form of role `attachment`
// whose relation names an object that a Form of role `deployment` names too (the same exact
// group and kind) needs that deployment, through that object. Which handler each attachment's
// events invoke is the one fact the schemas do not carry (the Forms' descriptions and the Host
// API's attachment gate state it): it is the table below, by kind, and only says what the
// deployment must serve — an attachment of a kind it does not list still gets its ordering.

import { groupKindKey, type GroupKind } from "../core/index.ts";
import type { CodecTable, FormCodec } from "../registry/index.ts";
import type { HostNeed } from "./types.ts";

/** The worker.runtime operation each attachment's events invoke (Host API: the attachment gate). */
const ATTACHMENT_HANDLERS: ReadonlyMap<string, string> = new Map([
  ["WorkerCustomDomain", "fetch"],
  ["WorkerEndpoint", "fetch"],
  ["WorkerCronTrigger", "scheduled"],
  ["QueueConsumer", "queue"],
]);

interface RefField {
  attribute: string;
  target: GroupKind;
}

function refFields(codec: FormCodec): RefField[] {
  const out: RefField[] = [];
  for (const field of codec.fields) if (field.type.kind === "ref") out.push({ attribute: field.attribute, target: field.type.target });
  return out;
}

/**
 * Every resource type's host-enforced needs, derived once from the codecs of every line the
 * table serves. Linear in the fields: deployments are indexed by the object they name, then
 * each attachment's relations are looked up in that index.
 */
export function deriveHostNeeds(table: CodecTable): ReadonlyMap<string, readonly HostNeed[]> {
  const lines = table.types().flatMap((entry) => table.linesOf(entry.type));
  const activators = new Map<string, { type: string; attribute: string; kind: string }[]>();
  const attachments: { type: string; codec: FormCodec }[] = [];
  for (const line of lines) {
    for (const codec of table.codecsFor(line)) {
      if (codec.role === "deployment") {
        for (const field of refFields(codec)) {
          const key = groupKindKey(field.target);
          const list = activators.get(key) ?? [];
          if (!list.some((a) => a.type === line.type && a.attribute === field.attribute))
            list.push({ type: line.type, attribute: field.attribute, kind: line.kind });
          activators.set(key, list);
        }
      } else if (codec.role === "attachment") attachments.push({ type: line.type, codec });
    }
  }
  const out = new Map<string, HostNeed[]>();
  for (const { type, codec } of attachments) {
    const needs = out.get(type) ?? [];
    for (const field of refFields(codec)) {
      for (const activator of activators.get(groupKindKey(field.target)) ?? []) {
        if (needs.some((n) => n.attribute === field.attribute && n.activatorType === activator.type)) continue;
        const handler = ATTACHMENT_HANDLERS.get(codec.ref.kind);
        needs.push({
          kind: codec.ref.kind,
          attribute: field.attribute,
          targetKind: field.target.kind,
          activatorType: activator.type,
          activatorAttribute: activator.attribute,
          activatorKind: activator.kind,
          ...(handler !== undefined ? { handler } : {}),
        });
      }
    }
    if (needs.length > 0) out.set(type, needs);
  }
  return out;
}
