// Renders the data parts. Bundled: one module per codec, the codec index, and the registry index
// (TypeScript, compiled with the package). Project: one JSON document holding the whole registry,
// which the `takoform` command reads as data. Output is deterministic: inputs are sorted, JSON is printed with two-space indentation, and
// nothing depends on time or on the machine.

import { formatFormRef, formRefKey } from "../forms/refs.ts";
import type { FormCodec } from "../registry/codec-types.ts";
import { GENERATED_REGISTRY_FORMAT, type ResourceTypeEntry } from "../registry/generated-types.ts";
import { GenerateError } from "./errors.ts";
import { GENERATED_HEADER, runtimeImport, specifier, type Layout } from "./layout.ts";
import type { GenerationModel } from "./model.ts";
import { groupHost, groupLabel, groupVersion } from "./naming.ts";

export type RenderedFiles = Map<string, string>;

/** JSON with two-space indentation, each line after the first indented by `indent`. */
export function json(value: unknown, indent = ""): string {
  return JSON.stringify(value, null, 2).split("\n").join(`\n${indent}`);
}

/** `codecs/<family>/<version>/<slug>@<definitionVersion>.gen.ts` for every codec. */
export function codecPaths(layout: Layout, codecs: readonly FormCodec[]): Map<string, string> {
  const codecsDir = layout.codecsDir;
  if (codecsDir === null) throw new Error(`the ${layout.kind} layout has no codec modules`);
  // The family folder is the group's first DNS label, unless another group of the set with a
  // different host shares that label; then it is the whole host.
  const hostsByLabel = new Map<string, Set<string>>();
  for (const c of codecs) {
    const label = groupLabel(c.ref.apiVersion);
    hostsByLabel.set(label, (hostsByLabel.get(label) ?? new Set()).add(groupHost(c.ref.apiVersion)));
  }
  const out = new Map<string, string>();
  const owners = new Map<string, FormCodec>();
  for (const c of codecs) {
    const label = groupLabel(c.ref.apiVersion);
    const family = hostsByLabel.get(label)!.size > 1 ? groupHost(c.ref.apiVersion) : label;
    const path = `${codecsDir}/${family}/${groupVersion(c.ref.apiVersion)}/${c.slug}@${c.ref.definitionVersion}.gen.ts`;
    const earlier = owners.get(path);
    if (earlier !== undefined) {
      throw new GenerateError("type-name", undefined, "", `${formatFormRef(c.ref)} and ${formatFormRef(earlier.ref)} would share the codec file ${path}`);
    }
    owners.set(path, c);
    out.set(formRefKey(c.ref), path);
  }
  return out;
}

export function renderCodecModule(layout: Layout, path: string, codec: FormCodec): string {
  return [
    GENERATED_HEADER,
    `// The codec of ${formatFormRef(codec.ref)}: the field set that exact definition declares.`,
    `import type { FormCodec } from "${runtimeImport(layout, path, "registry-types")}";`,
    "",
    `export const codec: FormCodec = ${json(codec)};`,
    "",
  ].join("\n");
}

export function renderCodecIndex(layout: Layout, model: GenerationModel, paths: ReadonlyMap<string, string>): string {
  const index = `${layout.codecsDir}/index.gen.ts`;
  const lines = [
    GENERATED_HEADER,
    "// Every codec of this generation set, keyed by formRefKey(ref).",
    `import type { FormCodec } from "${runtimeImport(layout, index, "registry-types")}";`,
  ];
  model.codecs.forEach((codec, i) => {
    lines.push(`import { codec as codec${i} } from "${specifier(layout, index, paths.get(formRefKey(codec.ref))!)}";`);
  });
  lines.push("", "export const codecs: Readonly<Record<string, FormCodec>> = {");
  model.codecs.forEach((codec, i) => lines.push(`  ${JSON.stringify(formRefKey(codec.ref))}: codec${i},`));
  lines.push("};", "");
  return lines.join("\n");
}

export function typeEntries(model: GenerationModel): ResourceTypeEntry[] {
  return model.lines.map((l) => ({ type: l.type, apiVersion: l.apiVersion, kind: l.kind, className: l.className }));
}

export function renderRegistryIndex(layout: Layout, model: GenerationModel): string {
  const path = layout.registryIndex;
  return [
    GENERATED_HEADER,
    "// Supported (every exact ref with its package digest), DefaultCreates (one exact ref per Form",
    "// line), the resource type serving each line, and the codecs. Load it with CodecTable.fromGenerated.",
    `import type { GeneratedRegistry } from "${runtimeImport(layout, path, "registry-types")}";`,
    `import { codecs } from "${specifier(layout, path, `${layout.codecsDir}/index.gen.ts`)}";`,
    "",
    "export const takoformRegistry: GeneratedRegistry = {",
    `  format: ${GENERATED_REGISTRY_FORMAT},`,
    `  supported: ${json(model.supported, "  ")},`,
    `  defaultCreates: ${json(model.defaultCreates, "  ")},`,
    `  types: ${json(typeEntries(model), "  ")},`,
    "  codecs,",
    "};",
    "",
  ].join("\n");
}

/**
 * A project's registry as one JSON document (a GeneratedRegistry): `takoform` reads it with
 * readGeneratedRegistry, with no module loader involved. Codecs are keyed by formRefKey(ref).
 */
export function renderRegistryDocument(model: GenerationModel): string {
  const codecs: Record<string, FormCodec> = {};
  for (const codec of model.codecs) codecs[formRefKey(codec.ref)] = codec;
  const document = {
    "//": `${GENERATED_HEADER.slice(3)} The Form registry of this project: Supported, DefaultCreates, resource types and codecs.`,
    format: GENERATED_REGISTRY_FORMAT,
    supported: model.supported,
    defaultCreates: model.defaultCreates,
    types: typeEntries(model),
    codecs,
  };
  return `${json(document)}\n`;
}
