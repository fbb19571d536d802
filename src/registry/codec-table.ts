// The registry paired with its codecs and resource types: what the provider dispatches on.
// - create: the line's DefaultCreates ref and that ref's codec;
// - read / update / delete / import-with-ref: the exact ref recorded in state, served only when
//   it is both Supported and has a codec — membership, not equality with the default, decides;
// - a ref that fails either test is a RegistryError naming it and every known ref of its kind,
//   raised before any host call (decision 0017 rule 4).
// Immutable like the registry: withCodec returns a copy. A codec is read from the generated data
// only when it is first asked for (the bundled codecs are files read on demand, lazy-codecs.ts).
//
// A resource type serves one Form line, or one Edge family line per Host API lane (the same kind
// in each lane's group: src/core/lanes.ts). Its lines are kept lead first — the line of the
// preferred lane, which decides the type's surface — and `lineFor(type, lane)` names the line a
// create under that lane uses.

import { formatFormRef, formRefKey, formRefsEqual, groupKindKey, type FormRef, type GroupKind, LANES, laneOfGroup, type Lane } from "../core/index.ts";
import type { FormCodec } from "./codec-types.ts";
import { listRefs, RegistryError } from "./errors.ts";
import { GENERATED_REGISTRY_FORMAT, type GeneratedRegistry, type ResourceTypeEntry } from "./generated-types.ts";
import { FormRegistry, type SupportedRef } from "./registry.ts";

export interface ServedRef {
  ref: SupportedRef;
  codec: FormCodec;
}

/** formRefKey → the codec, read on the first call. */
type CodecSource = () => FormCodec;

/** The codecs of a registry by exact FormRef, each read on first use. */
export class CodecTable {
  readonly #codecs: ReadonlyMap<string, CodecSource>;
  /** Type name → its lines, lead first. */
  readonly #types: ReadonlyMap<string, readonly ResourceTypeEntry[]>;
  /** formRefKey → what tryForStateRef served, and groupKindKey → defaultCreate's answer (the table never changes). */
  readonly #served = new Map<string, ServedRef>();
  /** The ref tryForStateRef served last (a copy: a caller's object may change), and its answer. */
  #lastServed: { ref: FormRef; served: ServedRef } | undefined;
  readonly #defaultCreates = new Map<string, ServedRef>();

  private constructor(
    readonly registry: FormRegistry,
    codecs: ReadonlyMap<string, CodecSource>,
    types: ReadonlyMap<string, readonly ResourceTypeEntry[]>,
  ) {
    this.#codecs = codecs;
    this.#types = types;
  }

  /** Loads generated data. Codecs for refs the registry does not support are ignored. */
  static fromGenerated(data: GeneratedRegistry): CodecTable {
    if (data.format !== GENERATED_REGISTRY_FORMAT) {
      throw new RegistryError(
        "format-mismatch",
        `takoform: generated registry format ${String(data.format)} is not ${GENERATED_REGISTRY_FORMAT}; run \`takoform get\` again with this version`,
      );
    }
    const registry = FormRegistry.of(data.supported, data.defaultCreates);
    const codecs = new Map<string, CodecSource>();
    for (const ref of registry.supportedRefs()) {
      const key = formRefKey(ref);
      // Membership only: reading the property would read the codec.
      if (Object.hasOwn(data.codecs, key)) codecs.set(key, () => data.codecs[key]!);
    }
    return new CodecTable(registry, codecs, groupTypes(data.types));
  }

