// The exact-FormRef registry (decision 0017 rules 1–4). Two maps:
// - Supported: the whole {apiVersion, kind, definitionVersion, schemaDigest} → the ref plus its
//   package digest. Every identity the build can read, observe, update and delete.
// - DefaultCreates: {apiVersion, kind} → the one exact identity a NEW resource of that line is
//   created under.
// The package digest is provenance carried in the value, never part of a key. A registry is an
// immutable snapshot: register and merge return a new registry and leave the receiver as it was.

import { compareUtf8, formatFormRef, type FormRef, formRefKey, type GroupKind, groupKindKey } from "../core/index.ts";
import { listRefs, RegistryError } from "./errors.ts";

/** A supported exact identity with the package digest it was distributed under. */
export interface SupportedRef extends FormRef {
  /** Canonical digest of the package index; null for a bare definition. Audit evidence only. */
  packageDigest: string | null;
}

export interface RegisterOptions {
  /** Also make this ref the default create of its line. Without it the default never moves. */
  asDefaultCreate?: boolean;
}

const IDENTITY_MEMBERS = ["apiVersion", "kind", "definitionVersion", "schemaDigest"] as const;

function compareRefs(a: FormRef, b: FormRef): number {
  return (
    compareUtf8(a.apiVersion, b.apiVersion) ||
    compareUtf8(a.kind, b.kind) ||
    compareUtf8(a.definitionVersion, b.definitionVersion) ||
    compareUtf8(a.schemaDigest, b.schemaDigest)
  );
}

function freezeRef(ref: SupportedRef): SupportedRef {
  return Object.freeze({
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    definitionVersion: ref.definitionVersion,
    schemaDigest: ref.schemaDigest,
    packageDigest: ref.packageDigest ?? null,
  });
}

function isComplete(ref: Partial<FormRef> | undefined): ref is FormRef {
  return ref !== undefined && IDENTITY_MEMBERS.every((m) => typeof ref[m] === "string" && ref[m] !== "");
}

/** An immutable snapshot of the Supported and DefaultCreates tables keyed by exact FormRef; every lookup fails closed. */
export class FormRegistry {
  /** formRefKey → supported ref. */
  readonly #supported: ReadonlyMap<string, SupportedRef>;
  /** groupKindKey → formRefKey of the default create. */
  readonly #defaults: ReadonlyMap<string, string>;
  /** Sorted once per snapshot (a snapshot never changes). */
  #sorted: readonly SupportedRef[] | undefined;

  private constructor(supported: Map<string, SupportedRef>, defaults: Map<string, string>) {
    this.#supported = supported;
    this.#defaults = defaults;
  }

  static empty(): FormRegistry {
    return new FormRegistry(new Map(), new Map());
  }

  /** Builds a registry from data: every supported ref, and the default-create refs among them. */
  static of(supported: readonly SupportedRef[], defaultCreates: readonly FormRef[] = []): FormRegistry {
    let registry = FormRegistry.empty();
    for (const ref of supported) registry = registry.register(ref);
    for (const ref of defaultCreates) {
      const held = registry.lookup(ref);
      if (held === undefined) {
        throw new RegistryError(
          "default-not-supported",
          `takoform: default create Form ${formatFormRef(ref)} is not in the supported set; known ${ref.kind} refs: ${listRefs(registry.renderedRefsForKind(ref.kind))}`,
          registry.renderedRefsForKind(ref.kind),
        );
      }
      registry = registry.register(held, { asDefaultCreate: true });
    }
    return registry;
  }

