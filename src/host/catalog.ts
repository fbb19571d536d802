// The exact-FormRef catalog of one lane (decision 0022 rules 1–2). Forms are keyed by the whole
// {apiVersion, kind, definitionVersion, schemaDigest}; there is no lookup by group and kind
// that could fall back to another definition. Interfaces and Bindings are keyed by
// name@version plus digest, because one name@version differs between lanes (each lane's catalog
// holds the contracts its own Forms name: src/host/lane-catalogs.ts).

import {
  type BindingDefinition,
  compileDesiredSchema,
  type FormDefinition,
  type InterfaceDefinition,
  type JsonObject,
  type JsonValue,
  type Relation,
} from "../forms/index.ts";
import { type BindingRef, bindingRefKey, formatFormRef, type FormRef, formRefKey, formRefsEqual, type InterfaceRef, interfaceRefKey } from "../core/index.ts";
import type { RulesRegistry } from "./rules/registry.ts";
import type { CatalogBinding, CatalogForm, CatalogInterface } from "./rules/types.ts";

/** What the definition loader hands the host, one entry per definition. */
export interface CatalogInput {
  forms: readonly {
    ref: FormRef;
    definition: FormDefinition;
    document: JsonValue;
    relations: readonly Relation[];
    declaresUpdate: boolean;
    packageDigest?: string | null | undefined;
    path?: string | undefined;
  }[];
  interfaces: readonly { ref: InterfaceRef; definition: InterfaceDefinition; path?: string | undefined }[];
  bindings: readonly { ref: BindingRef; definition: BindingDefinition; path?: string | undefined }[];
}

// A catalog entry names the rules that run on it, and the rules take entries: the entry types are
// declared beside the rules (rules/types.ts), so neither file imports the other.
export type { CatalogBinding, CatalogForm, CatalogInterface } from "./rules/types.ts";

/** Two definitions claim one group/kind/definitionVersion with different bytes. */
export class CatalogConflictError extends Error {
  override name = "CatalogConflictError";
}

export class Catalog {
  private readonly forms = new Map<string, CatalogForm>();
  /** The Form `form` found last. */
  private lastFound: CatalogForm | undefined;
  /** group kind definitionVersion → form: the support route names a definition version only. */
  private readonly byLine = new Map<string, CatalogForm>();
  private readonly interfaces = new Map<string, CatalogInterface>();
  private readonly interfacesByVersion = new Map<string, CatalogInterface[]>();
  private readonly bindings = new Map<string, CatalogBinding>();
  private readonly bindingsByVersion = new Map<string, CatalogBinding[]>();
  /** Exact Forms another lane of this host installs (formRefKey): known here, not installed. */
  private readonly elsewhere = new Set<string>();

  constructor(private readonly rules: RulesRegistry) {}

  /** Records the exact Forms other lanes of the host install. */
  markInstalledElsewhere(refs: Iterable<FormRef>): void {
    for (const ref of refs) {
      const key = formRefKey(ref);
      if (!this.forms.has(key)) this.elsewhere.add(key);
    }
  }

  /** The exact Form is installed under another lane of this host (and not under this one). */
  installedElsewhere(ref: Partial<FormRef>): boolean {
    if (ref.apiVersion === undefined || ref.kind === undefined || ref.definitionVersion === undefined || ref.schemaDigest === undefined) return false;
    return this.elsewhere.has(formRefKey(ref as FormRef));
  }

