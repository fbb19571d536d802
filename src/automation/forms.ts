// `readForms`: the Form, Interface and Binding Definitions under a directory as plain values, and
// optionally the verdict of every conformance fixture their packages list (`takoform forms`).
// A refused definition is a diagnostic in the result, never a throw: a program lists what it can.

import type { Diagnostic, FormRef } from "../core/index.ts";
import { checkFixtures, definitionDiagnostic, loadDefinitions, type LoadedForm } from "../forms/index.ts";

/** What {@link readForms} found under a directory; every path is relative to it, `/`-separated. */
export interface FormsReport {
  /** Each Form Definition, with its exact identity and the relations its schema declares. */
  readonly definitions: readonly {
    readonly path: string;
    readonly formRef: FormRef;
    /** Canonical digest of the Form's package index, or null when it has none. */
    readonly packageDigest: string | null;
    readonly role: string;
    readonly lifecycleCapabilities: readonly string[];
    /** Whether the Form declares in-place update (otherwise a change replaces). */
    readonly declaresUpdate: boolean;
    /** Each reference its desired spec makes to another resource: by pinned FormRefs or by a required Interface. */
    readonly relations: readonly {
      readonly pointer: string;
      readonly target: { readonly apiVersion: string; readonly kind: string };
      readonly required: boolean;
      readonly binding: string | null;
      readonly targetFormRefs: readonly FormRef[] | null;
      readonly requiredInterface: { readonly apiVersion: string; readonly name: string; readonly version: string; readonly schemaDigest: string } | null;
    }[];
  }[];
  /** Each Interface Definition, by its exact identity. */
  readonly interfaces: readonly {
    readonly path: string;
    readonly ref: { readonly apiVersion: string; readonly name: string; readonly version: string; readonly schemaDigest: string };
  }[];
  /** Each Binding Definition, by its exact identity. */
  readonly bindings: readonly {
    readonly path: string;
    readonly ref: { readonly apiVersion: string; readonly name: string; readonly version: string; readonly schemaDigest: string };
  }[];
  /** With `fixtures: true`, every conformance fixture's verdict: positive ones must validate, negative ones must fail. */
  readonly fixtures?: readonly {
    /** The Form's definition path. */
    readonly form: string;
    readonly fixture: string;
    readonly expected: "valid" | "invalid";
    readonly actual: "valid" | "invalid";
    readonly ok: boolean;
    /** Where a fixture that should have validated did not. */
    readonly violations?: readonly { readonly pointer: string; readonly keyword: string; readonly message: string }[];
    /** Why the fixture could not be checked at all (unreadable, or not strict JSON). */
    readonly error?: string;
  }[];
  /** Each refused definition, with its file and JSON pointer; nothing is read from it. */
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Reads every Form, Interface and Binding Definition under `dir` (found by shape, not by name).
 * With `fixtures: true` it also runs the conformance fixtures each Form's package lists. Never
 * throws for a bad definition: it is one of the result's diagnostics.
 */
export function readForms(dir: string, options: { readonly fixtures?: boolean } = {}): FormsReport {
  const catalog = loadDefinitions(dir);
  return {
    definitions: catalog.forms.map(definitionOf),
    interfaces: catalog.interfaces.map((i) => ({ path: i.path, ref: i.ref })),
    bindings: catalog.bindings.map((b) => ({ path: b.path, ref: b.ref })),
    ...(options.fixtures === true ? { fixtures: catalog.forms.flatMap((form) => checkFixtures(form)) } : {}),
    diagnostics: catalog.problems.map((problem) => definitionDiagnostic(problem)),
  };
}

function definitionOf(form: LoadedForm): FormsReport["definitions"][number] {
  return {
    path: form.path,
    formRef: form.ref,
    packageDigest: form.packageDigest,
    role: form.definition.role,
    lifecycleCapabilities: [...form.definition.lifecycleCapabilities],
    declaresUpdate: form.declaresUpdate,
    relations: form.relations,
  };
}
