// FormRules registered by exact group + kind, composed per Form line. Several modules may
// register for one line (for example output rules now, aggregate rules later); their hooks run
// in registration order. Two modules may not both own a line's outputs.

import type { FormRules, RuleHost, RuleModule } from "./types.ts";
import type { JsonObject } from "../../forms/index.ts";

function lineKey(apiVersion: string, kind: string): string {
  return `${apiVersion} ${kind}`;
}

export class RulesRegistry {
  private readonly lines = new Map<string, FormRules[]>();
  private readonly composed = new Map<string, FormRules>();
  private bound: RuleHost | undefined;

  /** The host as rules see it; bound by `attach` once the catalog exists (before any request). */
  readonly host: RuleHost;

  constructor() {
    const bound = (): RuleHost => {
      if (this.bound === undefined) throw new Error("a rules module read the host before it was attached");
      return this.bound;
    };
    this.host = {
      get lane() {
        return bound().lane;
      },
      forms: () => bound().forms(),
      interface: (ref) => bound().interface(ref),
      get artifacts() {
        return bound().artifacts;
      },
    };
  }

  attach(host: RuleHost): void {
    this.bound = host;
  }

  register(apiVersion: string, kind: string, rules: FormRules): void {
    const key = lineKey(apiVersion, kind);
    const list = this.lines.get(key) ?? [];
    if (rules.outputs !== undefined && list.some((r) => r.outputs !== undefined)) {
      throw new Error(`two rules modules both define outputs for ${apiVersion} ${kind}`);
    }
    list.push(rules);
    this.lines.set(key, list);
    this.composed.delete(key);
  }

  /** Every spec member some registered rules look resources up by, sorted (see FormRules.specLookups). */
  specLookups(): string[] {
    const members = new Set<string>();
    for (const list of this.lines.values()) for (const rules of list) for (const m of rules.specLookups ?? []) members.add(m);
    return [...members].sort();
  }

  use(module: RuleModule): this {
    module(this);
    return this;
  }

  /** The composed rules of one exact line (empty rules when nothing is registered). */
  for(apiVersion: string, kind: string): FormRules {
    const key = lineKey(apiVersion, kind);
    const cached = this.composed.get(key);
    if (cached !== undefined) return cached;
    const rules = compose(this.lines.get(key) ?? []);
    this.composed.set(key, rules);
    return rules;
  }
}

function compose(list: readonly FormRules[]): FormRules {
  if (list.length === 0) return {};
  if (list.length === 1) return list[0]!;
  const out: FormRules = {};
  const canon = list.filter((r) => r.canonicalizeSpec !== undefined);
  if (canon.length > 0) {
    out.canonicalizeSpec = (spec, form) => canon.reduce<JsonObject>((s, r) => r.canonicalizeSpec!(s, form), spec);
  }
  const validate = list.filter((r) => r.validateSpec !== undefined);
  if (validate.length > 0) out.validateSpec = (spec, form) => validate.flatMap((r) => r.validateSpec!(spec, form));
  const write = list.filter((r) => r.validateWrite !== undefined);
  if (write.length > 0) out.validateWrite = (spec, form) => write.flatMap((r) => r.validateWrite!(spec, form));
  const check = list.filter((r) => r.checkMutation !== undefined);
  if (check.length > 0) out.checkMutation = (ctx) => check.forEach((r) => r.checkMutation!(ctx));
  const effects = list.filter((r) => r.applyEffects !== undefined);
  if (effects.length > 0) out.applyEffects = (ctx) => effects.forEach((r) => r.applyEffects!(ctx));
  const del = list.filter((r) => r.checkDelete !== undefined);
  if (del.length > 0) out.checkDelete = (ctx) => del.forEach((r) => r.checkDelete!(ctx));
  const ready = list.filter((r) => r.renderReady !== undefined);
  if (ready.length > 0) {
    out.renderReady = (ctx) => {
      for (const r of ready) {
        const rendering = r.renderReady!(ctx);
        if (rendering !== undefined) return rendering;
      }
      return undefined;
    };
  }
  const deps = list.filter((r) => r.renderDependents !== undefined);
  if (deps.length > 0) out.renderDependents = (ctx) => [...new Set(deps.flatMap((r) => r.renderDependents!(ctx)))];
  const outputs = list.find((r) => r.outputs !== undefined);
  if (outputs !== undefined) out.outputs = outputs.outputs!.bind(outputs);
  const profile = list.filter((r) => r.supportProfile !== undefined);
  if (profile.length > 0) out.supportProfile = (p, form) => profile.reduce((acc, r) => r.supportProfile!(acc, form), p);
  return out;
}
