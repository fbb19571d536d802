// The synthesis vocabulary shared by the resource base class and contribute(): how a generated
// class maps its configuration keys to attributes, and the reserved shape of one contribution.
// Types only, kept apart so that resource.ts and contribute.ts need not import each other both ways.

/** Where synthesis reports a value it cannot write (collected, see problems.ts). */
export type ReportProblem = (message: string) => void;

/** How a generated class maps one config key to one attribute. */
export type SynthMember =
  | { readonly key: string; readonly attribute: string; readonly kind: "value" }
  /** A name, or a construct whose `name` token is used; `targetType` checks the construct's type. */
  | { readonly key: string; readonly attribute: string; readonly kind: "ref"; readonly targetType?: string };

/** How a generated class maps one config key to one attribute (a value, a reference, JSON, a list, …). */
export type SynthField =
  | SynthMember
  /** A JSON object: text as is, or an object serialized with sorted keys. */
  | { readonly key: string; readonly attribute: string; readonly kind: "json" }
  /** A list of objects whose members map one by one. */
  | { readonly key: string; readonly attribute: string; readonly kind: "list"; readonly members: readonly SynthMember[] }
  /** One object whose members map one by one (a single nested attribute). */
  | { readonly key: string; readonly attribute: string; readonly kind: "object"; readonly members: readonly SynthMember[] };

/** One synthesized contribution (the reserved RFC 0011 shape). */
export interface SynthesizedContribution {
  /** Address of the contributing resource (`<type>.<name>`). */
  readonly from: string;
  /** Attribute name → value (tokens allowed). */
  readonly values: Record<string, unknown>;
}
