// What a stack's `data.terraform_remote_state` blocks read (docs/stacks.md, "Cross-stack
// references"): another stack's outputs, from that stack's state, found the way that stack finds
// it. cdktf writes the data source with the producer's backend block repeated (`local` with cdktf's
// default `path`, or the producer's `pg` settings, password included), so the producer is the
// stack of the app whose own backend block is that one; its state is then placed exactly as a
// command for the producer places it (its `.takoform/stacks/<stack>/` file, or the project's older
// `.takoform/state.db` when it owns that, state-access.ts). A data source no stack of the app
// matches reads the state its backend names, as Terraform's does. Reading takes no lock and
// writes nothing; a state that does not exist yet reads as one with no outputs.

import { basename, resolve } from "node:path";
import type { Diagnostic } from "../core/index.ts";
import { engineCode, remoteFromState, type StackRead } from "../engine/index.ts";
import { type RemoteStateConfig, type RemoteStateValue, type StackConfig } from "../engine/config/index.ts";
import {
  BackendError,
  describeBackend,
  openBackendReader,
  redactConnStr,
  resolveBackend,
  StateNotFoundError,
  type BackendConfig,
  type StateReader,
} from "../state/index.ts";
import { AppOutlines } from "./outlines.ts";
import { openReader, stateTarget, unavailable } from "./state-access.ts";

export { AppOutlines } from "./outlines.ts";

/** A `terraform_remote_state` of a stack, with the stack of the app whose state it reads (null: none of them). */
export type RemoteRead = StackRead;

/** Each remote state of `stack`, with its producer among the app's stacks. */
export async function remoteReadsOf(projectDir: string, stack: StackConfig, outlines: AppOutlines): Promise<RemoteRead[]> {
  const reads: RemoteRead[] = [];
  for (const source of stack.remoteStates?.values() ?? []) {
    let producer: string | null = null;
    const wanted = backendKey(projectDir, source.backend);
    for (const other of outlines.app?.stacks.keys() ?? []) {
      if (other === stack.stackName) continue;
      const outline = await outlines.outline(other);
      if (outline !== null && backendKey(projectDir, outline.backend ?? { type: "local" }) === wanted) {
        producer = other;
        break;
      }
    }
    reads.push({ source, producer });
  }
  return reads;
}

/** A backend block as one comparable text: its settings, a local path made absolute, a conn_str without its password. */
function backendKey(projectDir: string, backend: BackendConfig): string {
  if (backend.type === "local") {
    return JSON.stringify(["local", backend.path === undefined ? null : resolve(projectDir, backend.path), backend.workspaceDir ?? null]);
  }
  return JSON.stringify([
    "pg",
    backend.connStr === undefined ? null : redactConnStr(backend.connStr),
    backend.schemaName ?? null,
    backend.skipSchemaCreation ?? null,
    backend.skipTableCreation ?? null,
    backend.skipIndexCreation ?? null,
  ]);
}

/** cdktf's implicit LocalBackend path names its stack: `<dir>/terraform.<stack>.tfstate`. */
function cdktfDefaultStack(backend: BackendConfig): string | null {
  if (backend.type !== "local" || backend.path === undefined) return null;
  return /^terraform\.(.+)\.tfstate$/.exec(basename(backend.path))?.[1] ?? null;
}

/** The workspace a remote state reads: its own, or (null) the consumer's. */
function envFor(source: RemoteStateConfig, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return source.workspace === null ? env : { ...env, TAKOFORM_WORKSPACE: source.workspace, TF_WORKSPACE: undefined };
}

/** What one remote state reads: the producer's outputs as its state records them. */
export async function readRemoteState(
  projectDir: string,
  read: RemoteRead,
  outlines: AppOutlines,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RemoteStateValue | { diagnostics: Diagnostic[] }> {
  const { source } = read;
  const readEnv = envFor(source, env);
  const producer = read.producer ?? cdktfDefaultStack(source.backend);
  let reader: StateReader | null = null;
  let describe: string;
  if (producer !== null) {
    // The producer's own placement, its legacy state and its backend record included.
    const outline = read.producer !== null ? await outlines.outline(read.producer) : null;
    const target = await stateTarget(
      projectDir,
      { backend: outline?.backend ?? source.backend, stackName: producer, resources: new Map([...(outline?.addresses ?? [])].map((a) => [a, null])) },
      read.producer !== null ? outlines.app : null,
      readEnv,
    );
    if ("diagnostics" in target) return { diagnostics: target.diagnostics.map((d) => (d.severity === "error" ? unreadable(source, producer, d) : d)) };
    describe = target.describe;
    const opened = await openReader(target);
    if ("diagnostics" in opened) return { diagnostics: opened.diagnostics.map((d) => unreadable(source, producer, d)) };
    if ("reader" in opened) reader = opened.reader;
  } else {
    // A state no stack of the app writes: the one its backend names, as Terraform reads it.
    let spec;
    try {
      spec = resolveBackend(source.backend, { projectDir, env: readEnv });
    } catch (error) {
      if (!(error instanceof BackendError)) throw error;
      return { diagnostics: [unreadable(source, null, { severity: "error", summary: error.message })] };
    }
    describe = describeBackend(spec, projectDir);
    try {
      reader = await openBackendReader(spec);
    } catch (error) {
      if (!(error instanceof StateNotFoundError)) {
        if (!(error instanceof Error)) throw error;
        const target = { projectDir, stack: null, legacy: false, spec, identity: { type: spec.type }, describe, notes: [] };
        return { diagnostics: [unreadable(source, null, unavailable(target, error))] };
      }
    }
  }
  try {
    const outputs = reader !== null ? await reader.outputs() : null;
    return remoteFromState(outputs, source, { ...(producer !== null ? { stack: producer } : {}), describe });
  } finally {
    await reader?.close();
  }
}

/** Every remote state of a stack, read from state; or what kept one from being read. */
export async function readRemoteStates(
  projectDir: string,
  reads: readonly RemoteRead[],
  outlines: AppOutlines,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Map<string, RemoteStateValue> | { diagnostics: Diagnostic[] }> {
  const out = new Map<string, RemoteStateValue>();
  const diagnostics: Diagnostic[] = [];
  for (const read of reads) {
    const value = await readRemoteState(projectDir, read, outlines, env);
    if ("diagnostics" in value) diagnostics.push(...value.diagnostics);
    else out.set(read.source.name, value);
  }
  return diagnostics.length > 0 ? { diagnostics } : out;
}

/** Why a remote state could not be read, on top of what opening it said. */
function unreadable(source: RemoteStateConfig, producer: string | null, cause: Omit<Diagnostic, "code"> & { code?: Diagnostic["code"] }): Diagnostic {
  return {
    severity: "error",
    code: engineCode("remote-state-unavailable"),
    summary: `Cannot read ${source.address}${producer !== null ? `, the outputs of stack "${producer}"` : ""}`,
    detail: [cause.summary, cause.detail, cause.cause].filter((t) => t !== undefined && t !== "").join(" "),
    repair: cause.repair ?? "Check the producing stack's backend, then run again.",
    address: source.address,
  };
}
