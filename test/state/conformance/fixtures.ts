// Records, intents and a per-test place the conformance areas share.

import { afterEach, beforeEach } from "vitest";
import type { KnownValue } from "../../../src/core/values.ts";
import type { WriteIntent } from "../../../src/provider/types.ts";
import type { StateReader, StateStore } from "../../../src/state/types.ts";
import type { Place, StoreTarget } from "./target.ts";

export const REF = {
  apiVersion: "edge.takoform-cdk.dev/v1alpha1",
  kind: "WorkerVersion",
  definitionVersion: "0.1.0",
  schemaDigest: `sha256:${"d".repeat(64)}`,
};

/** The Host API lane a binding records (its group version). */
export const LANE = "forms.takoform.com/v1beta1";

export function envelope(name: string, extra: Record<string, KnownValue> = {}): Record<string, KnownValue> {
  return {
    name,
    space: "default",
    uid: `uid-${name}`,
    generation: "3",
    revision: "7",
    form_api_version: REF.apiVersion,
    form_kind: REF.kind,
    form_definition_version: REF.definitionVersion,
    form_schema_digest: REF.schemaDigest,
    form_package_digest: `sha256:${"e".repeat(64)}`,
    conditions: [{ type: "Ready", status: "True", reason: "Available" }],
    ready: true,
    outputs_json: '{"url":"https://app.example"}',
    pending_operation_id: null,
    relation_drift_reason: null,
    ...extra,
  };
}

export function writeIntent(name: string, operation: WriteIntent["operation"] = "create"): WriteIntent {
  return {
    operation,
    type: "takoform_worker_version",
    space: "default",
    name,
    ref: REF,
    uid: operation === "create" ? "" : `uid-${name}`,
    idempotencyKey: `idem-${name}-${operation}`,
    request: {
      method: "PUT",
      path: `/apis/forms.takoform.com/v1alpha3/spaces/default/resources/${name}`,
      headers: { "Idempotency-Key": `idem-${name}`, Authorization: "Bearer super-secret-token", "content-type": "application/json" },
      body: '{"spec":{}}',
    },
  };
}

export const plain = (name: string) => ({ type: "takoform_module_worker", status: "ready" as const, attributes: { name } });
export const ready = (name: string, extra: Record<string, KnownValue> = {}) => ({
  type: "takoform_worker_version",
  status: "ready" as const,
  attributes: envelope(name, extra),
});

/** The error a promise rejects with (undefined when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (e: unknown) => e,
  );
}

export interface PlaceContext {
  readonly place: Place;
  /** A read-write handle opened before each test. */
  readonly store: StateStore;
  /** Another handle on the same state, closed after the test. */
  open(options?: { now?: () => number }): Promise<StateStore>;
  reader(): Promise<StateReader>;
}

/** A fresh place and a handle on it for every test of the enclosing describe. */
export function usePlace(target: StoreTarget): PlaceContext {
  let place: Place | undefined;
  let store: StateStore | undefined;
  const handles: (StateReader | StateStore)[] = [];
  beforeEach(async () => {
    place = target.place();
    store = await place.open();
    handles.push(store);
  });
  afterEach(async () => {
    for (const h of handles.splice(0)) await h.close();
    place?.cleanup();
  });
  return {
    get place() {
      return place!;
    },
    get store() {
      return store!;
    },
    async open(options) {
      const handle = await place!.open(options);
      handles.push(handle);
      return handle;
    },
    async reader() {
      const handle = await place!.openReader();
      handles.push(handle);
      return handle;
    },
  };
}
