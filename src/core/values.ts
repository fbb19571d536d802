// Configuration and state values as the plan engine and provider see them. A value may be
// unknown until apply (an attribute of a resource that does not exist yet); unknown is a
// first-class value of its own type, never a placeholder string.

/**
 * A value that will only be known during apply. Use the `UNKNOWN` singleton, or `Unknown.of(stack)`
 * for a value another stack of the app only knows once it has applied: a cross-stack reference
 * planned against that stack's plan (docs/stacks.md). Both are unknown alike everywhere; the stack
 * only changes how the value is shown.
 */
export class Unknown {
  static readonly instance = new Unknown(undefined);
  static readonly #byStack = new Map<string, Unknown>();
  /** The stack whose apply makes the value known, when it is another stack's value. */
  readonly stack: string | undefined;
  private constructor(stack: string | undefined) {
    this.stack = stack;
  }
  /** The unknown value of stack `stack` (one instance per stack name). */
  static of(stack: string): Unknown {
    let found = Unknown.#byStack.get(stack);
    if (found === undefined) Unknown.#byStack.set(stack, (found = new Unknown(stack)));
    return found;
  }
  toJSON(): never {
    throw new TypeError("an unknown value cannot be serialized; check isUnknown() first");
  }
  toString(): string {
    return this.stack === undefined ? "(known after apply)" : `(known after apply of stack ${this.stack})`;
  }
}

export const UNKNOWN = Unknown.instance;

export type Value = null | boolean | number | string | Unknown | Value[] | { [key: string]: Value };

/** A value with no unknown anywhere inside it: plain JSON. */
export type KnownValue = null | boolean | number | string | KnownValue[] | { [key: string]: KnownValue };

export type Attributes = Record<string, Value>;

/** Path of an attribute inside a resource's attributes, Terraform style: `["versions", 0, "weight"]`. */
export type AttributePath = (string | number)[];

export function isUnknown(value: unknown): value is Unknown {
  return value instanceof Unknown;
}

/** True when the value, and everything nested in it, is known. */
export function isWhollyKnown(value: Value): value is KnownValue {
  if (value instanceof Unknown) return false;
  if (Array.isArray(value)) return value.every(isWhollyKnown);
  if (value !== null && typeof value === "object") return Object.values(value).every(isWhollyKnown);
  return true;
}

/** Deep equality of two values; an unknown equals only another unknown. */
export function valuesEqual(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (a instanceof Unknown || b instanceof Unknown) return a instanceof Unknown && b instanceof Unknown;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as Value[];
    return a.length === bb.length && a.every((item, i) => valuesEqual(item, bb[i]!));
  }
  const ao = a as Record<string, Value>;
  const bo = b as Record<string, Value>;
  const keys = Object.keys(ao);
  if (keys.length !== Object.keys(bo).length) return false;
  return keys.every((key) => Object.hasOwn(bo, key) && valuesEqual(ao[key]!, bo[key]!));
}

/** The value at `path`: undefined where a step does not exist, UNKNOWN inside an unknown. */
export function getPath(value: Value | undefined, path: AttributePath): Value | undefined {
  let current = value;
  for (const step of path) {
    if (current === undefined || current === null) return undefined;
    if (isUnknown(current)) return current;
    if (Array.isArray(current)) current = typeof step === "number" ? current[step] : undefined;
    else if (typeof current === "object") current = Object.hasOwn(current, String(step)) ? (current as Record<string, Value>)[String(step)] : undefined;
    else return undefined;
  }
  return current;
}

/** A copy of `target` with `value` written at `path` (creating objects on the way). */
export function setPath(target: Attributes, path: AttributePath, value: Value): Attributes {
  if (path.length === 0) return target;
  const copy: Attributes = { ...target };
  let node: Record<string, Value> | Value[] = copy;
  for (let i = 0; i < path.length - 1; i++) {
    const step = path[i]!;
    const existing: Value | undefined = Array.isArray(node) ? node[step as number] : node[String(step)];
    let next: Record<string, Value> | Value[];
    if (Array.isArray(existing)) next = [...existing];
    else if (existing !== null && existing !== undefined && typeof existing === "object" && !isUnknown(existing))
      next = { ...(existing as Record<string, Value>) };
    else next = typeof path[i + 1] === "number" ? [] : {};
    if (Array.isArray(node)) node[step as number] = next;
    else node[String(step)] = next;
    node = next;
  }
  const last = path[path.length - 1]!;
  if (Array.isArray(node)) node[last as number] = value;
  else node[String(last)] = value;
  return copy;
}
