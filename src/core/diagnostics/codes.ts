// The one table of diagnostic codes (decision 0032). A code is `takoform.<layer>/<name>`; each
// layer declares its own names here with `defineCodes` (engine/codes.ts, provider/diagnostics/
// codes.ts, engine/config/codes.ts, forms/diagnostics.ts, generate/diagnostics.ts), so a code
// exists only where its layer lists it, and no two layers can claim one prefix. The CLI, built on
// the published API alone, keeps its `takoform.cli/*` names in a closed list of its own (cli/codes.ts).
//
// The host's answers carry codes of their own: the closed Host API error taxonomy (every lane's)
// (core/protocol.ts ERROR_CODES). What an operator can do about each is provider knowledge, so
// the provider contributes those repair sentences (`contributeHostRepairs`) and the renderers
// look them up here.

import { type ErrorCode, isErrorCode } from "../protocol.ts";
import type { HostFault } from "./types.ts";

/** A layer's codes: the names it declares and the code of each. */
export interface CodeTable<L extends string, N extends string> {
  /** `engine` in `takoform.engine/cycle`. */
  readonly layer: L;
  readonly names: readonly N[];
  /** `takoform.<layer>/<name>`. */
  code(name: N): `takoform.${L}/${N}`;
}

const tables = new Map<string, readonly string[]>();

/**
 * Declares a layer's codes. A layer declares its table once; declaring a different table under a
 * prefix already taken is a programming error and throws. (The same table declared again — the
 * module evaluated twice — is accepted.)
 */
export function defineCodes<const L extends string, const N extends string>(layer: L, names: readonly N[]): CodeTable<L, N> {
  const existing = tables.get(layer);
  if (existing !== undefined && (existing.length !== names.length || existing.some((n, i) => n !== names[i]))) {
    throw new Error(`diagnostic codes takoform.${layer}/… are declared twice, with different names`);
  }
  if (new Set(names).size !== names.length) throw new Error(`diagnostic codes takoform.${layer}/… list a name twice`);
  tables.set(layer, [...names]);
  const frozen = Object.freeze([...names]);
  return { layer, names: frozen, code: (name) => `takoform.${layer}/${name}` };
}

/** Every declared code, by layer then in declaration order (the layers whose modules are loaded). */
export function declaredCodes(): string[] {
  return [...tables].flatMap(([layer, names]) => names.map((name) => `takoform.${layer}/${name}`));
}

/** Whether `code` is one a layer declared. */
export function isDeclaredCode(code: string): boolean {
  const match = /^takoform\.([a-z]+)\/(.+)$/.exec(code);
  return match !== null && (tables.get(match[1]!)?.includes(match[2]!) ?? false);
}

/** What an operator can do about each host answer, contributed by the provider. */
export interface HostRepairs {
  /** One sentence for every code of the closed taxonomy. */
  byCode: Readonly<Record<ErrorCode, string>>;
  /** For an answer that was not the closed error envelope at all. */
  protocolInvalid: string;
}

let hostRepairs: HostRepairs | undefined;

export function contributeHostRepairs(repairs: HostRepairs): void {
  hostRepairs = repairs;
}

/** The repair sentence for a host fault, when the provider contributed one. */
export function hostRepair(host: HostFault | undefined): string | undefined {
  if (host === undefined || hostRepairs === undefined) return undefined;
  if (host.protocolInvalid) return hostRepairs.protocolInvalid;
  if (host.code !== undefined && isErrorCode(host.code)) return hostRepairs.byCode[host.code];
  return undefined;
}
