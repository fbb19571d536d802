// What a Worker Bundle's main module exports as handlers, decided statically. Under the runtime
// ABI a handler is an own member of the plain object the module default-exports; this host runs
// no JavaScript, so it reads the module with a real parser (acorn) and resolves that object
// without evaluating anything. It resolves:
//
//   export default { fetch() {}, async scheduled() {} }     object literal (methods, values)
//   export default { fetch: handler }                        a member whose value is a name
//   const app = { … }; export default app;                   a top-level const bound to a literal
//   export { app as default }                                the same, through a specifier
//   { ...base, queue() {} }                                  spread of another such literal
//   { ["fetch"]: h }, { [`queue`]: h }                       computed keys that are string literals
//
// Everything else exports nothing: a call result (`export default make()`), a class instance,
// a function or class as the default export, an imported or re-exported binding, a `let`/`var`
// binding, members added after the declaration (`app.fetch = …`), a spread or computed key the
// parser cannot resolve. A member counts as a handler when its value may be callable: a method,
// a function or arrow, or a name or property access (the host cannot look further; the runtime
// checks callability when it loads the module). A literal, object, array, getter, setter or
// computed value is not a handler. A later member of the same name overrides an earlier one.

import { Parser, type Expression, type ObjectExpression, type Options, type Program, type Property, type SpreadElement } from "acorn";

/**
 * acorn records each scope's declared names in arrays and checks every new declaration with
 * `indexOf`, so a bundle with n top-level declarations parses in O(n²) — seconds for a few
 * megabytes of bundled code. These lists keep the array acorn reads (order, `[0]`) and answer
 * "is it declared" from a Set, which makes parsing linear without changing what is accepted.
 */
class NameList extends Array<string> {
  private readonly names = new Set<string>();

  override push(...items: string[]): number {
    for (const item of items) this.names.add(item);
    return super.push(...items);
  }

  override indexOf(name: string, from?: number): number {
    return this.names.has(name) ? super.indexOf(name, from) : -1;
  }
}

interface AcornScope {
  var: string[];
  lexical: string[];
  functions: string[];
}

const LinearParser = Parser.extend(
  (Base) =>
    class extends Base {
      enterScope(flags: number): void {
        (Base.prototype as unknown as { enterScope(flags: number): void }).enterScope.call(this, flags);
        const stack = (this as unknown as { scopeStack: AcornScope[] }).scopeStack;
        const scope = stack[stack.length - 1]!;
        scope.var = new NameList();
        scope.lexical = new NameList();
        scope.functions = new NameList();
      }
    },
);

const PARSE_OPTIONS: Options = { ecmaVersion: "latest", sourceType: "module" };

export type ModuleExports = { resolved: true; handlers: ReadonlySet<string> } | { resolved: false; reason: string; handlers: ReadonlySet<string> };

const NOTHING: ReadonlySet<string> = new Set();
const CACHE_LIMIT = 256;
/** Content-addressed, so an entry never goes stale; bounded so memory stays flat. */
const cache = new Map<string, ModuleExports>();

/** The default export's handler members of the ES module `source`; memoized by content digest. */
export function moduleExports(source: Uint8Array, digest: string): ModuleExports {
  const hit = cache.get(digest);
  if (hit !== undefined) return hit;
  const result = resolveExports(source);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(digest, result);
  return result;
}

function unresolved(reason: string): ModuleExports {
  return { resolved: false, reason, handlers: NOTHING };
}

export function resolveExports(source: Uint8Array): ModuleExports {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(source);
  } catch {
    return unresolved("the module is not valid UTF-8");
  }
  let program: Program;
  try {
    program = LinearParser.parse(text, PARSE_OPTIONS);
  } catch (error) {
    return unresolved(`the module does not parse as an ES module: ${error instanceof Error ? error.message : String(error)}`);
  }
  const consts = topLevelConsts(program);
  const target = defaultExport(program);
  if (typeof target === "string") return unresolved(target);
  const members = new Map<string, boolean>();
  const problem = collect(target, consts, members, new Set());
  if (problem !== undefined) return unresolved(problem);
  return { resolved: true, handlers: new Set([...members].filter(([, callable]) => callable).map(([name]) => name)) };
}