  /**
   * Returns a new registry that also supports `ref` (and, with asDefaultCreate, creates its line
   * under it). Re-registering an identical ref is a no-op; the same identity with another package
   * digest is refused.
   */
  register(ref: SupportedRef, options: RegisterOptions = {}): FormRegistry {
    if (!isComplete(ref)) {
      throw new RegistryError("incomplete-ref", "takoform: a registered FormRef must carry apiVersion, kind, definitionVersion and schemaDigest");
    }
    const key = formRefKey(ref);
    const held = this.#supported.get(key);
    const packageDigest = ref.packageDigest ?? null;
    if (held !== undefined && held.packageDigest !== packageDigest) {
      throw new RegistryError(
        "conflicting-provenance",
        `takoform: exact Form identity ${formatFormRef(ref)} is already registered with different package provenance (held ${held.packageDigest ?? "none"}, offered ${packageDigest ?? "none"})`,
        this.renderedRefsForKind(ref.kind),
      );
    }
    const lineKey = groupKindKey(ref);
    const promote = options.asDefaultCreate === true && this.#defaults.get(lineKey) !== key;
    if (held !== undefined && !promote) return this;
    const supported = new Map(this.#supported);
    if (held === undefined) supported.set(key, freezeRef({ ...ref, packageDigest }));
    const defaults = new Map(this.#defaults);
    if (promote) defaults.set(lineKey, key);
    return new FormRegistry(supported, defaults);
  }

  /**
   * A registry holding both snapshots (a project registry beside the bundled one). The same
   * identity with different package digests, or one line with two different default creates,
   * is refused.
   */
  merge(other: FormRegistry): FormRegistry {
    let merged: FormRegistry = this;
    for (const ref of other.supportedRefs()) merged = merged.register(ref);
    for (const [lineKey, key] of other.#defaults) {
      const mine = merged.#defaults.get(lineKey);
      const ref = other.#supported.get(key)!;
      if (mine !== undefined && mine !== key) {
        const held = merged.#supported.get(mine)!;
        throw new RegistryError(
          "conflicting-default",
          `takoform: ${ref.apiVersion} kind "${ref.kind}" has two default create Forms: ${formatFormRef(held)} and ${formatFormRef(ref)}`,
          merged.renderedRefsForKind(ref.kind),
        );
      }
      merged = merged.register(ref, { asDefaultCreate: true });
    }
    return merged;
  }

  /** The supported ref with exactly this identity (all four members), or undefined: the fail-closed signal. */
  lookup(ref: FormRef): SupportedRef | undefined {
    if (!isComplete(ref)) return undefined;
    return this.#supported.get(formRefKey(ref));
  }

  /** Like lookup, but a miss is a RegistryError naming the ref and every known ref of its kind. */
  require(ref: FormRef): SupportedRef {
    const held = this.lookup(ref);
    if (held !== undefined) return held;
    const known = this.renderedRefsForKind(ref.kind);
    throw new RegistryError(
      "unsupported-ref",
      `takoform: Form identity ${formatFormRef(ref)} is not supported by this build; it carries ${ref.kind} refs: ${listRefs(known)}`,
      known,
    );
  }

  has(ref: FormRef): boolean {
    return this.lookup(ref) !== undefined;
  }

  /** The exact identity new resources of a line are created under. */
  defaultCreate(line: GroupKind): SupportedRef {
    const key = this.#defaults.get(groupKindKey(line));
    if (key === undefined) {
      const known = this.renderedRefsForKind(line.kind);
      throw new RegistryError(
        "no-default-create",
        `takoform: this build has no default create Form for ${line.apiVersion} kind "${line.kind}"; known ${line.kind} refs: ${listRefs(known)}`,
        known,
      );
    }
    const ref = this.#supported.get(key);
    if (ref === undefined) {
      // Unreachable through register(); kept so a corrupt snapshot still fails closed.
      throw new RegistryError("default-not-supported", `takoform: default create Form ${key} is not in the supported set`, this.renderedRefsForKind(line.kind));
    }
    return ref;
  }

  /** Whether the line has a default create. */
  hasDefaultCreate(line: GroupKind): boolean {
    return this.#defaults.has(groupKindKey(line));
  }

  /** Every supported ref, sorted by apiVersion, kind, definitionVersion, schemaDigest. */
  supportedRefs(): SupportedRef[] {
    this.#sorted ??= [...this.#supported.values()].sort(compareRefs);
    return [...this.#sorted];
  }

  /** The supported refs of one Form line, sorted. */
  supportedRefsFor(line: GroupKind): SupportedRef[] {
    return this.supportedRefs().filter((r) => r.apiVersion === line.apiVersion && r.kind === line.kind);
  }

  /** The supported refs of one kind across every group, sorted. */
  supportedRefsForKind(kind: string): SupportedRef[] {
    return this.supportedRefs().filter((r) => r.kind === kind);
  }

  /** Every default create ref, sorted. */
  defaultCreates(): SupportedRef[] {
    return [...this.#defaults.values()].map((key) => this.#supported.get(key)!).sort(compareRefs);
  }

  /** The refs of a kind rendered for a diagnostic (`<apiVersion> <Kind>@<v> schema=<digest>`). */
  renderedRefsForKind(kind: string): string[] {
    return this.supportedRefsForKind(kind).map(formatFormRef);
  }

  get size(): number {
    return this.#supported.size;
  }
}
