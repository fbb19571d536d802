// The lane upgrade of one space (docs/host.md, "Lane upgrade"): every object of a tenant's space
// recorded under an Edge family group of another Host API lane is moved, in one transaction, to
// the corresponding identity of the target lane — the same incarnation (uid and generation kept),
// recorded under the target lane's exact FormRef, its relation references spelled in the target
// lane's group, re-validated and re-pinned against the target lane's catalog, and re-rendered by
// its rules. Nothing else is created, changed or deleted.
//
// Decisions (also in docs/host.md):
// - Explicit and per space. A host never moves objects by itself, and never one object alone:
//   the objects of a space reference each other, and a reference names its target's group, so a
//   space moves whole or not at all (a request that cannot move everything moves nothing).
// - The corresponding identity is the target lane's group of the same family (our own group to
//   our own, upstream's to upstream's), the same kind, the SAME definitionVersion; a target lane
//   that does not install it refuses the move (unsupported_capability).
// - Generation is kept: the desired state means the same; only its identity spelling moved.
//   Revision moves (the representation changed), as for any derived rendering.
// - The old address keeps a record of the move. A request there (read, observe, prepare, apply,
//   import, delete) is refused with migration_required (hostCode `moved_to_lane`, the new FormRef
//   in `details`) while the moved incarnation lives: a client with state recorded under the old
//   identity must never read "gone" and create a duplicate (decision 0017 rule 4).
// - Refused while an accepted operation of the space is still pending (resource_busy): it
//   commits under the lane that accepted it.

import { type JsonObject, parsePointer, relationInstances } from "../forms/index.ts";
import { formatFormRef, type FormRef, laneNamed, laneOfGroup, type Lane, type LaneName } from "../core/index.ts";
import type { CatalogForm } from "./catalog.ts";
import { renderEnv } from "./commit.ts";
import type { HostContext } from "./context.ts";
import { rerender } from "./derive.ts";
import { HostError, invalidArgument } from "./errors.ts";
import { resolveRelations } from "./relations.ts";
import { materializeSpec } from "./spec.ts";
import { recordedRef, type ResourceAddress, type StoredResource } from "./store/index.ts";

export interface LaneMoveRequest {
  tenant: string;
  space: string;
  /** The lane whose identities the space's objects move to. */
  lane: LaneName;
}

export interface MovedObject {
  kind: string;
  name: string;
  uid: string;
  from: FormRef;
  to: FormRef;
}

export interface LaneMoveResult {
  lane: Lane;
  space: string;
  moved: MovedObject[];
}

/** The target lane's group of the same family: upstream's to upstream's, ours to ours. */
function successorGroup(group: string, from: Lane, to: Lane): string {
  return group === from.edgeGroups.upstream ? to.edgeGroups.upstream : to.edgeGroups.bundled;
}

/** Sets `apiVersion` of the reference object at `pointer` (a concrete relation instance). */
function respell(spec: JsonObject, pointer: string, apiVersion: string): void {
  let node: unknown = spec;
  for (const token of parsePointer(pointer)) {
    node = Array.isArray(node) ? node[Number(token)] : (node as Record<string, unknown>)[token];
  }
  (node as Record<string, unknown>)["apiVersion"] = apiVersion;
}

function pendingSpace(request: string): string | undefined {
  try {
    const parsed = JSON.parse(request) as { input?: { space?: unknown } };
    return typeof parsed.input?.space === "string" ? parsed.input.space : undefined;
  } catch {
    return undefined;
  }
}

interface Planned {
  resource: StoredResource;
  form: CatalogForm;
  spec: JsonObject;
  canonical: string;
  digest: string;
}

/**
 * Moves the space. `contexts` are the host's served lanes; the target must be one of them. The
 * caller's tenant scopes everything: another tenant's objects are never looked at.
 */
