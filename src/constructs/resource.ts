// The base class of every generated Takoform resource construct. It turns a typed, camelCase
// configuration into the Terraform JSON the upstream provider's schema describes (snake_case
// attribute names, refs as target names, JSON maps as JSON text), passes the meta-arguments our
// engine supports through, refuses the ones it does not, and reads computed attributes back as
// tokens.
//
// Reserved synthesis shape (RFC 0011): values another construct contributes to this resource are
// written under the resource's `"//"` member as
//   { "takoform": { "contributions": [ { "from": "<type>.<name>", "values": { <attribute>: … } } ] } }
// so the engine can tell a resource's own configuration (its placeholder) from its contributions.
// `recordContribution` is the hook; the authoring API for it lives elsewhere.
//
// Mistakes in a configuration are collected as the construct's validation problems, not thrown
// (problems.ts): the constructor checks its whole configuration, synthesizing every field once,
// and a resource with problems (or inside a construct with problems) is never written, even
// with validation skipped.

import { assertSameLibrary, Token, TerraformResource, type IResolvable, type ITerraformDependable, type TerraformResourceLifecycle } from "./cdk.ts";
import type { TerraformProvider } from "cdktf";
import type { Construct } from "constructs";
import { hostImportId, ImportIdError, type HostImportIdentity } from "./import.ts";
import { buildContribution, type ContributeOptions, type ContributionValues } from "./contribute.ts";
import type { ReportProblem, SynthField, SynthMember, SynthesizedContribution } from "./fields.ts";
import { hasProblemsInScope, refusal, reportProblem, TakoformConstructError } from "./problems.ts";

export type { SynthField, SynthMember, SynthesizedContribution } from "./fields.ts";
/** For generated classes whose outputs are booleans (their getters return one). */
export type { IResolvable } from "./cdk.ts";
export { TakoformConstructError } from "./problems.ts";

/** The meta-arguments a Takoform resource accepts (count and for_each are refused by the engine). */
export interface TakoformMetaArguments {
  readonly dependsOn?: ITerraformDependable[];
  readonly lifecycle?: TerraformResourceLifecycle;
  readonly provider?: TerraformProvider;
}

/** Envelope configuration every resource type has. */
export interface TakoformResourceConfig extends TakoformMetaArguments {
  /** SpaceID; the provider's default space when left out. */
  readonly space?: string;
  /** Go duration bounding a create (default 20m). */
  readonly createTimeout?: string;
  /** Go duration bounding a delete (default 30m). */
  readonly deleteTimeout?: string;
}

/** A non-revision resource: exactly one of `name` and `namePrefix`. */
export interface NamedResourceConfig extends TakoformResourceConfig {
  /** The host resource name (`^[a-z][a-z0-9-]{0,62}$`). */
  readonly name?: string;
  /** Prefix of a name generated at create (`<prefix><8 hex>`), so a replacement can run side by side. */
  readonly namePrefix?: string;
}

/** A revision resource: `name` pinned, or derived from its content and `revisionOwner`. */
export interface RevisionResourceConfig extends TakoformResourceConfig {
  /** Pins the revision name; leave it out to derive one from the content and revisionOwner. */
  readonly name?: string;
  /** Whose revision this is (usually the module worker): a name, or the construct whose name is used. */
  readonly revisionOwner?: string | TakoformResource;
}

/** Only on types whose Form declares update. */
export interface UpdateTimeoutConfig {
  /** Go duration bounding an update (default 20m). */
  readonly updateTimeout?: string;
}

/** The media types a WorkerBundle module may have. */
export type BundleModuleContentType =
  "application/javascript+module" | "application/octet-stream" | "application/wasm" | "text/plain" | "application/source-map+json";

/** One module of a WorkerBundle manifest: its path in the bundle, its media type and the file it is read from. */
export interface BundleModule {
  /** Module path inside the bundle (relative, `/`-separated). */
  readonly name: string;
  readonly contentType: BundleModuleContentType;
  /** Local file holding the module's bytes. */
  readonly contentFile: string;
}

/** One file of a files manifest (StaticAssetBundle, MigrationBundle), in the order it is listed. */
export interface ArtifactFile {
  /** Path inside the manifest (relative, `/`-separated), e.g. `index.html` or `0001_init.sql`. */
  readonly path: string;
  /** Normalised `type/subtype` (a migration file: exactly `application/sql`). */
  readonly mediaType: string;
  /** Local file holding the bytes. */
  readonly contentFile: string;
}

