// Renders one construct class per resource type, plus an index. A generated class is a typed
// configuration interface (camelCase keys, JSDoc from the definition's descriptions) and a
// small table telling the base class (src/constructs/resource.ts) how each key becomes a
// Terraform attribute. Declared outputs become typed getters.

import { type SynthField, type SynthMember, TakoformResource } from "../constructs/resource.ts";
import { groupKindKey, MANIFEST_POLICIES } from "../core/index.ts";
import type { CodecField, CodecFieldType, CodecMember, CodecScalarType } from "../registry/index.ts";
import { GenerateError } from "./errors.ts";
import { GENERATED_HEADER, runtimeImport, specifier, type Layout } from "./layout.ts";
import type { GenerationLine, GenerationModel } from "./model.ts";
import { camelFromSnake } from "./naming.ts";

/** `takoform_worker_version` → `worker-version.gen.ts` */
export function constructFileName(type: string): string {
  return `${type.slice("takoform_".length).replace(/_/g, "-")}.gen.ts`;
}

/** Every member name a generated getter may not take: the base classes' own members. */
function baseMemberNames(): Set<string> {
  const names = new Set<string>([
    "node",
    "terraformResourceType",
    "terraformGeneratorMetadata",
    "dependsOn",
    "count",
    "provider",
    "lifecycle",
    "forEach",
    "connection",
    "provisioners",
    "rawOverrides",
    "cdktfStack",
    "fqn",
    "friendlyUniqueId",
    "formLine",
    "constructor",
    "toString",
  ]);
  for (let proto: object | null = TakoformResource.prototype; proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) names.add(name);
  }
  return names;
}