  /** A copy that also supports `codec.ref` with this codec (tests add a synthetic definition this way). */
  withCodec(codec: FormCodec, options: { asDefaultCreate?: boolean; type?: ResourceTypeEntry } = {}): CodecTable {
    const registry = this.registry.register({ ...codec.ref, packageDigest: codec.packageDigest }, { asDefaultCreate: options.asDefaultCreate });
    const codecs = new Map(this.#codecs);
    codecs.set(formRefKey(codec.ref), () => codec);
    const types = new Map(this.#types);
    if (options.type !== undefined) types.set(options.type.type, [options.type]);
    return new CodecTable(registry, codecs, types);
  }

  /** The create target of a line: its default ref and that ref's codec (looked up once per line). */
  defaultCreate(line: GroupKind): ServedRef {
    const lineKey = typeof line.apiVersion === "string" && typeof line.kind === "string" ? groupKindKey(line) : undefined;
    const known = lineKey === undefined ? undefined : this.#defaultCreates.get(lineKey);
    if (known !== undefined) return known;
    const ref = this.registry.defaultCreate(line);
    const codec = this.#codecs.get(formRefKey(ref))?.();
    if (codec === undefined) {
      throw new RegistryError(
        "no-codec",
        `takoform: no codec is compiled for the create target ${formatFormRef(ref)}`,
        this.renderedCodecRefsForKind(ref.kind),
      );
    }
    const served: ServedRef = { ref, codec };
    if (lineKey !== undefined) this.#defaultCreates.set(lineKey, served);
    return served;
  }

  /** The ref recorded in state, served only when Supported AND compiled; otherwise a RegistryError. */
  forStateRef(ref: FormRef): ServedRef {
    const held = this.registry.lookup(ref);
    const codec = held === undefined ? undefined : this.#codecs.get(formRefKey(held))?.();
    if (held === undefined || codec === undefined) {
      const known = this.renderedCodecRefsForKind(ref.kind);
      throw new RegistryError(
        held === undefined ? "unsupported-ref" : "no-codec",
        `takoform: state Form identity ${formatFormRef(ref)} is not supported by this build; it carries ${ref.kind} codecs for ${listRefs(known)}`,
        known,
      );
    }
    return { ref: held, codec };
  }

  /** forStateRef without the error: undefined is the fail-closed signal. */
  tryForStateRef(ref: FormRef): ServedRef | undefined {
    // A state's records name one ref after another, usually the same: the last one served is
    // compared member by member first, without building and hashing its key (a fresh string of
    // some 130 characters per call, several calls per resource).
    const last = this.#lastServed;
    if (last !== undefined && formRefsEqual(ref, last.ref)) return last.served;
    // Every record of a state names one of a few refs: each is looked up (grammars, membership,
    // codec) once per table. Only a served ref is remembered; its key has exactly three spaces,
    // and no string members spell that key but its own (no grammar admits a space).
    const strings =
      typeof ref.apiVersion === "string" && typeof ref.kind === "string" && typeof ref.definitionVersion === "string" && typeof ref.schemaDigest === "string";
    const key = strings ? formRefKey(ref) : undefined;
    const known = key === undefined ? undefined : this.#served.get(key);
    if (known !== undefined) {
      this.#lastServed = { ref: { ...ref }, served: known };
      return known;
    }
    const held = this.registry.lookup(ref);
    const codec = held === undefined ? undefined : this.#codecs.get(formRefKey(held))?.();
    if (held === undefined || codec === undefined) return undefined;
    const served: ServedRef = { ref: held, codec };
    if (key !== undefined) {
      this.#served.set(key, served);
      this.#lastServed = { ref: { ...ref }, served };
    }
    return served;
  }

  codec(ref: FormRef): FormCodec | undefined {
    return this.tryForStateRef(ref)?.codec;
  }

  /** Every served (supported and compiled) ref of a kind, rendered, sorted — for diagnostics. */
  renderedCodecRefsForKind(kind: string): string[] {
    return this.registry
      .supportedRefsForKind(kind)
      .filter((r) => this.#codecs.has(formRefKey(r)))
      .map(formatFormRef);
  }

  /** The codecs of one line in registry order. */
  codecsFor(line: GroupKind): FormCodec[] {
    return this.registry
      .supportedRefsFor(line)
      .map((r) => this.#codecs.get(formRefKey(r))?.())
      .filter((c): c is FormCodec => c !== undefined);
  }

  /** Resource types sorted by name, each as its lead line. */
  types(): ResourceTypeEntry[] {
    return [...this.#types.values()].map((lines) => lines[0]!).sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  }

  /** A resource type's lead line (the one describing its surface). */
  type(typeName: string): ResourceTypeEntry | undefined {
    return this.#types.get(typeName)?.[0];
  }

  /** Every line a resource type serves, lead first. */
  linesOf(typeName: string): readonly ResourceTypeEntry[] {
    return this.#types.get(typeName) ?? [];
  }

  /** The line of a resource type served under `lane`: its lane's line, else its lane-neutral one. */
  lineFor(typeName: string, lane: Lane): ResourceTypeEntry | undefined {
    return this.linesOf(typeName).find((line) => {
      const owner = laneOfGroup(line.apiVersion);
      return owner === undefined || owner === lane;
    });
  }

  /** The resource type serving a Form line, if any. */
  typeForLine(line: GroupKind): ResourceTypeEntry | undefined {
    const key = groupKindKey(line);
    for (const lines of this.#types.values()) for (const entry of lines) if (groupKindKey(entry) === key) return entry;
    return undefined;
  }
}

/** A lane-owned line sorts by its lane's preference; a lane-neutral one first. */
function lanePreference(entry: ResourceTypeEntry): number {
  const owner = laneOfGroup(entry.apiVersion);
  return owner === undefined ? -1 : LANES.indexOf(owner);
}

/** Entries by type name, each type's lines lead first. */
export function groupTypes(entries: readonly ResourceTypeEntry[]): Map<string, ResourceTypeEntry[]> {
  const out = new Map<string, ResourceTypeEntry[]>();
  for (const entry of entries) out.set(entry.type, [...(out.get(entry.type) ?? []), entry]);
  for (const lines of out.values()) lines.sort((a, b) => lanePreference(a) - lanePreference(b));
  return out;
}
