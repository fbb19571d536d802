// Loading every definition under a directory. Files are recognized by shape, never by name:
// a Form Definition, an Interface or Binding Definition, a package index; JSON Schema files and
// other JSON are parsed strictly and otherwise left alone. A refused definition becomes a
// problem (file + pointer) and is not listed; the rest of the catalog still loads.
//
// Catalog-level checks, which need more than one document:
// - a package index must name a loaded definition, agree with its identity, and match the
//   bytes of every file it lists (and list every file beside it);
// - two definitions may not share group, kind and definitionVersion (decision 0022 rule 1);
// - a binding-list relation's annotated contract must be one the Form accepts, and, when the
//   catalog holds that exact Binding Definition, it must require exactly the Binding's
//   targetInterface (decision 0022 rule 6), target a Form the Binding allows, and sit on a
//   Form whose role is the Binding's sourceRole.

import { readFileSync } from "node:fs";
import { join, posix, resolve } from "node:path";
import { readBindingDefinition, type BindingModel } from "./binding.ts";
import type { FormModel } from "./definition-types.ts";
import { classifyDocument, readFormDefinition } from "./definition.ts";
import { digestCanonical, type JsonValue } from "./digest.ts";
import { DefinitionError } from "./errors.ts";
import { readInterfaceDefinition, type InterfaceModel } from "./interface.ts";
import { listFiles } from "./list-files.ts";
import { PACKAGE_INDEX_FILE, readPackageIndex, verifyPackageFiles, type PackageIndex } from "./package-index.ts";
import { bindingRefKey, compareUtf8, formatFormRef, formRefsEqual, groupKindKey, interfaceRefsEqual } from "../core/index.ts";
import { relationSchemaPointer, REQUIRED_INTERFACE, TARGET_FORMREFS } from "./relations.ts";
import { child } from "./shape.ts";
import { parseStrictJson, StrictJsonError } from "./strict-json.ts";

export interface LoadedForm extends FormModel {
  /** Definition path relative to the catalog root, `/`-separated. */
  path: string;
  /** Canonical digest of the package index, or null when the Form has none. */
  packageDigest: string | null;
  packageIndex: PackageIndex | null;
  /** Absolute package directory (where fixture paths resolve). */
  directory: string;
}

export interface LoadedInterface extends InterfaceModel {
  path: string;
}

export interface LoadedBinding extends BindingModel {
  path: string;
}

export interface DefinitionCatalog {
  forms: LoadedForm[];
  interfaces: LoadedInterface[];
  bindings: LoadedBinding[];
  problems: DefinitionError[];
}

interface PendingIndex {
  path: string;
  document: JsonValue;
}

/** Reads every definition under `root`. Never throws for a bad file; see `problems`. */
export function loadDefinitions(root: string): DefinitionCatalog {
  const absoluteRoot = resolve(root);
  const files = listFiles(absoluteRoot);
  const forms: LoadedForm[] = [];
  const interfaces: LoadedInterface[] = [];
  const bindings: LoadedBinding[] = [];
  const problems: DefinitionError[] = [];
  const indexes: PendingIndex[] = [];
  // Files already reported or recognized as Forms: an index naming one needs no second problem.
  const accountedFor = new Set<string>();

  for (const path of files) {
    if (!path.endsWith(".json")) continue;
    let document: JsonValue;
    try {
      document = parseStrictJson(readFileSync(join(absoluteRoot, path)));
    } catch (error) {
      accountedFor.add(path);
      if (error instanceof StrictJsonError) {
        problems.push(new DefinitionError("json-invalid", error.pointer, error.message, { file: path, cause: error }));
      } else {
        problems.push(new DefinitionError("file-unreadable", "", String(error), { file: path, cause: error }));
      }
      continue;
    }
    try {
      switch (classifyDocument(document)) {
        case "form":
          accountedFor.add(path);
          forms.push({
            ...readFormDefinition(document, { file: path }),
            path,
            packageDigest: null,
            packageIndex: null,
            directory: join(absoluteRoot, posix.dirname(path)),
          });
          break;
        case "interface":
          interfaces.push({ ...readInterfaceDefinition(document, { file: path }), path });
          break;
        case "binding":
          bindings.push({ ...readBindingDefinition(document, { file: path }), path });
          break;
        case "package-index":
          indexes.push({ path, document });
          break;
        default:
          break;
      }
    } catch (error) {
      if (!(error instanceof DefinitionError)) throw error;
      problems.push(error);
    }
  }

  attachPackages(absoluteRoot, files, indexes, forms, accountedFor, problems);
  checkIdentities(forms, problems);
  const bindingsByRef = new Map(bindings.map((b) => [bindingRefKey(b.ref), b]));
  for (const form of forms) problems.push(...checkBindingRelations(form, bindingsByRef, form.path));

  const byPath = (a: { path: string }, b: { path: string }): number => compareUtf8(a.path, b.path);
  problems.sort((a, b) => compareUtf8(a.file ?? "", b.file ?? "") || compareUtf8(a.pointer, b.pointer));
  return { forms: forms.sort(byPath), interfaces: interfaces.sort(byPath), bindings: bindings.sort(byPath), problems };
}

