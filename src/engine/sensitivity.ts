// Which sensitive variables flow into each resource attribute and each output: directly
// (`${var.secret}`), or through a reference to another resource's attribute that carries one
// (`${takoform_x.a.password}` where a.password = var.secret). An attribute that carries a secret
// is hidden in plans, sealed in state and in plan files, and a write whose request carries one
// has its stored intent encrypted (src/secrets/intent.ts) under a key derived from those values.
//
// One worklist pass over the attribute-level reference graph: a set only ever grows, and it is
// bounded by the number of sensitive variables, so the cost is linear in the references times
// that (small) number. A stack without sensitive variables costs nothing.

import type { AttributePath } from "../provider/index.ts";
import { referencesOf, variablesOf } from "./config/expression/evaluate.ts";
import type { Expression, StackConfig } from "./config/types.ts";
import type { ResolvedVariables } from "./config/variables/resolve.ts";

/**
 * Identity attributes (name, space) are never treated as secrets: the host shows them to anyone
 * who can list the space, and the provider needs them in the clear to read the resource back.
 */
export const IDENTITY_ATTRIBUTES: ReadonlySet<string> = new Set(["name", "name_prefix", "space"]);

const SEP = "\u0000";
const WHOLE = "*";
const EMPTY: ReadonlyMap<string, readonly string[]> = new Map();

export class SensitiveFlow {
  /** address → attribute → sorted sensitive variable names. */
  readonly #resources: Map<string, Map<string, string[]>>;
  /** output name → sorted sensitive variable names. */
  readonly #outputs: Map<string, string[]>;

  /** Use `SensitiveFlow.of`, which computes the flow once per stack and variables. */
  constructor(resources: Map<string, Map<string, string[]>>, outputs: Map<string, string[]>) {
    this.#resources = resources;
    this.#outputs = outputs;
  }

  static readonly #cache = new WeakMap<StackConfig, WeakMap<ResolvedVariables, SensitiveFlow>>();

  /** The flow of a stack under its resolved variables, computed once per pair. */
  static of(stack: StackConfig, variables: ResolvedVariables): SensitiveFlow {
    let byVariables = SensitiveFlow.#cache.get(stack);
    if (byVariables === undefined) SensitiveFlow.#cache.set(stack, (byVariables = new WeakMap()));
    let flow = byVariables.get(variables);
    if (flow === undefined) byVariables.set(variables, (flow = compute(stack, variables)));
    return flow;
  }

  /** Attribute → the sensitive variables it carries (identity attributes never appear). */
  attributes(address: string): ReadonlyMap<string, readonly string[]> {
    return this.#resources.get(address) ?? EMPTY;
  }

  /** Top-level attribute paths that carry a secret, sorted. */
  paths(address: string): AttributePath[] {
    return [...this.attributes(address).keys()].sort().map((name) => [name]);
  }

  /** Every sensitive variable that reaches the resource's configuration, sorted. */
  variables(address: string): string[] {
    const attributes = this.#resources.get(address);
    if (attributes === undefined) return [];
    const names = new Set<string>();
    for (const list of attributes.values()) for (const name of list) names.add(name);
    return [...names].sort();
  }

  /** The sensitive variables an output's value carries (the output's own `sensitive` flag aside). */
  output(name: string): readonly string[] {
    return this.#outputs.get(name) ?? [];
  }
}

function compute(stack: StackConfig, variables: ResolvedVariables): SensitiveFlow {
  const resources = new Map<string, Map<string, string[]>>();
  const outputs = new Map<string, string[]>();
  if (variables.sensitive.size === 0) return new SensitiveFlow(resources, outputs);

  // Nodes are `address␀attribute` (resources) or `␀output␀name`; a reference to a whole resource
  // depends on `address␀*`, which every attribute of that resource feeds.
  const carried = new Map<string, Set<string>>();
  const dependents = new Map<string, string[]>();
  const queue: string[] = [];
  const visit = (node: string, expr: Expression): void => {
    for (const v of variablesOf(expr)) {
      if (!variables.sensitive.has(v.name)) continue;
      let set = carried.get(node);
      if (set === undefined) carried.set(node, (set = new Set()));
      if (!set.has(v.name)) {
        if (set.size === 0) queue.push(node);
        set.add(v.name);
      }
    }
    for (const ref of referencesOf(expr)) {
      const source = `${ref.address}${SEP}${ref.path.length > 0 ? String(ref.path[0]) : WHOLE}`;
      let list = dependents.get(source);
      if (list === undefined) dependents.set(source, (list = []));
      list.push(node);
    }
  };
  for (const resource of stack.resources.values()) {
    for (const [attribute, expr] of Object.entries(resource.attributes)) visit(`${resource.address}${SEP}${attribute}`, expr);
    for (const contribution of resource.contributions) {
      for (const [attribute, expr] of Object.entries(contribution.values)) visit(`${resource.address}${SEP}${attribute}`, expr);
    }
  }
  for (const output of stack.outputs.values()) visit(`${SEP}output${SEP}${output.name}`, output.value);

  const spread = (from: Set<string>, to: string): void => {
    let set = carried.get(to);
    if (set === undefined) carried.set(to, (set = new Set()));
    const before = set.size;
    for (const name of from) set.add(name);
    if (set.size > before) queue.push(to);
  };
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    const set = carried.get(node)!;
    const at = node.indexOf(SEP);
    if (at === 0) continue; // an output feeds nothing
    const attribute = node.slice(at + 1);
    if (IDENTITY_ATTRIBUTES.has(attribute)) continue; // a name is never a secret, nor makes one
    for (const dependent of dependents.get(node) ?? []) spread(set, dependent);
    for (const dependent of dependents.get(`${node.slice(0, at)}${SEP}${WHOLE}`) ?? []) spread(set, dependent);
  }

  for (const [node, set] of carried) {
    const at = node.indexOf(SEP);
    if (at === 0) {
      outputs.set(node.slice(node.indexOf(SEP, 1) + 1), [...set].sort());
      continue;
    }
    const attribute = node.slice(at + 1);
    if (IDENTITY_ATTRIBUTES.has(attribute) || set.size === 0) continue;
    const address = node.slice(0, at);
    let map = resources.get(address);
    if (map === undefined) resources.set(address, (map = new Map()));
    map.set(attribute, [...set].sort());
  }
  return new SensitiveFlow(resources, outputs);
}
