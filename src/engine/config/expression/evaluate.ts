// Evaluating parsed expressions against values the engine supplies. An unknown reference yields
// UNKNOWN (a template containing one is UNKNOWN as a whole); nothing is ever rendered as a
// placeholder string.

import { UNKNOWN, Unknown, type Value } from "../../../core/index.ts";
import type { AttributePath } from "../../../provider/index.ts";
import type { DataExpr, Expression, InterpolationExpr, ReferenceExpr, VariableExpr } from "../types.ts";
import { formatPath } from "./traversal.ts";

/** Supplies the value of a reference or variable; undefined when it does not exist. */
export type Resolver = (ref: InterpolationExpr) => Value | undefined;

/** A reference that cannot produce a usable value (missing attribute, null in a template, …). */
export class EvaluationError extends Error {
  override name = "EvaluationError";
  constructor(
    readonly ref: InterpolationExpr | null,
    message: string,
    /** How to repair it, when the resolver knows better than the general advice. */
    readonly repair?: string,
  ) {
    super(message);
  }
}

export function evaluate(expr: Expression, resolve: Resolver): Value {
  switch (expr.kind) {
    case "literal":
      return expr.value;
    case "reference":
    case "variable":
    case "data":
      return resolveOrFail(expr, resolve);
    case "template": {
      let out = "";
      // The template is unknown as a whole when a part is; it keeps the part's stack when every
      // unknown part is the same stack's (docs/stacks.md).
      let unknown: Unknown | null = null;
      for (const part of expr.parts) {
        if (typeof part === "string") {
          out += part;
          continue;
        }
        const value = resolveOrFail(part, resolve);
        if (value instanceof Unknown) {
          unknown = unknown === null || unknown === value ? value : UNKNOWN; // keep going: a later part may still be an error worth reporting
          continue;
        }
        out += templateText(part, value);
      }
      return unknown ?? out;
    }
    case "list":
      return expr.items.map((item) => evaluate(item, resolve));
    case "object": {
      const out: Record<string, Value> = {};
      for (const [key, item] of Object.entries(expr.entries)) out[key] = evaluate(item, resolve);
      return out;
    }
  }
}

function resolveOrFail(ref: InterpolationExpr, resolve: Resolver): Value {
  const value = resolve(ref);
  if (value === undefined) {
    const what =
      ref.kind === "variable"
        ? `variable "${ref.name}"`
        : ref.path.length
          ? `${ref.kind === "reference" ? "attribute " : ""}${formatPath(ref.path)} of ${ref.address}`
          : ref.address;
    throw new EvaluationError(ref, `\${${ref.text}} refers to ${what}, which does not exist`);
  }
  return value;
}

/** How a known value appears inside a string template. */
function templateText(ref: InterpolationExpr, value: Value): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  const shape = value === null ? "null" : Array.isArray(value) ? "a list" : "an object";
  throw new EvaluationError(ref, `\${${ref.text}} is ${shape}, which cannot be inserted into a string`);
}

/**
 * The value at `path` inside `value`: undefined when a step does not exist, the unknown itself as
 * soon as the walk meets one (everything inside an unknown is unknown too).
 */
export function valueAtPath(value: Value | undefined, path: AttributePath): Value | undefined {
  let current: Value | undefined = value;
  for (const step of path) {
    if (current === undefined) return undefined;
    if (current instanceof Unknown) return current;
    if (typeof step === "number") {
      if (!Array.isArray(current) || step >= current.length) return undefined;
      current = current[step];
    } else {
      if (current === null || typeof current !== "object" || Array.isArray(current) || !Object.hasOwn(current, step)) return undefined;
      current = (current as Record<string, Value>)[step];
    }
  }
  return current;
}

/** Every resource reference inside the expression, in source order. */
export function referencesOf(expr: Expression): ReferenceExpr[] {
  const out: ReferenceExpr[] = [];
  collect(expr, (ref) => {
    if (ref.kind === "reference") out.push(ref);
  });
  return out;
}

/** Every reference to another stack's output (`data.terraform_remote_state`) inside the expression, in source order. */
export function remoteReferencesOf(expr: Expression): DataExpr[] {
  const out: DataExpr[] = [];
  collect(expr, (ref) => {
    if (ref.kind === "data") out.push(ref);
  });
  return out;
}

/** Every variable reference inside the expression, in source order. */
export function variablesOf(expr: Expression): VariableExpr[] {
  const out: VariableExpr[] = [];
  collect(expr, (ref) => {
    if (ref.kind === "variable") out.push(ref);
  });
  return out;
}

function collect(expr: Expression, visit: (ref: InterpolationExpr) => void): void {
  switch (expr.kind) {
    case "literal":
      return;
    case "reference":
    case "variable":
    case "data":
      visit(expr);
      return;
    case "template":
      for (const part of expr.parts) if (typeof part !== "string") visit(part);
      return;
    case "list":
      for (const item of expr.items) collect(item, visit);
      return;
    case "object":
      for (const item of Object.values(expr.entries)) collect(item, visit);
      return;
  }
}
