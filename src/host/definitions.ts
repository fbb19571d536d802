// Loading the Form, Interface and Binding Definitions a host installs, through src/forms'
// loader (found by shape, package digests from package indexes). Refused definitions are
// reported and not installed.

import { loadDefinitions, loadDefinitionsCached } from "../forms/index.ts";
import type { CatalogInput } from "./catalog.ts";

export interface LoadedDefinitions extends CatalogInput {
  /** Definitions refused while loading (they are not installed). */
  problems: Error[];
}

/** The definitions under `root`; with `cacheDir`, a clean load is kept there for the next host. */
export function loadDefinitionRoot(root: string, cacheDir?: string): LoadedDefinitions {
  const loaded = cacheDir === undefined ? loadDefinitions(root) : loadDefinitionsCached(root, cacheDir);
  return { forms: loaded.forms, interfaces: loaded.interfaces, bindings: loaded.bindings, problems: loaded.problems };
}