function doc(lines: readonly (string | undefined)[], indent = ""): string[] {
  const text = lines.filter((l): l is string => l !== undefined && l.trim() !== "").map((l) => l.replace(/\*\//g, "*\\/").replace(/\s+/g, " ").trim());
  if (text.length === 0) return [];
  if (text.length === 1) return [`${indent}/** ${text[0]} */`];
  return [`${indent}/**`, ...text.flatMap((t, i) => (i === 0 ? [`${indent} * ${t}`] : [`${indent} *`, `${indent} * ${t}`])), `${indent} */`];
}

function pascal(camel: string): string {
  return camel[0]!.toUpperCase() + camel.slice(1);
}

interface RenderContext {
  layout: Layout;
  path: string;
  line: GenerationLine;
  /** groupKindKey → the line serving it. */
  lines: ReadonlyMap<string, GenerationLine>;
  /** Class names imported for refs. */
  imports: Map<string, string>;
}

function refTarget(
  ctx: RenderContext,
  type: { kind: "ref"; target: { apiVersion: string; kind: string } } | { kind: "binding-list"; target: { apiVersion: string; kind: string } },
): { tsType: string; targetType?: string } {
  const target = ctx.lines.get(groupKindKey(type.target));
  if (target === undefined) return { tsType: "string | TakoformResource" };
  if (target !== ctx.line) ctx.imports.set(target.className, specifier(ctx.layout, ctx.path, `${ctx.layout.constructsDir}/${constructFileName(target.type)}`));
  return { tsType: `string | ${target.className}`, targetType: target.type };
}

function scalarTs(ctx: RenderContext, type: CodecScalarType): { tsType: string; targetType?: string } {
  switch (type.kind) {
    case "bool":
      return { tsType: "boolean" };
    case "integer":
      return { tsType: "number" };
    case "string":
      return { tsType: type.enum !== undefined ? type.enum.map((v) => JSON.stringify(v)).join(" | ") : "string" };
    case "ref":
      return refTarget(ctx, type);
  }
}

/** The members of an object (a list element or a single nested attribute): synthesis table and interface lines. */
function renderMembers(ctx: RenderContext, list: readonly CodecMember[]): { members: SynthMember[]; lines: string[] } {
  const members: SynthMember[] = [];
  const lines: string[] = [];
  for (const member of list) {
    const memberKey = camelFromSnake(member.attribute);
    const ts = scalarTs(ctx, member.type);
    members.push(
      member.type.kind === "ref"
        ? ts.targetType !== undefined
          ? { key: memberKey, attribute: member.attribute, kind: "ref", targetType: ts.targetType }
          : { key: memberKey, attribute: member.attribute, kind: "ref" }
        : { key: memberKey, attribute: member.attribute, kind: "value" },
    );
    lines.push(...doc([member.description, member.type.kind === "ref" ? `A ${member.type.target.kind} name, or the construct.` : undefined], "  "));
    lines.push(`  readonly ${memberKey}${member.required ? "" : "?"}: ${ts.tsType};`);
  }
  return { members, lines };
}

interface RenderedField {
  synth: SynthField;
  member: string[];
  elementInterface: string[];
}

function renderField(ctx: RenderContext, field: CodecField): RenderedField {
  const key = camelFromSnake(field.attribute);
  const optional = field.required ? "" : "?";
  const notes: string[] = [];
  if (field.default !== undefined) notes.push(`Default: \`${JSON.stringify(field.default)}\`.`);
  if (field.immutable) notes.push("Changing it replaces the resource.");
  const type: CodecFieldType = field.type;
  const elementName = `${ctx.line.className}${pascal(key)}`;
  let tsType: string;
  let synth: SynthField;
  const elementInterface: string[] = [];
  switch (type.kind) {
    case "string-set": {
      const item = type.item.enum !== undefined ? `(${type.item.enum.map((v) => JSON.stringify(v)).join(" | ")})` : "string";
      tsType = `readonly ${item}[]`;
      synth = { key, attribute: field.attribute, kind: "value" };
      notes.push("A set: order does not matter.");
      break;
    }
    case "json-map":
      tsType = "string | { readonly [key: string]: unknown }";
      synth = { key, attribute: field.attribute, kind: "json" };
      notes.push("One JSON object: its text, or an object serialized with sorted keys.");
      break;
    case "binding-list": {
      const target = refTarget(ctx, type);
      tsType = `readonly ${elementName}[]`;
      const members: SynthMember[] = [
        { key: "name", attribute: "name", kind: "value" },
        target.targetType !== undefined
          ? { key: "targetName", attribute: "target_name", kind: "ref", targetType: target.targetType }
          : { key: "targetName", attribute: "target_name", kind: "ref" },
      ];
      synth = { key, attribute: field.attribute, kind: "list", members };
      elementInterface.push(
        ...doc([`One ${type.binding} binding of {@link ${ctx.line.className}}.`]),
        `export interface ${elementName} {`,
        ...doc(["Name under which the binding appears in the module environment."], "  "),
        "  readonly name: string;",
        ...doc([`The ${type.target.kind} bound: its name, or the construct.`], "  "),
        `  readonly targetName: ${target.tsType};`,
        "}",
      );
      break;
    }
    case "object-list": {
      tsType = `readonly ${elementName}[]`;
      const { members, lines } = renderMembers(ctx, type.members);
      synth = { key, attribute: field.attribute, kind: "list", members };
      elementInterface.push(...doc([`One element of {@link ${ctx.line.className}Config.${key}}.`]), `export interface ${elementName} {`, ...lines, "}");
      break;
    }
    case "object": {
      tsType = elementName;
      const { members, lines } = renderMembers(ctx, type.members);
      synth = { key, attribute: field.attribute, kind: "object", members };
      elementInterface.push(...doc([`The value of {@link ${ctx.line.className}Config.${key}}.`]), `export interface ${elementName} {`, ...lines, "}");
      break;
    }
    default: {
      const ts = scalarTs(ctx, type);
      tsType = ts.tsType;
      synth =
        type.kind === "ref"
          ? ts.targetType !== undefined
            ? { key, attribute: field.attribute, kind: "ref", targetType: ts.targetType }
            : { key, attribute: field.attribute, kind: "ref" }
          : { key, attribute: field.attribute, kind: "value" };
      if (type.kind === "ref") notes.push(`A ${type.target.kind} name, or the construct (its name is used).`);
    }
  }
  return {
    synth,
    member: [...doc([field.description, notes.join(" ")], "  "), `  readonly ${key}${optional}: ${tsType};`],
    elementInterface,
  };
}

function outputGetter(
  output: { attribute: string; type: { kind: string }; description?: string },
  reserved: ReadonlySet<string>,
  taken: Set<string>,
): string[] {
  let name = camelFromSnake(output.attribute);
  // A getter may not shadow a base-class member; such an output is read as `<name>Output`.
  if (reserved.has(name) || taken.has(name)) name = `${name}Output`;
  taken.add(name);
  const [ret, getter] =
    output.type.kind === "integer"
      ? ["number", "getNumberAttribute"]
      : output.type.kind === "bool"
        ? ["IResolvable", "getBooleanAttribute"]
        : ["string", "getStringAttribute"];
  return [
    ...doc([output.description, `Output \`${output.attribute}\`, known after apply.`], "  "),
    `  get ${name}(): ${ret} {`,
    `    return this.${getter}(${JSON.stringify(output.attribute)});`,
    "  }",
  ];
}

export function renderConstruct(layout: Layout, line: GenerationLine, lines: ReadonlyMap<string, GenerationLine>): string {
  const path = `${layout.constructsDir}/${constructFileName(line.type)}`;
  const codec = line.defaultCodec;
  const ctx: RenderContext = { layout, path, line, lines, imports: new Map() };
  const fields = codec.fields.filter((f) => !(codec.artifactBacked && f.wire === "manifestDigest"));
  const rendered = fields.map((f) => renderField(ctx, f));

  const keys = new Set<string>();
  for (const f of rendered) {
    if (keys.has(f.synth.key)) throw new GenerateError("attribute-name", undefined, "", `${line.type}: two fields map to the configuration key ${f.synth.key}`);
    keys.add(f.synth.key);
  }

  const revision = codec.role === "revision";
  const bases = revision ? ["RevisionResourceConfig"] : ["NamedResourceConfig"];
  if (codec.declaresUpdate) bases.push("UpdateTimeoutConfig");
  // The artifact authoring surface of the manifest kind (core/artifact-kinds.ts): modules or files.
  const artifactFiles = codec.artifactBacked && MANIFEST_POLICIES[codec.manifestKind ?? "WorkerBundle"].entries === "files";
  if (codec.artifactBacked) bases.push(artifactFiles ? "ArtifactFilesConfig" : "ArtifactBundleConfig");
  const reserved = baseMemberNames();
  const taken = new Set<string>();
  const getters = codec.outputs.flatMap((o) => ["", ...outputGetter(o, reserved, taken)]);
  const usesResolvable = codec.outputs.some((o) => o.type.kind === "bool");

  const runtime = runtimeImport(layout, path, "constructs-resource");
  const runtimeNames = ["TakoformResource", ...bases.map((b) => `type ${b}`), "type SynthField", ...(usesResolvable ? ["type IResolvable"] : [])];
  const out: string[] = [
    GENERATED_HEADER,
    line.lines.length > 1
      ? `// Terraform type ${line.type}: the Form lines ${line.lines.map((l) => `${l.apiVersion} ${l.kind}`).join(", ")} (one per Host API lane).`
      : `// Terraform type ${line.type}: the Form line ${line.apiVersion} ${line.kind}.`,
    'import type { Construct } from "constructs";',
    `import { ${runtimeNames.join(", ")} } from "${runtime}";`,
    ...[...ctx.imports.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, from]) => `import type { ${name} } from "${from}";`),
    "",
    "const FIELDS: readonly SynthField[] = [",
    ...rendered.map((f) => `  ${JSON.stringify(f.synth)},`),
    "];",
  ];
  for (const f of rendered) if (f.elementInterface.length > 0) out.push("", ...f.elementInterface);
  out.push(
    "",
    ...doc([`Configuration of {@link ${line.className}}.`]),
    `export interface ${line.className}Config extends ${bases.join(", ")} {`,
    ...rendered.flatMap((f) => f.member),
    "}",
    "",
    ...doc([
      `${codec.title}.`,
      codec.description,
      line.lines.length > 1
        ? `Terraform type \`${line.type}\`, serving the Form lines ${line.lines.map((l) => `\`${l.apiVersion}\` \`${l.kind}\``).join(" and ")}, one per Host API lane; a new resource is created under the line of the lane the host negotiates (this class describes the first, definition ${codec.ref.definitionVersion}).`
        : `Terraform type \`${line.type}\`, serving the Form line \`${line.apiVersion}\` \`${line.kind}\`; new resources are created under definition ${codec.ref.definitionVersion}.`,
    ]),
    `export class ${line.className} extends TakoformResource {`,
    `  static readonly tfResourceType = ${JSON.stringify(line.type)};`,
    `  static readonly formLine = { apiVersion: ${JSON.stringify(line.apiVersion)}, kind: ${JSON.stringify(line.kind)} } as const;`,
    "",
    `  constructor(scope: Construct, id: string, config: ${line.className}Config) {`,
    "    super(",
    "      scope,",
    "      id,",
    "      {",
    `        type: ${JSON.stringify(line.type)},`,
    `        apiVersion: ${JSON.stringify(line.apiVersion)},`,
    `        kind: ${JSON.stringify(line.kind)},`,
    `        traits: { revision: ${revision}, declaresUpdate: ${codec.declaresUpdate}, artifactBacked: ${codec.artifactBacked}${artifactFiles ? ', artifactEntries: "files"' : ""} },`,
    "        fields: FIELDS,",
    "      },",
    "      config,",
    "    );",
    "  }",
    ...getters,
    "}",
    "",
  );
  return out.join("\n");
}

export function renderConstructIndex(layout: Layout, model: GenerationModel): string {
  const path = `${layout.constructsDir}/index.gen.ts`;
  const files = model.lines.map((l) => constructFileName(l.type)).sort();
  return [
    GENERATED_HEADER,
    "// One construct class per resource type of this generation set.",
    ...files.map((f) => `export * from "${specifier(layout, path, `${layout.constructsDir}/${f}`)}";`),
    "",
  ].join("\n");
}
