// The generation model: every definition under the --forms directories, turned into codecs,
// grouped into Form lines with a default create each, and named (resource type + class).
// Problems from any step are collected; a model with problems is never rendered.

import { basename, dirname, join, relative, resolve } from "node:path";
import { type JsonValue, loadDefinitions, type LoadedForm } from "../forms/index.ts";
import { compareUtf8, formatFormRef, type FormRef, formRefKey, groupKindKey, laneOfGroup, LANES } from "../core/index.ts";
import { CodecSurfaceError, type FormCodec, resourceTypeSchema, type ResourceTypeSchema, type SupportedRef } from "../registry/index.ts";
import { scanCandidateSets, type CandidateEntry } from "./candidates.ts";
import { deriveCodec } from "./derive-codec.ts";
import { GenerateError } from "./errors.ts";
import { compareSemver } from "./semver.ts";
import { nameLines, TypeNameErrors } from "./type-names.ts";

/** A lane-owned line sorts by its lane's preference; a lane-neutral one first. */
function lanePreference(apiVersion: string): number {
  const owner = laneOfGroup(apiVersion);
  return owner === undefined ? -1 : LANES.indexOf(owner);
}

/**
 * One resource type of the generation set. It serves one Form line, or one Edge family line per
 * Host API lane; `apiVersion`/`kind`/`defaultCodec` are its lead line's (the preferred lane's),
 * which decides its surface and its construct.
 */
export interface GenerationLine {
  apiVersion: string;
  kind: string;
  type: string;
  className: string;
  /** Every line the type serves, lead first, each with its default create. */
  lines: { apiVersion: string; kind: string; defaultCodec: FormCodec }[];
  /** The codecs of every line, in registry order. */
  codecs: FormCodec[];
  defaultCodec: FormCodec;
  schema: ResourceTypeSchema;
}

export interface GenerationModel {
  /** Every codec, sorted by exact ref. */
  codecs: FormCodec[];
  /** Lines sorted by type name. */
  lines: GenerationLine[];
  supported: SupportedRef[];
  defaultCreates: FormRef[];
  /** Every definition the set supports, sorted by exact ref (their schemas get precompiled validators). */
  definitions: { ref: FormRef; document: JsonValue }[];
}

export interface ModelOptions {
  /** Directories holding Form packages (searched recursively). */
  formsDirs: readonly string[];
  /** `<apiVersion>/<Kind>` → resource type name. */
  typeNames?: ReadonlyMap<string, string>;
  /** Base for the file paths shown in problems (default: the current directory). */
  displayBase?: string;
}

export interface ModelResult {
  model: GenerationModel | null;
  problems: GenerateError[];
}

interface SourcedForm {
  form: LoadedForm;
  /** Definition path as shown to the user. */
  file: string;
}

export function compareRefs(a: FormRef, b: FormRef): number {
  return (
    compareUtf8(a.apiVersion, b.apiVersion) ||
    compareUtf8(a.kind, b.kind) ||
    compareUtf8(a.definitionVersion, b.definitionVersion) ||
    compareUtf8(a.schemaDigest, b.schemaDigest)
  );
}