function attachPackages(
  root: string,
  files: readonly string[],
  indexes: readonly PendingIndex[],
  forms: LoadedForm[],
  accountedFor: ReadonlySet<string>,
  problems: DefinitionError[],
): void {
  const formsByPath = new Map(forms.map((f) => [f.path, f]));
  for (const pending of indexes) {
    let index: PackageIndex;
    try {
      index = readPackageIndex(pending.document, { file: pending.path });
    } catch (error) {
      if (!(error instanceof DefinitionError)) throw error;
      problems.push(error);
      continue;
    }
    const directory = posix.dirname(pending.path);
    const definitionPath = directory === "." ? index.definitionPath : `${directory}/${index.definitionPath}`;
    const form = formsByPath.get(definitionPath);
    if (form === undefined) {
      // A definition refused on its own has already been reported; say nothing more about it.
      if (!accountedFor.has(definitionPath)) {
        problems.push(
          new DefinitionError("package-definition-missing", "/definitionPath", `${definitionPath} is not a Form Definition`, { file: pending.path }),
        );
      }
      continue;
    }
    if (form.packageIndex !== null) {
      problems.push(
        new DefinitionError("package-definition-missing", "/definitionPath", `${definitionPath} already belongs to another package index`, {
          file: pending.path,
        }),
      );
      continue;
    }
    form.packageIndex = index;
    form.packageDigest = digestCanonical(pending.document);
    form.directory = join(root, directory);
    if (!formRefsEqual(index.formRef, form.ref)) {
      problems.push(
        new DefinitionError(
          "package-formref-mismatch",
          "/formRef",
          `the index names ${formatFormRef(index.formRef)}, the definition is ${formatFormRef(form.ref)}`,
          { file: pending.path },
        ),
      );
    }
    const prefix = directory === "." ? "" : `${directory}/`;
    const present = files.filter((f) => f.startsWith(prefix) && f !== pending.path).map((f) => f.slice(prefix.length));
    problems.push(...verifyPackageFiles(index, join(root, directory), present, pending.path));
    const listed = new Set(index.files.map((f) => f.path));
    for (const fixturePath of fixturePaths(form)) {
      if (!listed.has(fixturePath.path)) {
        problems.push(
          new DefinitionError("package-fixture-unlisted", fixturePath.pointer, `${fixturePath.path} is not listed in ${PACKAGE_INDEX_FILE}`, {
            file: form.path,
          }),
        );
      }
    }
  }
}

/** Every payload path a definition names, with the pointer that names it. */
export function fixturePaths(form: FormModel): { path: string; pointer: string }[] {
  const out: { path: string; pointer: string }[] = [];
  (form.definition.conformanceFixtures ?? []).forEach((fixture, i) => {
    for (const key of ["desiredPath", "observedPath", "outputPath"] as const) {
      const path = fixture[key];
      if (path !== undefined) out.push({ path, pointer: child(child("/conformanceFixtures", i), key) });
    }
  });
  (form.definition.negativeConformanceFixtures ?? []).forEach((fixture, i) => {
    out.push({ path: fixture.inputPath, pointer: child(child("/negativeConformanceFixtures", i), "inputPath") });
  });
  return out;
}

/** One definition per group, kind and definitionVersion (decision 0022 rule 1). */
function checkIdentities(forms: readonly LoadedForm[], problems: DefinitionError[]): void {
  const seen = new Map<string, LoadedForm>();
  for (const form of forms) {
    const key = `${groupKindKey(form.ref)} ${form.ref.definitionVersion}`;
    const earlier = seen.get(key);
    if (earlier === undefined) {
      seen.set(key, form);
      continue;
    }
    const same = earlier.ref.schemaDigest === form.ref.schemaDigest;
    problems.push(
      new DefinitionError(
        same ? "form-duplicate" : "form-identity-conflict",
        "/definitionVersion",
        same
          ? `${formatFormRef(form.ref)} is also defined by ${earlier.path}`
          : `${form.ref.kind}@${form.ref.definitionVersion} of ${form.ref.apiVersion} is also defined, with different bytes, by ${earlier.path}; a definition version names one set of bytes`,
        { file: form.path },
      ),
    );
  }
}

/** Binding-list relations against the Form's acceptedBindings and the Binding Definitions held. */
export function checkBindingRelations(form: FormModel, bindings: ReadonlyMap<string, BindingModel>, file?: string): DefinitionError[] {
  const problems: DefinitionError[] = [];
  const accepted = form.definition.acceptedBindings ?? [];
  for (const relation of form.relations) {
    if (relation.binding === null) continue;
    const at = "/desiredSchema" + relationSchemaPointer(relation.pointer);
    const acceptedAt = accepted.findIndex((b) => b.name === relation.binding);
    if (acceptedAt < 0) {
      problems.push(
        new DefinitionError("binding-not-accepted", at, `relation ${relation.pointer} is bound by ${relation.binding}, which acceptedBindings does not list`, {
          file,
        }),
      );
      continue;
    }
    const binding = bindings.get(bindingRefKey(accepted[acceptedAt]!));
    if (binding === undefined) continue;
    const target = binding.definition.targetInterface;
    if (relation.requiredInterface === null || !interfaceRefsEqual(relation.requiredInterface, target)) {
      problems.push(
        new DefinitionError(
          "binding-interface-mismatch",
          `${at}/${relation.requiredInterface === null ? TARGET_FORMREFS : REQUIRED_INTERFACE}`,
          `relation ${relation.pointer} must require exactly ${target.name}@${target.version} ${target.schemaDigest}, the targetInterface of ${binding.ref.name}`,
          { file },
        ),
      );
    }
    if (!binding.definition.allowedTargetForms.some((gk) => groupKindKey(gk) === groupKindKey(relation.target))) {
      problems.push(
        new DefinitionError(
          "binding-target-form-not-allowed",
          at,
          `${relation.target.apiVersion} ${relation.target.kind} is not among the allowedTargetForms of ${binding.ref.name}`,
          { file },
        ),
      );
    }
    if (binding.definition.sourceRole !== form.definition.role) {
      problems.push(
        new DefinitionError(
          "binding-source-role-mismatch",
          `/acceptedBindings/${acceptedAt}`,
          `${binding.ref.name} may be held only by a ${binding.definition.sourceRole}-role Form`,
          { file },
        ),
      );
    }
  }
  return problems;
}
