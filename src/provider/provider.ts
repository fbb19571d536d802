// HostProvider: the Provider the engine drives (src/provider/types.ts), keeping state bound to
// one exact Form identity and one host incarnation. Each operation lives in its own module; this
// class only wires them to one shared runtime (codec table, default space, client, caches), and
// is where a refused credential is applied to every operation (diagnostics/credential.ts): an
// operation starting after the host refused the credential is not sent, and a 401 any operation
// met leaves as the one credential finding.

import type { ConcurrencyView } from "../client/index.ts";
import { type Attributes, type Diagnostic, laneNamed, type LaneName } from "../core/index.ts";
import { knownString } from "./attributes.ts";
import type { ResourceIdentity } from "./diagnostics/credential.ts";
import { importState } from "./import/import.ts";
import { planResource } from "./plan/plan.ts";
import { readResource } from "./read/read.ts";
import { ProviderRuntime, type HostProviderOptions } from "./runtime.ts";
import type {
  ImportResult,
  PlanRequest,
  PlanResponse,
  Provider,
  ReadResult,
  RelationTarget,
  ResourceState,
  ResourceTypeSchema,
  HostNeed,
  LaneSuccessor,
  WriteContext,
  WriteIntent,
  WriteResult,
} from "./types.ts";
import { redactDiagnostics, redactStoredText } from "./redact.ts";
import { validateConfig } from "./validate/validate.ts";
import { relationTargetsOf } from "./codec/relations.ts";
import { serveState } from "./dispatch.ts";
import { createResource } from "./write/create.ts";
import { deleteResource } from "./write/delete.ts";
import { resumeWrite } from "./write/resume.ts";
import { updateResource } from "./write/update.ts";
import { laneSuccessor } from "./lane-successor.ts";

export class HostProvider implements Provider {
  readonly #rt: ProviderRuntime;

  constructor(options: HostProviderOptions) {
    this.#rt = new ProviderRuntime(options);
  }

  /** The codec table this provider dispatches on. */
  get table() {
    return this.#rt.table;
  }

  schemas(): readonly ResourceTypeSchema[] {
    return this.#rt.schemas();
  }

  schema(type: string): ResourceTypeSchema | undefined {
    return this.#rt.schema(type);
  }

  /**
   * One error per resource type of the registry that this provider cannot serve (a line with no
   * default create, or codecs that cannot share one schema). Such a type is left out of
   * `schemas()`, and every operation on it returns this same diagnostic.
   */
  problems(): Diagnostic[] {
    return this.#rt.problems();
  }

  concurrency(): Promise<ConcurrencyView | undefined> {
    return this.#rt.concurrency();
  }

  validate(type: string, config: Attributes): Diagnostic[] {
    return validateConfig(this.#rt, type, config);
  }

  async plan(request: PlanRequest): Promise<PlanResponse> {
    const response = await planResource(this.#rt, request);
    return { ...response, diagnostics: redactDiagnostics(this.#rt.credential.observe(response.diagnostics), this.#rt.redact) };
  }

  laneSuccessor(state: ResourceState, lane: LaneName): LaneSuccessor {
    return laneSuccessor(this.#rt, state, laneNamed(lane));
  }

  async create(type: string, planned: Attributes, context: WriteContext): Promise<WriteResult> {
    const refused = this.#notSent(identityIn(planned, { resourceType: type }), null);
    return refused ?? this.#outgoing(await createResource(this.#rt, type, planned, context));
  }

  async update(type: string, prior: ResourceState, planned: Attributes, context: WriteContext): Promise<WriteResult> {
    return this.#notSent(stateIdentity(prior), prior) ?? this.#outgoing(await updateResource(this.#rt, type, prior, planned, context));
  }

  async delete(type: string, prior: ResourceState, context: WriteContext): Promise<WriteResult> {
    return this.#notSent(stateIdentity(prior), prior) ?? this.#outgoing(await deleteResource(this.#rt, type, prior, context));
  }

  async read(prior: ResourceState): Promise<ReadResult> {
    return this.#notSent(stateIdentity(prior), prior) ?? this.#outgoing(await readResource(this.#rt, prior));
  }

  relationTargets(state: ResourceState): RelationTarget[] {
    const dispatch = serveState(this.#rt, state.type, state.attributes);
    return dispatch.served === undefined ? [] : relationTargetsOf(dispatch.served.codec, state.attributes);
  }

  hostNeeds(type: string): readonly HostNeed[] {
    return this.#rt.hostNeeds().get(type) ?? [];
  }

  async importState(type: string, id: string): Promise<ImportResult> {
    const refused = this.#notSent({ resourceType: type }, null);
    if (refused !== undefined) return refused;
    const result = await importState(this.#rt, type, id);
    return { ...result, diagnostics: this.#rt.credential.observe(result.diagnostics) };
  }

  // A resumed write is NOT stopped by a refused credential: it finishes a request whose intent
  // an earlier run recorded, and is settled (or left for the next run) as always.
  async resumeWrite(intent: WriteIntent, prior: ResourceState | null): Promise<WriteResult> {
    return this.#outgoing(await resumeWrite(this.#rt, intent, prior));
  }

  /**
   * An operation about to start after the host refused the credential: not sent (no intent is
   * recorded, nothing leaves), `state` kept as it was, and the one credential finding.
   */
  #notSent(identity: ResourceIdentity, state: ResourceState | null): { state: ResourceState | null; diagnostics: Diagnostic[] } | undefined {
    const finding = this.#rt.credential.notSent(identity);
    return finding === undefined ? undefined : { state, diagnostics: redactDiagnostics([finding], this.#rt.redact) };
  }

  /** What leaves the provider carries no bearer token in its free text (redact.ts), and a 401 as the credential finding. */
  #outgoing<R extends { state: ResourceState | null; diagnostics: Diagnostic[] }>(result: R): R {
    const diagnostics = this.#rt.credential.observe(result.diagnostics);
    return { ...result, state: redactStoredText(result.state, this.#rt.redact), diagnostics: redactDiagnostics(diagnostics, this.#rt.redact) };
  }
}

/** The space and name a write or read names, where they are known. */
// Members assigned one by one, not spread in: a spread that adds members its source lacks is off
// V8's fast path, and every read, update and delete (100,000 in a large no-op plan) makes one.
function identityIn(attributes: Attributes, identity: ResourceIdentity = {}): ResourceIdentity {
  const space = knownString(attributes, "space");
  const name = knownString(attributes, "name");
  if (space !== undefined) identity.space = space;
  if (name !== undefined) identity.name = name;
  return identity;
}

function stateIdentity(state: ResourceState): ResourceIdentity {
  return identityIn(state.attributes, { resourceType: state.type });
}

export type { HostProviderOptions };
