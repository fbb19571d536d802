// One host object, one record, at apply (docs/state.md §1). The plan refuses two configured
// resources that address one object when their names are known; a name that is only known at
// apply (computed from another resource's output) is checked here, before its create touches the
// host at all — not even its prepare, whose refusal would otherwise blame "a resource this state
// does not manage". The state store's own guard (StateConflictError at setIntent) stays the last
// line, for a race with another run.
//
// The provider's create does not say which address it creates, so each step is handed a provider
// of its own (`providerFor(address)`) that knows. (An AsyncLocalStorage scope would do the same,
// but on Node 20 it turns on promise hooks that tax every await of the whole apply.)

import type { Attributes } from "../../core/index.ts";
import type { Provider, ResourceState, WriteContext, WriteResult } from "../../provider/index.ts";
import { parseStateAddress, type ResourceRecord, StateConflictError } from "../../state/index.ts";
import { conflictDiagnostic, hostObjectOf, objectKey, successorNameHeld } from "../host-objects.ts";

/** Which configuration address holds each host object during an apply. */
export class ObjectClaims {
  readonly #holders = new Map<string, string>();

  constructor(
    private readonly provider: Provider,
    records: Iterable<ResourceRecord>,
  ) {
    for (const record of records) {
      if (record.name === null || record.space === null || record.ref === null) continue;
      this.#holders.set(
        objectKey({ space: record.space, apiVersion: record.ref.apiVersion, kind: record.ref.kind, name: record.name }),
        parseStateAddress(record.address).address,
      );
    }
  }

  /** The provider the step writing `address` calls: its creates checked against (and recorded in) the claims. */
  providerFor(address: string, provider: Provider): Provider {
    return {
      schemas: () => provider.schemas(),
      schema: (type) => provider.schema(type),
      problems: () => provider.problems(),
      validate: (type, config) => provider.validate(type, config),
      plan: (request) => provider.plan(request),
      create: (type, planned, context) => this.create(address, provider, type, planned, context),
      update: (type, prior, planned, context) => provider.update(type, prior, planned, context),
      delete: (type, prior, context) => this.delete(address, provider, type, prior, context),
      read: (prior) => provider.read(prior),
      relationTargets: (state) => provider.relationTargets(state),
      hostNeeds: (type) => provider.hostNeeds(type),
      importState: (type, id) => provider.importState(type, id),
      laneSuccessor: (state, lane) => provider.laneSuccessor(state, lane),
      resumeWrite: (intent, prior) => provider.resumeWrite(intent, prior),
    };
  }

  private async create(address: string, provider: Provider, type: string, planned: Attributes, context: WriteContext): Promise<WriteResult> {
    const base = parseStateAddress(address).address;
    // A name minted by the create itself (name_prefix) is random and claimed once it exists.
    const object = hostObjectOf(this.provider, type, planned);
    const key = object === null ? null : objectKey(object);
    const holder = key === null ? undefined : this.#holders.get(key);
    if (key !== null && holder !== undefined && holder !== base) {
      return { state: null, diagnostics: [{ ...conflictDiagnostic(new StateConflictError(address, holder, "name", key)), resourceType: type }] };
    }
    // The name is still held by this address's own current object (a create-first replacement
    // whose name was only known at apply): the host would refuse it, and the name is managed here.
    if (key !== null && holder === base) return { state: null, diagnostics: [{ ...successorNameHeld(base, key), resourceType: type }] };
    if (key !== null) this.#holders.set(key, base); // before the first await: a concurrent create of the same object sees it
    const result = await provider.create(type, planned, context);
    const created = result.state === null ? null : hostObjectOf(this.provider, type, result.state.attributes);
    if (created !== null) this.#holders.set(objectKey(created), base);
    else if (key !== null && holder === undefined) this.#holders.delete(key);
    return result;
  }

  private async delete(address: string, provider: Provider, type: string, prior: ResourceState, context: WriteContext): Promise<WriteResult> {
    const result = await provider.delete(type, prior, context);
    const object = hostObjectOf(this.provider, type, prior.attributes);
    // Gone from the host: its name is free for a create that waited for this delete.
    if (result.state === null && !result.diagnostics.some((d) => d.severity === "error") && object !== null) {
      const key = objectKey(object);
      if (this.#holders.get(key) === parseStateAddress(address).address) this.#holders.delete(key);
    }
    return result;
  }
}
