// A project's generated registry loaded beside the bundled one.
// - Supported and DefaultCreates are merged with the registry's own rules: one exact identity
//   with two package digests, or one line with two default creates, is refused.
// - Resource types: the project's own types shadow bundled ones. A bundled type is dropped, with
//   every line it serves, when the project defines a type of the same NAME (the project redefines
//   it, e.g. with a real host's Forms) or a type for one of its Form LINES (one line is served by
//   exactly one type).
// - Codecs: the union; for the same exact ref the project's codec is used. No codec is read
//   while merging (the bundled ones are read lazily, see lazy-codecs.ts).

import { groupKindKey } from "../core/index.ts";
import { GENERATED_REGISTRY_FORMAT, type GeneratedRegistry, type ResourceTypeEntry } from "./generated-types.ts";
import { FormRegistry } from "./registry.ts";
import { mergeCodecRecords } from "./lazy-codecs.ts";

export interface CombinedRegistry {
  data: GeneratedRegistry;
  /** Bundled type names the project shadowed, sorted (for a notice). */
  shadowed: string[];
}

/** The bundled registry merged with a project's own (`.gen/takoform/`): a project type of the same name shadows the bundled one. */
export function combineGenerated(bundled: GeneratedRegistry, project: GeneratedRegistry): CombinedRegistry {
  const registry = FormRegistry.of(bundled.supported, bundled.defaultCreates).merge(FormRegistry.of(project.supported, project.defaultCreates));
  const projectNames = new Set(project.types.map((t) => t.type));
  const projectLines = new Set(project.types.map((t) => groupKindKey(t)));
  // A bundled type goes whole: all of its lines, when the project names it or serves any of them.
  const shadowedTypes = new Set(bundled.types.filter((t) => projectNames.has(t.type) || projectLines.has(groupKindKey(t))).map((t) => t.type));
  const shadowed = [...shadowedTypes];
  const types: ResourceTypeEntry[] = [...project.types];
  for (const entry of bundled.types) if (!shadowedTypes.has(entry.type)) types.push(entry);
  types.sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  const codecs = mergeCodecRecords(bundled.codecs, project.codecs);
  return {
    data: {
      format: GENERATED_REGISTRY_FORMAT,
      supported: registry.supportedRefs(),
      defaultCreates: registry
        .defaultCreates()
        .map(({ apiVersion, kind, definitionVersion, schemaDigest }) => ({ apiVersion, kind, definitionVersion, schemaDigest })),
      types,
      codecs,
    },
    shadowed: shadowed.sort(),
  };
}