/**
 * The files authoring surface of a static asset bundle or migration set: `manifestDigest` alone,
 * or `files` (both spellings may agree). The order of `files` is kept: for a migration set it is
 * the migration order, and for both it is part of the manifest digest.
 */
export interface ArtifactFilesConfig {
  /** `sha256:<hex>` of a committed artifact manifest. */
  readonly manifestDigest?: string;
  readonly files?: readonly ArtifactFile[];
}

/** The bundle authoring surface: `manifestDigest` alone, or `mainModule` + `modules` (both spellings may agree). */
export interface ArtifactBundleConfig {
  /** `sha256:<hex>` of a committed artifact manifest. */
  readonly manifestDigest?: string;
  /** The module loaded first; one of `modules`. */
  readonly mainModule?: string;
  readonly modules?: readonly BundleModule[];
}

/** What a generated resource type's Form declares: a revision, an update, artifact contents. */
export interface ResourceTraits {
  readonly revision: boolean;
  readonly declaresUpdate: boolean;
  readonly artifactBacked: boolean;
  /** The artifact authoring surface: `modules` (a WorkerBundle manifest; the default) or `files`. */
  readonly artifactEntries?: "modules" | "files";
}

/** What a generated construct class tells its base class about its resource type (written by `takoform get`). */
export interface TakoformResourceSpec {
  /** Terraform resource type, e.g. `takoform_worker_version`. */
  readonly type: string;
  /** The Form line this type serves. */
  readonly apiVersion: string;
  readonly kind: string;
  readonly traits: ResourceTraits;
  readonly fields: readonly SynthField[];
}

const UNSUPPORTED_META = [
  ["count", "`count` is not supported by the takoform engine; create one construct per instance"],
  ["forEach", "`forEach` is not supported by the takoform engine; create one construct per instance"],
  ["provisioners", "provisioners are not supported by the takoform engine"],
  ["connection", "connection blocks are not supported by the takoform engine"],
] as const;

/** The base class of every generated resource construct: synthesizes one `takoform_*` resource and refuses what the takoform engine does not support (`count`, `forEach`, provisioners). */
export abstract class TakoformResource extends TerraformResource {
  /** The Form line this resource's type serves. */
  readonly formLine: { readonly apiVersion: string; readonly kind: string };
  readonly #spec: TakoformResourceSpec;
  readonly #config: Readonly<Record<string, unknown>>;
  /** The synthesized Form fields and revision owner, computed once when the construct is built. */
  readonly #synthesized: Readonly<Record<string, unknown>>;
  readonly #contributions: SynthesizedContribution[] = [];
  #contributeCalls = 0;
  #importId: string | undefined;

  protected constructor(scope: Construct, id: string, spec: TakoformResourceSpec, config: TakoformResourceConfig) {
    if (config === null || typeof config !== "object" || Array.isArray(config)) {
      throw new TakoformConstructError(`${spec.type} "${id}": the configuration must be an object.`);
    }
    const raw = config as unknown as Record<string, unknown>;
    assertSameLibrary(scope);
    super(scope, id, {
      terraformResourceType: spec.type,
      terraformGeneratorMetadata: { providerName: "takoform" },
      dependsOn: config.dependsOn,
      lifecycle: config.lifecycle,
      provider: config.provider,
    });
    this.#spec = spec;
    this.#config = raw;
    this.formLine = { apiVersion: spec.apiVersion, kind: spec.kind };
    const report: ReportProblem = (message) => reportProblem(this, message);
    for (const [key, message] of UNSUPPORTED_META) if (raw[key] !== undefined) report(`${message}.`);
    if (spec.traits.artifactBacked && spec.traits.artifactEntries === "files") {
      // The two authoring modes (reference v1beta1 §10.4); the provider checks the rest at plan time.
      if (raw.files === undefined && raw.manifestDigest === undefined) report("author the files with files, or name a committed manifest with manifestDigest.");
    } else if (spec.traits.artifactBacked) {
      // The two authoring modes (reference §5.6); the provider checks the rest at plan time.
      const local = [raw.mainModule, raw.modules].filter((v) => v !== undefined).length;
      if (local === 1) report("set mainModule and modules together (local bundle authoring), or neither.");
      if (local === 0 && raw.manifestDigest === undefined)
        report("author the bundle with mainModule + modules, or name a committed manifest with manifestDigest.");
    }
    if (!spec.traits.revision && (raw.name !== undefined) === (raw.namePrefix !== undefined)) report("set exactly one of name and namePrefix.");
    const synthesized: Record<string, unknown> = {};
    if (spec.traits.revision) synthesized.revision_owner = refValue(raw.revisionOwner, "revisionOwner", undefined, report);
    for (const field of spec.fields) synthesized[field.attribute] = synthField(field, raw[field.key], report);
    this.#synthesized = synthesized;
  }

