// Renders the data parts. Bundled: one JSON document per codec (read when first used) and the
// registry index (TypeScript, compiled with the package) that names them. Project: one JSON
// document holding the whole registry, which the `takoform` command reads as data. Output is deterministic: inputs are sorted, JSON is printed with two-space indentation, and
// nothing depends on time or on the machine.

import { formatFormRef, formRefKey } from "../core/index.ts";
import { type FormCodec, GENERATED_REGISTRY_FORMAT, type ResourceTypeEntry } from "../registry/index.ts";
import { GenerateError } from "./errors.ts";
import { GENERATED_HEADER, runtimeImport, type Layout } from "./layout.ts";
import type { GenerationModel } from "./model.ts";
import { groupHost, groupLabel, groupVersion } from "./naming.ts";

export type RenderedFiles = Map<string, string>;

/** JSON with two-space indentation, each line after the first indented by `indent`. */
export function json(value: unknown, indent = ""): string {
  return JSON.stringify(value, null, 2).split("\n").join(`\n${indent}`);
}

/** `codecs/<family>/<version>/<slug>@<definitionVersion>.gen.json` for every codec. */
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
    const path = `${codecsDir}/${family}/${groupVersion(c.ref.apiVersion)}/${c.slug}@${c.ref.definitionVersion}.gen.json`;
    const earlier = owners.get(path);
    if (earlier !== undefined) {
      throw new GenerateError("type-name", undefined, "", `${formatFormRef(c.ref)} and ${formatFormRef(earlier.ref)} would share the codec file ${path}`);
    }
    owners.set(path, c);
    out.set(formRefKey(c.ref), path);
  }
  return out;
}

/** The generated header as the `//` member of a JSON document (JSON has no comments). */
function headerMember(what: string): string {
  return `${GENERATED_HEADER.slice(3)} ${what}`;
}

export function renderCodecDocument(codec: FormCodec): string {
  return `${json({ "//": headerMember(`The codec of ${formatFormRef(codec.ref)}: the field set that exact definition declares.`), ...codec })}\n`;
}

/** One entry per line of every type, sorted by type name, then lead line first. */
export function typeEntries(model: GenerationModel): ResourceTypeEntry[] {
  return model.lines.flatMap((l) => l.lines.map((m) => ({ type: l.type, apiVersion: m.apiVersion, kind: m.kind, className: l.className })));
}

export function renderRegistryIndex(layout: Layout, model: GenerationModel, codecFiles: ReadonlyMap<string, string>): string {
  const path = layout.registryIndex;
  const files: Record<string, string> = {};
  for (const codec of model.codecs) files[formRefKey(codec.ref)] = codecFiles.get(formRefKey(codec.ref))!;
  return [
    GENERATED_HEADER,
    "// Supported (every exact ref with its package digest), DefaultCreates (one exact ref per Form",
    "// line), the resource type serving each line, and the codecs: each a JSON document (path relative",
    "// to the package root) read when first used. Load it with CodecTable.fromGenerated.",
    `import { lazyCodecs, type GeneratedRegistry } from "${runtimeImport(layout, path, "registry-types")}";`,
    "",
    "export const takoformRegistry: GeneratedRegistry = {",
    `  format: ${GENERATED_REGISTRY_FORMAT},`,
    `  supported: ${json(model.supported, "  ")},`,
    `  defaultCreates: ${json(model.defaultCreates, "  ")},`,
    `  types: ${json(typeEntries(model), "  ")},`,
    `  codecs: lazyCodecs(${json(files, "  ")}),`,
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
    "//": headerMember("The Form registry of this project: Supported, DefaultCreates, resource types and codecs."),
    format: GENERATED_REGISTRY_FORMAT,
    supported: model.supported,
    defaultCreates: model.defaultCreates,
    types: typeEntries(model),
    codecs,
  };
  return `${json(document)}\n`;
}
