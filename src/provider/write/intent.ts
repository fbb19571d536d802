// Write intents (crash safety). Before the client sends a mutating request it hands the exact
// request to `onIntent`; the provider forwards it, with the resource's identity, to the engine's
// `recordIntent`, which persists it before anything leaves the process. A crash after that point
// is finished by `resumeWrite`, which re-sends the same bytes under the same Idempotency-Key.

import type { WriteIntentRecord } from "../../client/index.ts";
import { type Attributes, type FormRef, isWhollyKnown, type KnownValue } from "../../core/index.ts";
import type { FormCodec } from "../../registry/index.ts";
import type { WriteContext, WriteIntent } from "../types.ts";

/** Attributes a resumed write needs to record the state the original would have. */
const CARRIED = ["name_prefix", "revision_owner", "create_timeout", "update_timeout", "delete_timeout", "main_module", "modules", "files", "manifest_digest"];

/** The wholly known provider-side and desired attributes of a write, for the intent. */
export function intentAttributes(codec: FormCodec, values: Attributes): Record<string, KnownValue> {
  const out: Record<string, KnownValue> = {};
  for (const name of [...CARRIED, ...codec.fields.map((f) => f.attribute)]) {
    const value = values[name];
    if (value !== undefined && isWhollyKnown(value)) out[name] = value;
  }
  return out;
}

export interface IntentIdentity {
  operation: WriteIntent["operation"];
  type: string;
  space: string;
  name: string;
  ref: FormRef;
  uid: string;
  attributes?: Record<string, KnownValue>;
}

/**
 * Whether one write's intent reached state, i.e. whether its request may have left. Only then can
 * its outcome be unknown; a failure before that point sent nothing.
 */
export interface WriteAttempt {
  recorded: boolean;
}

/** The client's `onIntent` hook for one write, forwarding to the engine and awaiting it. */
export function intentHook(context: WriteContext, identity: IntentIdentity, attempt?: WriteAttempt): (record: WriteIntentRecord) => Promise<void> {
  return async (record) => {
    const ref: FormRef = {
      apiVersion: identity.ref.apiVersion,
      kind: identity.ref.kind,
      definitionVersion: identity.ref.definitionVersion,
      schemaDigest: identity.ref.schemaDigest,
    };
    const intent: WriteIntent = {
      operation: identity.operation,
      type: identity.type,
      space: identity.space,
      name: identity.name,
      ref,
      uid: identity.uid,
      idempotencyKey: record.idempotencyKey,
      request: { method: record.request.method, path: record.request.path, headers: { ...record.request.headers } },
    };
    if (record.request.body !== undefined) intent.request.body = record.request.body;
    if (identity.attributes !== undefined) intent.attributes = identity.attributes;
    await context.recordIntent(intent);
    if (attempt !== undefined) attempt.recorded = true;
  };
}

/** Mutation options every write passes to the client; `attempt` learns when the intent is recorded. */
export function mutationOptions(context: WriteContext, deadline: number, identity: IntentIdentity, attempt?: WriteAttempt) {
  return {
    deadline,
    onIntent: intentHook(context, identity, attempt),
    ...(context.idempotencyScope !== undefined ? { idempotencyScope: context.idempotencyScope } : {}),
    ...(context.signal !== undefined ? { signal: context.signal } : {}),
  };
}
