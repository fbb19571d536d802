// Reading acorn's tree structurally for module-resolution.ts: the node shape it walks, and what a
// place in the tree is (a binding, a write, a reference).

/** Any acorn node, read structurally. */
export interface Loose {
  type: string;
  start: number;
  end: number;
  [key: string]: unknown;
}

/** A visited node with the way it was reached. */
export interface Entry {
  node: Loose;
  parent: Entry | undefined;
  key: string;
  /** The node whose `this` a ThisExpression here refers to (a non-arrow function, a field or a static block). */
  owner: Loose | undefined;
}

/** A member's (or a name's) value. `receiverSafe`: calling it as `obj.m()` cannot reach `obj` through `this`. */

export const isNode = (v: unknown): v is Loose => typeof v === "object" && v !== null && typeof (v as { type?: unknown }).type === "string";

/** `__proto__: x` sets the prototype; it defines no own member. */
export function isProtoSetter(p: Loose): boolean {
  const key = p.key as Loose;
  const named = (key.type === "Identifier" && key.name === "__proto__") || (key.type === "Literal" && key.value === "__proto__");
  return named && !p.computed && !p.shorthand && !p.method && p.kind === "init";
}

/**
 * Whether the identifier or member expression at `entry` is a binding (declared there), a write
 * target (assigned, updated, or a target inside a destructuring assignment), or a plain reference.
 */
export function targetRole(entry: Entry): "binding" | "write" | "ref" {
  let cur = entry;
  let viaPattern = false;
  for (;;) {
    const p = cur.parent;
    if (p === undefined) return "ref";
    const t = p.node.type;
    const inPattern =
      t === "ObjectPattern" ||
      t === "ArrayPattern" ||
      t === "RestElement" ||
      (t === "AssignmentPattern" && cur.key === "left") ||
      (t === "Property" && cur.key === "value" && p.parent?.node.type === "ObjectPattern");
    if (!inPattern) break;
    cur = p;
    viaPattern = true;
  }
  const p = cur.parent!;
  switch (p.node.type) {
    case "AssignmentExpression":
    case "ForInStatement":
    case "ForOfStatement":
      return cur.key === "left" ? "write" : "ref";
    case "UpdateExpression":
      return "write";
    case "VariableDeclarator":
      return cur.key === "id" ? "binding" : "ref";
    case "FunctionDeclaration":
    case "FunctionExpression":
    case "ArrowFunctionExpression":
      return cur.key === "params" || cur.key === "id" ? "binding" : "ref";
    case "ClassDeclaration":
    case "ClassExpression":
      return cur.key === "id" ? "binding" : "ref";
    case "CatchClause":
      return cur.key === "param" ? "binding" : "ref";
    default:
      return viaPattern ? "binding" : "ref";
  }
}

export function label(node: Loose): string {
  switch (node.type) {
    case "CallExpression":
      return "the result of a call";
    case "NewExpression":
      return "a constructed instance";
    case "FunctionExpression":
    case "ArrowFunctionExpression":
      return "a function";
    case "ClassExpression":
      return "a class";
    default:
      return `a ${node.type}`;
  }
}