/** `const NAME = <init>` at the top level (also inside `export const`). */
function topLevelConsts(program: Program): Map<string, Expression> {
  const out = new Map<string, Expression>();
  for (const statement of program.body) {
    const declaration = statement.type === "ExportNamedDeclaration" ? statement.declaration : statement;
    if (declaration?.type !== "VariableDeclaration" || declaration.kind !== "const") continue;
    for (const d of declaration.declarations) {
      if (d.id.type === "Identifier" && d.init !== null && d.init !== undefined) out.set(d.id.name, d.init);
    }
  }
  return out;
}

/** The default-exported expression, or why there is none the host can read. */
function defaultExport(program: Program): Expression | string {
  for (const statement of program.body) {
    if (statement.type === "ExportDefaultDeclaration") {
      const d = statement.declaration;
      if (d.type === "FunctionDeclaration" || d.type === "ClassDeclaration") return `its default export is a ${d.type === "FunctionDeclaration" ? "function" : "class"}, not an object of handlers`;
      return d as Expression;
    }
    if (statement.type === "ExportNamedDeclaration") {
      for (const s of statement.specifiers) {
        const exported = s.exported.type === "Identifier" ? s.exported.name : String(s.exported.value);
        if (exported !== "default") continue;
        if (statement.source !== null && statement.source !== undefined) return "its default export is re-exported from another module, which this host does not follow";
        if (s.local.type !== "Identifier") return "its default export names no local binding";
        return { type: "Identifier", name: s.local.name, start: s.local.start, end: s.local.end } as Expression;
      }
    }
  }
  return "it has no default export";
}

function nodeLabel(node: Expression): string {
  switch (node.type) {
    case "Identifier":
      return `the binding ${node.name}, which is not a top-level const bound to an object literal`;
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

/** Adds the members of an object-valued expression; returns why it cannot be read, if so. */
function collect(node: Expression, consts: ReadonlyMap<string, Expression>, members: Map<string, boolean>, seen: Set<string>): string | undefined {
  let expression = node;
  while (expression.type === "Identifier") {
    const init = consts.get(expression.name);
    if (init === undefined || seen.has(expression.name)) return `its default export is ${nodeLabel(expression)}`;
    seen.add(expression.name);
    expression = init;
  }
  if (expression.type !== "ObjectExpression") return `its default export is ${nodeLabel(expression)}, which this host cannot read without running it`;
  addMembers(expression, consts, members, seen);
  return undefined;
}

function addMembers(object: ObjectExpression, consts: ReadonlyMap<string, Expression>, members: Map<string, boolean>, seen: Set<string>): void {
  for (const member of object.properties) {
    if (member.type === "SpreadElement") {
      spread(member, consts, members, seen);
      continue;
    }
    const name = keyOf(member);
    if (name === undefined) continue;
    // `__proto__: x` sets the prototype; it defines no own member.
    if (name === "__proto__" && !member.computed && !member.shorthand && !member.method && member.kind === "init") continue;
    members.set(name, mayBeCallable(member));
  }
}

/** A spread of a resolvable object literal contributes its members; any other spread, nothing. */
function spread(member: SpreadElement, consts: ReadonlyMap<string, Expression>, members: Map<string, boolean>, seen: Set<string>): void {
  const inner = new Map<string, boolean>();
  if (collect(member.argument, consts, inner, new Set(seen)) === undefined) for (const [k, v] of inner) members.set(k, v);
}

function keyOf(member: Property): string | undefined {
  const key = member.key;
  if (!member.computed) {
    if (key.type === "Identifier") return key.name;
    if (key.type === "Literal" && (typeof key.value === "string" || typeof key.value === "number")) return String(key.value);
    return undefined;
  }
  if (key.type === "Literal" && typeof key.value === "string") return key.value;
  if (key.type === "TemplateLiteral" && key.expressions.length === 0) return key.quasis[0]?.value.cooked ?? undefined;
  return undefined;
}

function mayBeCallable(member: Property): boolean {
  if (member.kind !== "init") return false;
  if (member.method) return true;
  const value = member.value;
  switch (value.type) {
    case "FunctionExpression":
    case "ArrowFunctionExpression":
    case "MemberExpression":
      return true;
    case "Identifier":
      return value.name !== "undefined";
    default:
      return false;
  }
}
