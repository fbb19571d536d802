// The read-only, tenant-scoped view of the store that Form rules and renderings use.

import type { JsonObject } from "../forms/index.ts";
import type { FormRef } from "../core/index.ts";
import type { Catalog } from "./catalog.ts";
import type { RuleView } from "./rules/types.ts";
import type { RelationPin, StoredResource, Store } from "./store/index.ts";

export function ruleView(store: Store, catalog: Catalog, tenant: string): RuleView {
  const specs = new Map<string, JsonObject>();
  let pending: ReadonlySet<string> | undefined;
  return {
    tenant,
    resourceByUid(uid: string): StoredResource | undefined {
      const r = store.resources.byUid(uid);
      return r !== undefined && r.tenant === tenant ? r : undefined;
    },
    resourceByAddress(space: string, apiVersion: string, kind: string, name: string): StoredResource | undefined {
      return store.resources.byAddress({ tenant, space, apiVersion, kind, name });
    },
    specOf(resource: StoredResource): JsonObject {
      const key = `${resource.uid} ${resource.specDigest}`;
      let spec = specs.get(key);
      if (spec === undefined) {
        spec = JSON.parse(resource.spec) as JsonObject;
        specs.set(key, spec);
      }
      return spec;
    },
    pinsOf(uid: string): RelationPin[] {
      return store.relations.pinsOf(uid);
    },
    holdersOf(uid: string): StoredResource[] {
      const out: StoredResource[] = [];
      for (const holder of store.relations.holdersOfUid(uid)) {
        const r = store.resources.byUid(holder);
        if (r !== undefined && r.tenant === tenant) out.push(r);
      }
      return out;
    },
    form(ref: FormRef) {
      return catalog.form(ref);
    },
    manifest(digest: string): string | undefined {
      return store.artifacts.manifest(tenant, digest);
    },
    blob(digest: string): Uint8Array | undefined {
      return store.artifacts.holdsBlob(tenant, digest) ? store.artifacts.blobBytes(digest) : undefined;
    },
    pendingDeletes(): ReadonlySet<string> {
      pending ??= new Set(store.operations.pendingDeleteTargets(tenant));
      return pending;
    },
    resourcesWithSpecValue(apiVersion: string, kind: string, member: string, value: string): StoredResource[] {
      return store.resources.bySpecValue(tenant, apiVersion, kind, member, value);
    },
    migrationLedger(databaseUid: string) {
      const database = store.resources.byUid(databaseUid);
      return database === undefined || database.tenant !== tenant ? [] : store.databases.ledger(databaseUid);
    },
  };
}