  // ---- computed attributes (tokens) ----

  /** The host resource name (`metadata.name`). Use it to refer to this resource. */
  get name(): string {
    return this.getStringAttribute("name");
  }
  get space(): string {
    return this.getStringAttribute("space");
  }
  get uid(): string {
    return this.getStringAttribute("uid");
  }
  get generation(): string {
    return this.getStringAttribute("generation");
  }
  get revision(): string {
    return this.getStringAttribute("revision");
  }
  get ready(): IResolvable {
    return this.getBooleanAttribute("ready");
  }
  /** Every declared output as one JSON object (`"{}"` when the Form declares none). */
  get outputsJson(): string {
    return this.getStringAttribute("outputs_json");
  }
  get formDefinitionVersion(): string {
    return this.getStringAttribute("form_definition_version");
  }
  get formSchemaDigest(): string {
    return this.getStringAttribute("form_schema_digest");
  }

  // ---- import ----

  /**
   * Adopts an existing host resource into this construct by writing an `import` block
   * (`{"to": "<type>.<name>", "id": "<id>"}`). The id is `NAME`, `SPACE/NAME`, or the canonical
   * identity object (serialized as compact JSON; the four FormRef members all or none).
   */
  importFromHost(id: string | HostImportIdentity): void {
    if (typeof id !== "string" && (id === null || typeof id !== "object" || Array.isArray(id))) {
      throw new ImportIdError(`${this.#spec.type} "${this.node.path}": an import ID is NAME, SPACE/NAME, or an identity object`);
    }
    if (this.#importId !== undefined) {
      reportProblem(this, "importFromHost was called more than once; a resource is imported from one ID.");
      return;
    }
    try {
      this.#importId = hostImportId(id, this.#spec.kind);
    } catch (error) {
      if (!(error instanceof ImportIdError)) throw error;
      reportProblem(this, `importFromHost: ${error.message}.`);
    }
  }

  // ---- contributions (RFC 0011) ----

  /**
   * Adds values to this resource's configuration after both ends are constructed (RFC 0011): the
   * only way, with depends_on, to close a dependency cycle, which the engine then deploys through
   * placeholders. Keys are this construct's configuration keys; list fields collect every
   * contribution. The source (`from`) is the resource named in the values (see contribute.ts).
   *
   *   a.contribute({ serviceBindings: [{ name: "B", service: b }] });
   */
  contribute(values: ContributionValues, options: ContributeOptions = {}): this {
    const call = ++this.#contributeCalls;
    const target = {
      resource: this,
      kind: this.#spec.kind,
      fields: this.#spec.fields,
      config: this.#config,
      previous: this.#contributions,
      synthesize: synthField,
    };
    const contribution = buildContribution(target, values, options, (message) => reportProblem(this, `contribute() #${call}: ${message}`));
    if (contribution !== undefined) this.recordContribution(contribution);
    return this;
  }

  /** Hook for the contribution API: records values another construct contributes to this one. */
  protected recordContribution(contribution: SynthesizedContribution): void {
    this.#contributions.push(contribution);
  }

  /** The contributions synthesized under `"//".takoform.contributions`. */
  protected get contributions(): readonly SynthesizedContribution[] {
    return this.#contributions;
  }

  // ---- synthesis ----

