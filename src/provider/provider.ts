// TakoformProvider: the Provider the engine drives (src/provider/types.ts), keeping state bound to
// one exact Form identity and one host incarnation. Each operation lives in its own module; this
// class only wires them to one shared runtime (codec table, default space, client, caches).

import type { Diagnostic } from "../core/diagnostic.ts";
import type { Attributes } from "../core/values.ts";
import { importState } from "./import/import.ts";
import { planResource } from "./plan/plan.ts";
import { readResource } from "./read/read.ts";
import { ProviderRuntime, type TakoformProviderOptions } from "./runtime.ts";
import type {
  ImportResult,
  PlanRequest,
  PlanResponse,
  Provider,
  ReadResult,
  RelationTarget,
  ResourceState,
  ResourceTypeSchema,
  WriteContext,
  WriteIntent,
  WriteResult,
} from "./types.ts";
import { validateConfig } from "./validate/validate.ts";
import { relationTargetsOf } from "./codec/relations.ts";
import { serveState } from "./dispatch.ts";
import { createResource } from "./write/create.ts";
import { deleteResource } from "./write/delete.ts";
import { resumeWrite } from "./write/resume.ts";
import { updateResource } from "./write/update.ts";

export class TakoformProvider implements Provider {
  readonly #rt: ProviderRuntime;

  constructor(options: TakoformProviderOptions) {
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

  plan(request: PlanRequest): Promise<PlanResponse> {
    return planResource(this.#rt, request);
  }

  create(type: string, planned: Attributes, context: WriteContext): Promise<WriteResult> {
    return createResource(this.#rt, type, planned, context);
  }

  update(type: string, prior: ResourceState, planned: Attributes, context: WriteContext): Promise<WriteResult> {
    return updateResource(this.#rt, type, prior, planned, context);
  }

  delete(type: string, prior: ResourceState, context: WriteContext): Promise<WriteResult> {
    return deleteResource(this.#rt, type, prior, context);
  }

  read(prior: ResourceState): Promise<ReadResult> {
    return readResource(this.#rt, prior);
  }

  relationTargets(state: ResourceState): RelationTarget[] {
    const dispatch = serveState(this.#rt, state.type, state.attributes);
    return dispatch.served === undefined ? [] : relationTargetsOf(dispatch.served.codec, state.attributes);
  }

  importState(type: string, id: string): ImportResult {
    return importState(this.#rt, type, id);
  }

  resumeWrite(intent: WriteIntent, prior: ResourceState | null): Promise<WriteResult> {
    return resumeWrite(this.#rt, intent, prior);
  }
}

export type { TakoformProviderOptions };
