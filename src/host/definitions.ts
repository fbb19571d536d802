// Loading the Form, Interface and Binding Definitions a host installs, through src/forms'
// loader (found by shape, package digests from package indexes). Refused definitions are
// reported and not installed.

import { loadDefinitions } from "../forms/index.ts";
import type { CatalogInput } from "./catalog.ts";

export interface LoadedDefinitions extends CatalogInput {
  /** Definitions refused while loading (they are not installed). */
  problems: Error[];
}

export function loadDefinitionRoot(root: string): LoadedDefinitions {
  const loaded = loadDefinitions(root);
  return { forms: loaded.forms, interfaces: loaded.interfaces, bindings: loaded.bindings, problems: loaded.problems };
}