  /** Installs definitions. Identical re-installs are ignored; a digest conflict is refused. */
  install(input: CatalogInput): void {
    for (const f of input.forms) {
      const key = formRefKey(f.ref);
      if (this.forms.has(key)) continue;
      const lineKey = `${f.ref.apiVersion} ${f.ref.kind} ${f.ref.definitionVersion}`;
      const clash = this.byLine.get(lineKey);
      if (clash !== undefined) {
        throw new CatalogConflictError(
          `cannot install ${formatFormRef(f.ref)}${f.path ? ` (${f.path})` : ""}: definition version ${f.ref.definitionVersion} of ` +
            `${f.ref.apiVersion} ${f.ref.kind} is already installed with schema ${clash.ref.schemaDigest}` +
            `${clash.path ? ` (${clash.path})` : ""}; a definition version names one set of bytes`,
        );
      }
      const document = f.document as JsonObject;
      const desiredSchema = (document.desiredSchema ?? f.definition.desiredSchema) as JsonObject;
      const form: CatalogForm = {
        ref: { ...f.ref },
        packageDigest: f.packageDigest ?? undefined,
        definition: f.definition,
        desiredSchema,
        role: f.definition.role,
        declaresUpdate: f.declaresUpdate,
        relations: f.relations,
        validator: compileDesiredSchema(desiredSchema),
        outputValidator: f.definition.outputSchema === undefined ? undefined : compileDesiredSchema(f.definition.outputSchema),
        rules: this.rules.for(f.ref.apiVersion, f.ref.kind),
        path: f.path,
      };
      this.forms.set(key, form);
      this.byLine.set(lineKey, form);
    }
    for (const i of input.interfaces) {
      const key = interfaceRefKey(i.ref);
      if (this.interfaces.has(key)) continue;
      const entry = { ref: { ...i.ref }, definition: i.definition };
      this.interfaces.set(key, entry);
      const v = `${i.ref.name}@${i.ref.version}`;
      this.interfacesByVersion.set(v, [...(this.interfacesByVersion.get(v) ?? []), entry]);
    }
    for (const b of input.bindings) {
      const key = bindingRefKey(b.ref);
      if (this.bindings.has(key)) continue;
      const entry = { ref: { ...b.ref }, definition: b.definition };
      this.bindings.set(key, entry);
      const v = `${b.ref.name}@${b.ref.version}`;
      this.bindingsByVersion.set(v, [...(this.bindingsByVersion.get(v) ?? []), entry]);
    }
  }

  /** The Form installed at exactly this identity; a partial identity matches nothing. */
  form(ref: Partial<FormRef>): CatalogForm | undefined {
    if (ref.apiVersion === undefined || ref.kind === undefined || ref.definitionVersion === undefined || ref.schemaDigest === undefined) {
      return undefined;
    }
    // Every request of a large apply or refresh names the same Form: the last one found is
    // compared member by member, without building and hashing its key. Forms are only ever
    // added (install skips a key it holds), so a Form once found stays the answer.
    const last = this.lastFound;
    if (last !== undefined && formRefsEqual(ref as FormRef, last.ref)) return last;
    const form = this.forms.get(formRefKey(ref as FormRef));
    if (form !== undefined) this.lastFound = form;
    return form;
  }

  /** The one Form of a line at a definition version (the support route's key). */
  formAtVersion(apiVersion: string, kind: string, definitionVersion: string): CatalogForm | undefined {
    return this.byLine.get(`${apiVersion} ${kind} ${definitionVersion}`);
  }

  allForms(): CatalogForm[] {
    return [...this.forms.values()];
  }

  interface(ref: InterfaceRef): CatalogInterface | undefined {
    return this.interfaces.get(interfaceRefKey(ref));
  }

  /** Interfaces installed under one name@version, in install order. */
  interfacesAt(name: string, version: string): CatalogInterface[] {
    return this.interfacesByVersion.get(`${name}@${version}`) ?? [];
  }

  binding(ref: BindingRef): CatalogBinding | undefined {
    return this.bindings.get(bindingRefKey(ref));
  }

  bindingsAt(name: string, version: string): CatalogBinding[] {
    return this.bindingsByVersion.get(`${name}@${version}`) ?? [];
  }

  get size(): { forms: number; interfaces: number; bindings: number } {
    return { forms: this.forms.size, interfaces: this.interfaces.size, bindings: this.bindings.size };
  }
}
