// `takoform get` without the command line: definitions in, generated files out (as a map of
// layout-relative path → content). Nothing is rendered when any definition is refused or any
// naming rule fails.

import { formRefKey, groupKindKey } from "../core/index.ts";
import { GenerateError } from "./errors.ts";
import { GENERATED_HEADER, layoutFor, specifier, type Layout, type LayoutKind } from "./layout.ts";
import { buildModel, type GenerationLine, type GenerationModel } from "./model.ts";
import { codecPaths, renderCodecDocument, renderRegistryDocument, renderRegistryIndex, type RenderedFiles } from "./render-data.ts";
import { renderValidators } from "./render-validators.ts";
import { constructFileName, renderConstruct, renderConstructIndex } from "./render-constructs.ts";

export interface GenerateOptions {
  formsDirs: readonly string[];
  layout: LayoutKind;
  /** `<apiVersion>/<Kind>` → resource type name. */
  typeNames?: ReadonlyMap<string, string>;
  /** Base for file paths shown in problems. */
  displayBase?: string;
}

export interface GenerateResult {
  layout: Layout;
  model: GenerationModel | null;
  /** Layout-relative path → file content, sorted by path. Empty when there are problems. */
  files: RenderedFiles;
  problems: GenerateError[];
}

export function generate(options: GenerateOptions): GenerateResult {
  const layout = layoutFor(options.layout);
  const { model, problems } = buildModel({ formsDirs: options.formsDirs, typeNames: options.typeNames, displayBase: options.displayBase });
  if (model === null) return { layout, model, files: new Map(), problems };
  try {
    return { layout, model, files: render(layout, model), problems: [] };
  } catch (error) {
    if (!(error instanceof GenerateError)) throw error;
    return { layout, model, files: new Map(), problems: [error] };
  }
}

export function render(layout: Layout, model: GenerationModel): RenderedFiles {
  const files: [string, string][] = [];
  if (layout.kind === "bundled") {
    const paths = codecPaths(layout, model.codecs);
    for (const codec of model.codecs) files.push([paths.get(formRefKey(codec.ref))!, renderCodecDocument(codec)]);
    files.push([layout.registryIndex, renderRegistryIndex(layout, model, paths)]);
    for (const [path, source] of renderValidators(layout, model)) files.push([path, source]);
  } else {
    files.push([layout.registryIndex, renderRegistryDocument(model)]);
  }

  // Every line of every type, so a reference to any lane's line names its type's construct.
  const byLine = new Map<string, GenerationLine>(model.lines.flatMap((l) => l.lines.map((m) => [groupKindKey(m), l] as const)));
  for (const line of model.lines) {
    files.push([`${layout.constructsDir}/${constructFileName(line.type)}`, renderConstruct(layout, line, byLine)]);
  }
  files.push([`${layout.constructsDir}/index.gen.ts`, renderConstructIndex(layout, model)]);
  if (layout.rootIndex !== null) {
    files.push([
      layout.rootIndex,
      [
        GENERATED_HEADER,
        `// This project's construct classes. Its Form registry is ${layout.registryIndex}, which \`takoform\` loads beside the bundled one.`,
        `export * from "${specifier(layout, layout.rootIndex, `${layout.constructsDir}/index.gen.ts`)}";`,
        "",
      ].join("\n"),
    ]);
  }
  files.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return new Map(files);
}