export function moveSpaceToLane(contexts: ReadonlyMap<string, HostContext>, request: LaneMoveRequest): LaneMoveResult {
  const target = contexts.get(request.lane);
  const lane = laneNamed(request.lane);
  if (target === undefined) {
    throw invalidArgument(
      `this host does not serve the Host API lane ${lane.hostApiVersion}; serve it (--lane ${lane.name} or --lane both) to move objects to it`,
      {
        hostCode: "lane_not_served",
      },
    );
  }
  const { store } = target;
  const { tenant, space } = request;
  return store.transaction(() => {
    const moving = store.resources.inSpace(tenant, space).filter((r) => {
      const owner = laneOfGroup(r.apiVersion);
      return owner !== undefined && owner.name !== lane.name;
    });
    if (moving.length === 0) return { lane, space, moved: [] };

    const busy = store.operations.pending().filter((op) => op.tenant === tenant && pendingSpace(op.request) === space);
    if (busy.length > 0) {
      throw new HostError("resource_busy", `accepted operation ${busy[0]!.id} in space "${space}" has not committed yet; move the space once it has`, {
        hostCode: "operation_in_flight",
        retryAfter: 1,
      });
    }
    const uids = new Set(moving.map((r) => r.uid));
    for (const r of moving) {
      const foreign = store.relations.holdersOfUid(r.uid).find((holder) => !uids.has(holder));
      if (foreign !== undefined) {
        const holder = store.resources.byUid(foreign);
        throw invalidArgument(
          `${r.kind} "${r.name}" is held by ${holder?.kind ?? "a resource"} "${holder?.name ?? foreign}" (${holder?.apiVersion ?? "?"}), which does not move with it: its Form names the target's group`,
          { hostCode: "lane_move_foreign_holder" },
        );
      }
    }

    const planned: Planned[] = moving.map((resource) => {
      const from = laneOfGroup(resource.apiVersion)!;
      const group = successorGroup(resource.apiVersion, from, lane);
      const form = target.catalog.formAtVersion(group, resource.kind, resource.definitionVersion);
      if (form === undefined) {
        throw new HostError(
          "unsupported_capability",
          `${resource.kind} "${resource.name}" is recorded under ${formatFormRef(recordedRef(resource))}; the lane ${lane.hostApiVersion} of this host installs no ${group} ${resource.kind}@${resource.definitionVersion} to move it to`,
          { hostCode: "lane_successor_missing" },
        );
      }
      const taken = store.resources.byAddress({ tenant, space, apiVersion: group, kind: resource.kind, name: resource.name });
      if (taken !== undefined) {
        throw invalidArgument(
          `${resource.kind} "${resource.name}" cannot move to ${group}: another incarnation (uid ${taken.uid}) already holds that name there`,
          {
            hostCode: "lane_move_name_taken",
          },
        );
      }
      // The references are the target definition's relation pointers; each gets the group its
      // schema demands. The schema then decides: a spec the target definition refuses does not move.
      const spec = JSON.parse(resource.spec) as JsonObject;
      for (const instance of relationInstances(form.relations, spec)) respell(spec, instance.pointer, instance.relation.target.apiVersion);
      const materialized = materializeSpec(form, spec);
      if (materialized.problems.length > 0) {
        const shown = materialized.problems
          .slice(0, 4)
          .map((p) => `/spec${p.pointer}: ${p.message}`)
          .join("; ");
        throw invalidArgument(`${resource.kind} "${resource.name}" does not satisfy ${formatFormRef(form.ref)} once moved: ${shown}`, {
          hostCode: "lane_move_invalid_spec",
        });
      }
      return { resource, form, spec: materialized.spec, canonical: materialized.canonical, digest: materialized.digest };
    });

    const movedAt = new Date(target.now()).toISOString();
    for (const p of planned) {
      const r = p.resource;
      store.resources.reidentify({
        uid: r.uid,
        apiVersion: p.form.ref.apiVersion,
        definitionVersion: p.form.ref.definitionVersion,
        schemaDigest: p.form.ref.schemaDigest,
        spec: p.canonical,
        specDigest: p.digest,
        revision: r.revision + 1,
      });
      const old: ResourceAddress = { tenant, space, apiVersion: r.apiVersion, kind: r.kind, name: r.name };
      store.laneMoves.put({ ...old, uid: r.uid, to: p.form.ref, movedAt });
    }
    // Every object now answers at its new address, so each relation resolves to its moved target
    // and is verified against the target lane's contracts (interfaces, bindings) before it is pinned.
    for (const p of planned) {
      const self = store.resources.byUid(p.resource.uid)!;
      const { pins } = resolveRelations(store, target.catalog, { tenant, space, form: p.form, name: self.name, uid: self.uid, spec: p.spec }, self);
      store.relations.replacePins(
        self.uid,
        pins.map((pin) => ({ ...pin, holderUid: self.uid })),
      );
    }
    rerender(renderEnv(target, tenant), uids, new Set());
    return {
      lane,
      space,
      moved: planned.map((p) => ({ kind: p.resource.kind, name: p.resource.name, uid: p.resource.uid, from: recordedRef(p.resource), to: p.form.ref })),
    };
  });
}
