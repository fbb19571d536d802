// The shape of a codec: the field set ONE exact Form definition declared (decision 0017 rule 3).
// Codecs are generated data (`codecs/**.gen.json`); the encode/decode runtime lives in
// src/provider/codec. The types sit here, in the registry layer, so generated data can name them
// without importing anything above it.

import type { FormRef, GroupKind, KnownValue } from "../core/index.ts";

/** The role a Form plays for the provider: an identity, an immutable revision, a deployment, an attachment or a policy. */
export type FormRole = "identity" | "revision" | "deployment" | "attachment" | "policy";

/** String constraints copied from the desired schema (JSON Schema semantics: lengths in code points). */
export interface StringConstraints {
  minLength?: number;
  maxLength?: number;
  /** ECMA-262 pattern, unanchored as in JSON Schema. */
  pattern?: string;
  enum?: string[];
}

/** The type of a scalar attribute: a bool, an integer, a constrained string, or a reference by name. */
export type CodecScalarType =
  | { kind: "bool" }
  | { kind: "integer"; minimum?: number; maximum?: number }
  | ({ kind: "string" } & StringConstraints)
  /** A reference node: the attribute holds the target NAME; the wire holds `{apiVersion, kind, name}`. */
  | { kind: "ref"; target: GroupKind };

/** The type of one codec field: a scalar or one of the structured shapes the desired schema allows. */
export type CodecFieldType =
  | CodecScalarType
  /** An array of unique strings: a Terraform set, encoded sorted ascending. */
  | { kind: "string-set"; minItems?: number; maxItems?: number; item: StringConstraints }
  /** A typed map object: attribute `<snake>_json` holding one JSON object as a string. */
  | { kind: "json-map"; maxProperties?: number; keyPattern?: string }
  /** `x-takoform-binding` list of `{name, resource: ref}`: HCL `{name, target_name}`. */
  | { kind: "binding-list"; binding: string; target: GroupKind; minItems?: number; maxItems?: number; name: StringConstraints }
  /** An array of closed objects whose members are scalars or refs. */
  | { kind: "object-list"; minItems?: number; maxItems?: number; members: CodecMember[] }
  /** One closed object whose members are scalars or refs: a single nested attribute (`assets`). */
  | { kind: "object"; members: CodecMember[] };

/** One member of a nested object: its wire name, its attribute name and its scalar type. */
export interface CodecMember {
  wire: string;
  attribute: string;
  required: boolean;
  type: CodecScalarType;
  description?: string;
}

/**
 * Which fields project names into a module's environment (one shared namespace, §13.2):
 * the keys of a JSON map, the items of a string set, the `name` of each binding.
 */
export type EnvironmentRole = "map-keys" | "items" | "binding-names";

/** One field of a codec: how a desired-spec member maps to a Terraform attribute and back. */
export interface CodecField {
  /** Member name in the desired spec (`messageRetentionSeconds`). */
  wire: string;
  /** Terraform attribute name (`message_retention_seconds`; a JSON map gets `_json`). */
  attribute: string;
  required: boolean;
  /**
   * The declared default in attribute form (a JSON map's default is its JSON text, a binding
   * list's default uses `target_name`). Present ⇒ the attribute is Optional+Computed with this
   * static default, so config null → default → wire → host echo → state is a fixed point.
   */
  default?: KnownValue;
  /** A change plans a replacement: listed in immutableFields, a revision Form, or no update. */
  immutable: boolean;
  /** Optional with no default: leaving it out means something (e.g. no dead-letter queue). */
  absenceIsSemantic: boolean;
  type: CodecFieldType;
  environment?: EnvironmentRole;
  description?: string;
}

/** The type of a computed output attribute. */
export type CodecOutputType = { kind: "string" } | { kind: "integer" } | { kind: "bool" };

/** One computed attribute read from the host's status (`uid`, an endpoint, …). */
export interface CodecOutput {
  wire: string;
  attribute: string;
  type: CodecOutputType;
  description?: string;
}

/** The codec of one exact FormRef: its resource type, fields and outputs (generated data, `codecs/**.gen.json`). */
export interface FormCodec {
  ref: FormRef;
  /** Canonical digest of the package index; null for a definition published without one. */
  packageDigest: string | null;
  /** kebab-case words of the kind (`sqlite-database`), used for file names and revision-name prefixes. */
  slug: string;
  title: string;
  description?: string;
  role: FormRole;
  declaresUpdate: boolean;
  /**
   * A revision whose whole desired state is `manifestDigest`: it takes the artifact authoring
   * surface of its manifest kind — `manifest_digest` | `main_module` + `modules` (WorkerBundle),
   * `manifest_digest` | `files` (StaticAssetBundle, MigrationBundle).
   */
  artifactBacked: boolean;
  /**
   * The manifest kind an artifact-backed revision's digest names (core/protocol.ts
   * ARTIFACT_MANIFEST_KIND). Absent on other codecs, and on an artifact-backed codec generated
   * before it was recorded, which is WorkerBundle-backed.
   */
  manifestKind?: "WorkerBundle" | "StaticAssetBundle" | "MigrationBundle";
  /** Desired fields in declaration order. */
  fields: CodecField[];
  /** Declared outputs (outputSchema), in declaration order. */
  outputs: CodecOutput[];
  /** Interface contracts every resource of this Form provides (plan-time host support asks about each). */
  providedInterfaces: ContractRef[];
  /** Binding contracts this Form accepts as a source (a used binding list is asked about at this version). */
  acceptedBindings: ContractRef[];
}

/** An Interface or Binding contract as a support profile names it: name, version and exact digest. */
export interface ContractRef {
  name: string;
  version: string;
  schemaDigest: string;
}
