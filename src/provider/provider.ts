// HostProvider: the Provider the engine drives (src/provider/types.ts), keeping state bound to
// one exact Form identity and one host incarnation. Each operation lives in its own module; this
// class only wires them to one shared runtime (codec table, default space, client, caches).

import { type Attributes, type Diagnostic, laneNamed, type LaneName } from "../core/index.ts";
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

  validate(type: string, config: Attributes): Diagnostic[] {
    return validateConfig(this.#rt, type, config);
  }

  async plan(request: PlanRequest): Promise<PlanResponse> {
    const response = await planResource(this.#rt, request);
    return { ...response, diagnostics: redactDiagnostics(response.diagnostics, this.#rt.redact) };
  }

  laneSuccessor(state: ResourceState, lane: LaneName): LaneSuccessor {
    return laneSuccessor(this.#rt, state, laneNamed(lane));
  }

  async create(type: string, planned: Attributes, context: WriteContext): Promise<WriteResult> {
    return this.#outgoing(await createResource(this.#rt, type, planned, context));
  }

  async update(type: string, prior: ResourceState, planned: Attributes, context: WriteContext): Promise<WriteResult> {
    return this.#outgoing(await updateResource(this.#rt, type, prior, planned, context));
  }

  async delete(type: string, prior: ResourceState, context: WriteContext): Promise<WriteResult> {
    return this.#outgoing(await deleteResource(this.#rt, type, prior, context));
  }

  async read(prior: ResourceState): Promise<ReadResult> {
    return this.#outgoing(await readResource(this.#rt, prior));
  }

  relationTargets(state: ResourceState): RelationTarget[] {
    const dispatch = serveState(this.#rt, state.type, state.attributes);
    return dispatch.served === undefined ? [] : relationTargetsOf(dispatch.served.codec, state.attributes);
  }

  importState(type: string, id: string): Promise<ImportResult> {
    return importState(this.#rt, type, id);
  }

  async resumeWrite(intent: WriteIntent, prior: ResourceState | null): Promise<WriteResult> {
    return this.#outgoing(await resumeWrite(this.#rt, intent, prior));
  }

  /** What leaves the provider carries no bearer token in its free text (redact.ts). */
  #outgoing<R extends { state: ResourceState | null; diagnostics: Diagnostic[] }>(result: R): R {
    return { ...result, state: redactStoredText(result.state, this.#rt.redact), diagnostics: redactDiagnostics(result.diagnostics, this.#rt.redact) };
  }
}

export type { HostProviderOptions };