export function buildModel(options: ModelOptions): ModelResult {
  const base = resolve(options.displayBase ?? process.cwd());
  const problems: GenerateError[] = [];
  const forms: SourcedForm[] = [];
  const candidates: CandidateEntry[] = [];

  for (const dir of options.formsDirs) {
    const root = resolve(dir);
    const display = (path: string): string => relative(base, join(root, path)).split("\\").join("/");
    const catalog = loadDefinitions(root);
    for (const p of catalog.problems) {
      problems.push(new GenerateError("definition-refused", p.file === undefined ? undefined : display(p.file), p.pointer, `${p.detail} [${p.code}]`));
    }
    for (const form of catalog.forms) forms.push({ form, file: display(form.path) });
    const scan = scanCandidateSets(root, display);
    candidates.push(...scan.entries);
    problems.push(...scan.problems);
  }

  // One definition per group, kind and definitionVersion across every directory.
  const byIdentity = new Map<string, SourcedForm>();
  for (const sourced of forms) {
    const ref = sourced.form.ref;
    const key = `${groupKindKey(ref)} ${ref.definitionVersion}`;
    const earlier = byIdentity.get(key);
    if (earlier !== undefined) {
      problems.push(new GenerateError("duplicate-definition", sourced.file, "/definitionVersion", `${formatFormRef(ref)} is also defined by ${earlier.file}`));
      continue;
    }
    byIdentity.set(key, sourced);
  }

  const codecs: FormCodec[] = [];
  for (const { form, file } of byIdentity.values()) {
    try {
      codecs.push(deriveCodec(form, { file, directoryName: basename(dirname(join("/", form.path))), packageDigest: form.packageDigest }));
    } catch (error) {
      if (!(error instanceof GenerateError)) throw error;
      problems.push(error);
    }
  }
  codecs.sort((a, b) => compareRefs(a.ref, b.ref));
  const loadedKeys = new Set(forms.map((f) => formRefKey(f.form.ref)));
  const codecByKey = new Map(codecs.map((c) => [formRefKey(c.ref), c]));

  // Lines and their default creates.
  const lineCodecs = new Map<string, FormCodec[]>();
  for (const codec of codecs) {
    const key = groupKindKey(codec.ref);
    lineCodecs.set(key, [...(lineCodecs.get(key) ?? []), codec]);
  }
  const defaults = new Map<string, { codec: FormCodec; entry: CandidateEntry }>();
  for (const entry of candidates) {
    const codec = codecByKey.get(formRefKey(entry.formRef));
    if (codec === undefined) {
      // A definition that loaded but could not become a codec has already been reported.
      if (loadedKeys.has(formRefKey(entry.formRef))) continue;
      problems.push(
        new GenerateError("candidate-set", entry.file, `${entry.pointer}/formRef`, `names ${formatFormRef(entry.formRef)}, which no loaded definition is`),
      );
      continue;
    }
    if (entry.packageDigest !== null && entry.packageDigest !== codec.packageDigest) {
      problems.push(
        new GenerateError(
          "candidate-set",
          entry.file,
          `${entry.pointer}/packageDigest`,
          `is ${entry.packageDigest}, but the package of ${formatFormRef(codec.ref)} digests to ${codec.packageDigest ?? "nothing (no package index)"}`,
        ),
      );
      continue;
    }
    const key = groupKindKey(codec.ref);
    const earlier = defaults.get(key);
    if (earlier !== undefined && earlier.codec !== codec) {
      problems.push(
        new GenerateError(
          "candidate-set",
          entry.file,
          entry.pointer,
          `a second default create for ${codec.ref.apiVersion} ${codec.ref.kind}: ${formatFormRef(earlier.codec.ref)} (${earlier.entry.file}) and ${formatFormRef(codec.ref)}`,
        ),
      );
      continue;
    }
    defaults.set(key, { codec, entry });
  }

  const lineList = [...lineCodecs.entries()].map(([key, list]) => {
    // No candidate set names the line: the highest definitionVersion is its default create.
    const defaultCodec = defaults.get(key)?.codec ?? [...list].sort((a, b) => compareSemver(b.ref.definitionVersion, a.ref.definitionVersion))[0]!;
    return { apiVersion: defaultCodec.ref.apiVersion, kind: defaultCodec.ref.kind, slug: defaultCodec.slug, codecs: list, defaultCodec };
  });

  let names: Map<string, { type: string; className: string }> = new Map();
  try {
    names = nameLines(lineList, options.typeNames);
  } catch (error) {
    if (error instanceof TypeNameErrors) problems.push(...error.problems);
    else if (error instanceof GenerateError) problems.push(error);
    else throw error;
  }

  // Lines named alike (one Edge kind across lanes) become one type, lead line first.
  const byType = new Map<string, typeof lineList>();
  for (const line of lineList) {
    const name = names.get(groupKindKey(line));
    if (name === undefined) continue;
    byType.set(name.type, [...(byType.get(name.type) ?? []), line]);
  }
  const lines: GenerationLine[] = [];
  for (const [type, members] of byType) {
    members.sort((a, b) => lanePreference(a.apiVersion) - lanePreference(b.apiVersion));
    const lead = members[0]!;
    const name = names.get(groupKindKey(lead))!;
    const codecs = members.flatMap((m) => m.codecs).sort((a, b) => compareRefs(a.ref, b.ref));
    try {
      const schema = resourceTypeSchema(type, codecs, lead.defaultCodec, members);
      lines.push({
        apiVersion: lead.apiVersion,
        kind: lead.kind,
        type,
        className: name.className,
        lines: members.map((m) => ({ apiVersion: m.apiVersion, kind: m.kind, defaultCodec: m.defaultCodec })),
        codecs,
        defaultCodec: lead.defaultCodec,
        schema,
      });
    } catch (error) {
      if (!(error instanceof CodecSurfaceError)) throw error;
      const offender =
        codecs.find((c) => c.fields.some((f) => f.attribute === error.attribute) || c.outputs.some((o) => o.attribute === error.attribute)) ??
        lead.defaultCodec;
      const file = byIdentity.get(`${groupKindKey(offender.ref)} ${offender.ref.definitionVersion}`)?.file;
      problems.push(
        new GenerateError(
          error.code === "reserved-attribute" || error.code === "output-collision" ? "attribute-name" : "line-surface",
          file,
          "",
          error.message,
        ),
      );
    }
  }
  lines.sort((a, b) => compareUtf8(a.type, b.type));

  if (problems.length > 0) return { model: null, problems: sortProblems(problems) };
  const supported: SupportedRef[] = codecs.map((c) => ({ ...c.ref, packageDigest: c.packageDigest }));
  const defaultCreates: FormRef[] = lines.flatMap((l) => l.lines.map((m) => ({ ...m.defaultCodec.ref }))).sort(compareRefs);
  const definitions = [...byIdentity.values()].map(({ form }) => ({ ref: form.ref, document: form.document })).sort((a, b) => compareRefs(a.ref, b.ref));
  return { model: { codecs, lines, supported, defaultCreates, definitions }, problems: [] };
}

function sortProblems(problems: GenerateError[]): GenerateError[] {
  return problems.sort((a, b) => compareUtf8(a.file ?? "", b.file ?? "") || compareUtf8(a.pointer, b.pointer) || compareUtf8(a.detail, b.detail));
}
