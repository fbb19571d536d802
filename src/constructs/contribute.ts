// contribute() — RFC 0011 authoring. A contribution adds values to a resource's configuration
// after both ends are constructed:
//
//   const a = new MeshService(stack, "a", { name: "a", entrypoint: "a.js" });
//   const b = new MeshService(stack, "b", { name: "b", entrypoint: "b.js" });
//   a.contribute({ serviceBindings: [{ name: "B", service: b }] });
//   b.contribute({ serviceBindings: [{ name: "A", service: a }] });
//
// A constructor can only name a resource that already exists, so constructor configuration never
// closes a loop; a contribution can, and it is what a placeholder starts without. Values use the
// construct's own (camelCase) keys and go through the same synthesis as constructor configuration;
// they are written under the resource's reserved `"//"` member, which Terraform ignores and the
// engine reads, kept apart from the resource's own attributes:
//   "//": { "takoform": { "contributions": [ { "from": "<type>.<name>", "values": { … } } ] } }
// A list field collects every contribution (lists are concatenated, in call order, after the
// constructor's own entries); any other field takes one value, from the constructor or from one
// contribution.
//
// `from` — deliberate choice: the contribution's source is the resource whose value is contributed.
// It is, in this order, `options.from` when given; else the first Takoform resource construct found
// in the values (a construct passed where a reference is expected, e.g. `service: b`); else the
// resource of the first attribute token found in them (e.g. `namespaceId: worker.namespaceId`).
// A contribution that names no other resource has no source, and is refused: set the value in the
// constructor instead. The engine orders by the references INSIDE the values either way; `from` is
// what state records as the contribution edge, and what finds a cycle removed from code.

// Mistakes in a contribution are collected, not thrown (problems.ts): each is reported on the
// receiving resource, numbered by its contribute() call, and a contribution with any problem is
// not recorded. Only a call that cannot be read at all — values or `from` not of their type —
// throws at once.

import type * as Cdk from "cdktf";
import { TerraformResource, Tokenization } from "./cdk.ts";
import type { ReportProblem, SynthField, SynthesizedContribution } from "./fields.ts";
import { TakoformConstructError } from "./problems.ts";

/** Values to contribute, under the construct's configuration keys (camelCase). */
export type ContributionValues = Readonly<Record<string, unknown>>;

/** Options of `contribute()`: which resource contributes, when the values alone do not name it. */
export interface ContributeOptions {
  /** The contributing resource, when the values alone do not name it. */
  // cdktf's own type, so the published declarations name it where users import it from.
  readonly from?: Cdk.TerraformResource;
}

/** What `contribute` needs to know about the receiving construct. */
export interface ContributionTarget {
  readonly resource: TerraformResource;
  readonly kind: string;
  readonly fields: readonly SynthField[];
  /** The constructor configuration (camelCase keys). */
  readonly config: Readonly<Record<string, unknown>>;
  readonly previous: readonly SynthesizedContribution[];
  /** The construct's synthesis of one field (the same one constructor configuration goes through). */
  synthesize(field: SynthField, value: unknown, report: ReportProblem): unknown;
}

/** `type.name` of a resource construct. */
export function resourceAddress(resource: TerraformResource): string {
  return `${resource.terraformResourceType}.${resource.friendlyUniqueId}`;
}

/**
 * The synthesized contribution, or undefined when `report` was given a problem with it. Throws a
 * TakoformConstructError only when the arguments are not of their declared types.
 */
export function buildContribution(
  target: ContributionTarget,
  values: ContributionValues,
  options: ContributeOptions,
  report: ReportProblem,
): SynthesizedContribution | undefined {
  const self = resourceAddress(target.resource);
  const where = `${target.resource.terraformResourceType} "${target.resource.node.path}"`;
  if (values === null || typeof values !== "object" || Array.isArray(values)) {
    throw new TakoformConstructError(`${where}: contribute() takes an object of fields to contribute, not ${describe(values)}.`);
  }
  if (options === null || typeof options !== "object" || (options.from !== undefined && !(options.from instanceof TerraformResource))) {
    throw new TakoformConstructError(`${where}: contribute()'s options.from must be the resource construct that contributes the values.`);
  }
  let failed = false;
  const problem = (message: string): void => {
    failed = true;
    report(message);
  };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    const field = target.fields.find((f) => f.key === key);
    if (field === undefined) {
      problem(
        `${key} is not a field of ${target.kind} that can be contributed; contributions fill fields of the Form's desired state (${target.fields.map((f) => f.key).join(", ") || "none"}).`,
      );
      continue;
    }
    if (value === undefined) continue;
    if (field.kind === "list") {
      if (!Array.isArray(value)) {
        problem(`the contributed ${key} must be a list; contributions to a list are collected.`);
        continue;
      }
    } else if (target.config[key] !== undefined || target.previous.some((c) => Object.hasOwn(c.values, field.attribute))) {
      problem(`${key} is already set; only list fields collect several contributions, any other field takes one value.`);
      continue;
    }
    out[field.attribute] = complete(field, target.synthesize(field, value, problem));
  }
  if (!failed && Object.keys(out).length === 0) problem("no value was given; pass one or more fields to contribute.");
  // The source is found in the values, so it is judged only once they are right (or given as `from`).
  const valuesFailed = failed;
  const from = options.from !== undefined ? resourceAddress(options.from) : valuesFailed ? undefined : sourceOf(values, self);
  if (from === self) {
    problem("a resource cannot contribute to itself; set the value in its constructor.");
  } else if (from === undefined && !valuesFailed) {
    problem(
      "the contribution names no other resource, so it has no source. Set the value in the constructor, or pass { from } to say which resource contributes it.",
    );
  }
  return failed || from === undefined ? undefined : { from, values: out };
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * A contributed list entry names every member of its object type, an absent one as null — the
 * shape Terraform gives an object value, and the one the provider records in state, so a
 * contributed entry compares equal to what was applied.
 */
function complete(field: SynthField, synthesized: unknown): unknown {
  if (field.kind !== "list" || !Array.isArray(synthesized)) return synthesized;
  return synthesized.map((entry) => {
    if (entry === null || typeof entry !== "object") return entry;
    const full: Record<string, unknown> = {};
    for (const member of field.members) full[member.attribute] = (entry as Record<string, unknown>)[member.attribute] ?? null;
    return full;
  });
}

/** The first other resource named in the values: a construct first, else an attribute token. */
function sourceOf(values: unknown, self: string): string | undefined {
  const constructs: string[] = [];
  const tokens: string[] = [];
  const visit = (value: unknown): void => {
    if (value instanceof TerraformResource) {
      constructs.push(resourceAddress(value));
    } else if (typeof value === "string") {
      for (const token of Tokenization.reverseString(value).tokens) {
        const identifier = (token as { identifier?: unknown }).identifier;
        const m = typeof identifier === "string" ? /^([a-z][a-z0-9_]*)\.([A-Za-z0-9_-]+)(?:\.|$)/.exec(identifier) : null;
        if (m !== null && m[1] !== "data" && m[1] !== "var" && m[1] !== "local" && m[1] !== "module") tokens.push(`${m[1]}.${m[2]}`);
      }
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item);
    } else if (value !== null && typeof value === "object") {
      // Plain data only: any other object (a construct tree, a token) is not walked into.
      const proto = Object.getPrototypeOf(value);
      if (proto === Object.prototype || proto === null) for (const item of Object.values(value)) visit(item);
    }
  };
  visit(values);
  return [...constructs, ...tokens].find((address) => address !== self);
}