  protected override synthesizeAttributes(): { [name: string]: any } {
    const c = this.#config;
    const traits = this.#spec.traits;
    const out: Record<string, unknown> = {};
    out.name = c.name;
    if (!traits.revision) out.name_prefix = c.namePrefix;
    out.space = c.space;
    out.create_timeout = c.createTimeout;
    if (traits.declaresUpdate) out.update_timeout = c.updateTimeout;
    out.delete_timeout = c.deleteTimeout;
    if (traits.revision) out.revision_owner = this.#synthesized.revision_owner;
    if (traits.artifactBacked && traits.artifactEntries === "files") {
      out.manifest_digest = c.manifestDigest;
      const files = c.files as readonly ArtifactFile[] | undefined;
      out.files = files?.map((f) => ({ path: f.path, media_type: f.mediaType, content_file: f.contentFile }));
    } else if (traits.artifactBacked) {
      out.manifest_digest = c.manifestDigest;
      out.main_module = c.mainModule;
      const modules = c.modules as readonly BundleModule[] | undefined;
      out.modules = modules?.map((m) => ({ name: m.name, content_type: m.contentType, content_file: m.contentFile }));
    }
    for (const field of this.#spec.fields) out[field.attribute] = this.#synthesized[field.attribute];
    for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
    return out;
  }

  override toTerraform(): any {
    const out = super.toTerraform();
    const attributes = out.resource?.[this.terraformResourceType]?.[this.friendlyUniqueId];
    if (attributes !== undefined && hasProblemsInScope(this)) attributes["//"] = { ...(attributes["//"] ?? {}), takoformProblems: refusal(this) };
    if (this.#contributions.length > 0 && attributes !== undefined) {
      attributes["//"] = {
        ...(attributes["//"] ?? {}),
        takoform: { contributions: this.#contributions.map((c) => ({ from: c.from, values: { ...c.values } })) },
      };
    }
    if (this.#importId !== undefined) {
      out.import = [...(out.import ?? []), { to: `${this.terraformResourceType}.${this.friendlyUniqueId}`, id: this.#importId }];
    }
    return out;
  }
}

// Synthesis of configuration values. A value that cannot be written is reported and synthesized
// as absent; the resource then has a problem and is never written (problems.ts).

function refValue(value: unknown, key: string, targetType: string | undefined, report: ReportProblem): unknown {
  if (value === undefined || value === null || typeof value === "string") return value ?? undefined;
  if (value instanceof TakoformResource) {
    if (targetType !== undefined && value.terraformResourceType !== targetType) {
      report(`${key} refers to a ${value.terraformResourceType}; it must be a ${targetType} (or a name).`);
      return undefined;
    }
    return value.name;
  }
  report(`${key} must be a resource name or a Takoform resource construct.`);
  return undefined;
}

function synthMember(member: SynthMember, value: unknown, path: string, report: ReportProblem): unknown {
  return member.kind === "ref" ? refValue(value, path, member.targetType, report) : value;
}

function synthField(field: SynthField, value: unknown, report: ReportProblem): unknown {
  if (value === undefined) return undefined;
  switch (field.kind) {
    case "value":
    case "ref":
      return synthMember(field, value, field.key, report);
    case "json":
      return typeof value === "string" ? value : jsonText(value, field.key, report);
    case "list":
      if (!Array.isArray(value)) {
        report(`${field.key} must be a list.`);
        return undefined;
      }
      return value.map((element, i) => synthObject(field.members, element, `${field.key}[${i}]`, report));
    case "object":
      return synthObject(field.members, value, field.key, report);
  }
}

function synthObject(members: readonly SynthMember[], element: unknown, path: string, report: ReportProblem): unknown {
  if (element === null || typeof element !== "object" || Array.isArray(element)) {
    report(`${path} must be an object with the members ${members.map((m) => m.key).join(", ")}.`);
    return undefined;
  }
  const out: Record<string, unknown> = {};
  for (const member of members) {
    const v = synthMember(member, (element as Record<string, unknown>)[member.key], `${path}.${member.key}`, report);
    if (v !== undefined) out[member.attribute] = v;
  }
  return out;
}

/** JSON text with sorted keys. String tokens survive as template interpolations; number tokens cannot. */
function jsonText(value: unknown, key: string, report: ReportProblem): string {
  const sort = (v: unknown, path: string): unknown => {
    if (typeof v === "number" && Token.isUnresolved(v)) {
      report(`${path} is a number token, which cannot be embedded in JSON text; pass the whole value as a string instead.`);
      return null;
    }
    if (Array.isArray(v)) return v.map((x, i) => sort(x, `${path}[${i}]`));
    if (v !== null && typeof v === "object") {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, sort((v as Record<string, unknown>)[k], `${path}.${k}`)]),
      );
    }
    return v;
  };
  return JSON.stringify(sort(value, key));
}
