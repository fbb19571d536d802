// Which runtime ABI this host implements (decision 0022): the one `worker.runtime` contract
// every installed Form providing it agrees on. No provider, two different ones (by exact
// identity), or a provided contract the host has not installed at that digest all fail closed:
// the host then cannot say what a WorkerVersion's handlers mean, and refuses every one.
//
// The handler vocabulary is read out of the contract, never kept here: it is the item enum of
// the `declaredHandlers` input of the contract's `loadModule` operation (the upstream and the
// bundled contracts state it the same structural way).

import { type JsonObject } from "../../../forms/index.ts";
import { formatContractRef, type InterfaceRef, interfaceRefKey } from "../../../core/index.ts";
import type { RuleHost } from "../types.ts";

export const RUNTIME_INTERFACE = "worker.runtime";
const LOAD_OPERATION = "loadModule";
const HANDLER_PROPERTY = "declaredHandlers";

export type RuntimeContract = { ok: true; ref: InterfaceRef; handlers: readonly string[] } | { ok: false; reason: string };

/** Resolves the contract over the installed catalog (a handful of Forms; no caching needed). */
export function runtimeContract(host: RuleHost): RuntimeContract {
  const providers = new Map<string, { ref: InterfaceRef; by: string[] }>();
  for (const form of host.forms()) {
    for (const provided of form.definition.providedInterfaces ?? []) {
      if (provided.name !== RUNTIME_INTERFACE) continue;
      const key = interfaceRefKey(provided);
      const entry = providers.get(key) ?? { ref: provided, by: [] };
      entry.by.push(`${form.ref.apiVersion} ${form.ref.kind}@${form.ref.definitionVersion}`);
      providers.set(key, entry);
    }
  }
  if (providers.size === 0) {
    return { ok: false, reason: `no installed Form provides ${RUNTIME_INTERFACE}, so this host implements no Module Worker runtime ABI` };
  }
  if (providers.size > 1) {
    const list = [...providers.values()].map((p) => `${formatContractRef(p.ref)} (provided by ${p.by.join(", ")})`).join("; ");
    return {
      ok: false,
      reason: `installed Forms provide ${providers.size} different ${RUNTIME_INTERFACE} contracts (${list}), so this host cannot say which runtime ABI it implements`,
    };
  }
  const ref = providers.values().next().value!.ref;
  const installed = host.interface(ref);
  if (installed === undefined) return { ok: false, reason: `the provided runtime contract ${formatContractRef(ref)} is not installed on this host` };
  const handlers = handlerVocabulary(installed.definition.operations);
  if (handlers === undefined) {
    return {
      ok: false,
      reason: `the runtime contract ${formatContractRef(ref)} states no handler vocabulary (${LOAD_OPERATION}.${HANDLER_PROPERTY} item enum)`,
    };
  }
  return { ok: true, ref, handlers };
}

function handlerVocabulary(operations: readonly { name: string; inputSchema: JsonObject }[]): string[] | undefined {
  const load = operations.find((o) => o.name === LOAD_OPERATION);
  const properties = load?.inputSchema.properties;
  if (properties === null || typeof properties !== "object" || Array.isArray(properties)) return undefined;
  const declared = (properties as JsonObject)[HANDLER_PROPERTY];
  if (declared === null || typeof declared !== "object" || Array.isArray(declared)) return undefined;
  const items = declared.items;
  if (items === null || typeof items !== "object" || Array.isArray(items) || !Array.isArray(items.enum)) return undefined;
  const values = items.enum.filter((v): v is string => typeof v === "string");
  return values.length > 0 && values.length === items.enum.length ? values : undefined;
}
