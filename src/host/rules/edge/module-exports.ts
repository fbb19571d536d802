// What a Worker Bundle's main module exports as handlers, decided statically. Under the runtime
// ABI a handler is an own member of the plain object the module default-exports, and it must be
// callable; this host runs no JavaScript, so it reads the module with a real parser (acorn) and
// resolves that object without evaluating anything (module-resolution.ts). It resolves:
//
//   export default { fetch() {}, async scheduled() {} }     object literal (methods, values)
//   export default { fetch: handler }                        a member whose value is a callable name
//   const app = { … }; export default app;                   a top-level const bound to a literal
//   export { app as default }                                the same, through a specifier
//   { ...base, queue() {} }                                  spread of another such literal
//   { ["fetch"]: h }, { [`queue`]: h }, { [KEY]: h }         computed keys that are string literals (or consts bound to one)
//
// A member is a handler only when its value statically resolves to something callable: a method,
// a function, arrow or class expression, a name bound by a top-level function or class declaration
// that is never reassigned, a top-level const whose initializer resolves callable (through const
// aliases), or `obj.m` where obj is such a literal and m such a member. Anything else is unknown
// and exports nothing: an import, a `let`/`var`, a global or undeclared name, a getter or setter, a
// call result, a name read before its declaration completes. A spread or computed key that cannot
// be resolved makes every member before it unknown (it may override them). A literal bound to a
// const loses a member the module assigns or deletes anywhere (`app.fetch = …`, `delete app.fetch`,
// `app[k] = …` losing all), and all its members when it is passed to a call (`Object.assign(app, …)`),
// stored or aliased other than by a top-level const, or handed as `this` to a method that may write
// through it. A call result, a class instance, a function or class as the default export, an
// imported or re-exported default, or a `let`/`var` binding leaves the default export unreadable.

import { createRequire } from "node:module";
import type { Expression, Options, Parser, Program } from "acorn";
import { ModuleResolver } from "./module-resolution.ts";

// acorn is loaded on the first module read, not with the host: every command that opens the
// embedded host loads these rules, and most never read a worker module. CommonJS keeps the load
// synchronous (the rules are); acorn's CommonJS and ES builds are the same parser.
const require = createRequire(import.meta.url);

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

let linear: typeof Parser | undefined;

/** acorn's Parser with {@link NameList} scopes, built on first use. */
function linearParser(): typeof Parser {
  linear ??= (require("acorn") as typeof import("acorn")).Parser.extend(
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
  return linear;
}

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
    program = linearParser().parse(text, PARSE_OPTIONS);
  } catch (error) {
    return unresolved(`the module does not parse as an ES module: ${error instanceof Error ? error.message : String(error)}`);
  }
  const target = defaultExport(program, text.length);
  if (typeof target === "string") return unresolved(target);
  const members = new ModuleResolver(program).defaultExport(target);
  if (typeof members === "string")
    return unresolved(`its default export is ${members}${target.type === "Identifier" ? "" : ", which this host cannot read without running it"}`);
  return { resolved: true, handlers: new Set([...members].filter(([, v]) => v.callable).map(([name]) => name)) };
}

/** The default-exported expression, or why there is none the host can read. */
function defaultExport(program: Program, end: number): Expression | string {
  for (const statement of program.body) {
    if (statement.type === "ExportDefaultDeclaration") {
      const d = statement.declaration;
      if (d.type === "FunctionDeclaration" || d.type === "ClassDeclaration")
        return `its default export is a ${d.type === "FunctionDeclaration" ? "function" : "class"}, not an object of handlers`;
      return d as Expression;
    }
    if (statement.type === "ExportNamedDeclaration") {
      for (const s of statement.specifiers) {
        const exported = s.exported.type === "Identifier" ? s.exported.name : String(s.exported.value);
        if (exported !== "default") continue;
        if (statement.source !== null && statement.source !== undefined)
          return "its default export is re-exported from another module, which this host does not follow";
        if (s.local.type !== "Identifier") return "its default export names no local binding";
        // Read once the module has finished evaluating: every top-level declaration has completed.
        return { type: "Identifier", name: s.local.name, start: end, end } as Expression;
      }
    }
  }
  return "it has no default export";
}
