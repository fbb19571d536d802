// The static resolution behind module-exports.ts: which top-level names are bound to what, which
// object literals the module can still change after declaring them, and whether a member value is
// callable. Nothing is evaluated; whatever cannot be decided from the source is "unknown", and an
// unknown member is not a handler. See docs/host-edge.md ("Reading a main module's exports").
//
// Scope handling is deliberately name-based: a use of a tracked name anywhere in the module counts,
// even where a local binding shadows it. That can only make the host refuse more, never accept more.

import type { Expression, Program } from "acorn";
import { isNode, isProtoSetter, label, targetRole, type Entry, type Loose } from "./module-syntax.ts";

export interface Value {
  callable: boolean;
  receiverSafe: boolean;
}

export type Members = Map<string, Value>;

const UNKNOWN: Value = { callable: false, receiverSafe: false };

/** The longest chain of `const b = a` aliases followed. */
export const MAX_ALIAS_CHAIN = 64;

type Binding = { kind: "function"; node: Loose } | { kind: "class"; ready: number } | { kind: "const"; ready: number; init: Loose; declarator: Loose };

type Resolved = { kind: "object"; members: Members } | { kind: "value"; value: Value } | { kind: "none" };

/** What the module does to a tracked object binding (through any of its const aliases). */
interface Uses {
  /** Members assigned or deleted; `true` when a non-static member was. */
  written: Set<string> | true;
  /** Members called as methods (`obj.m()`); `true` when a non-static member was. */
  called: Set<string> | true;
  /** Any other read of the binding's members or a spread of it. */
  read: boolean;
  /** Used any other way: passed to a call, stored, aliased by a non-const, coerced, … */
  escaped: boolean;
}

const isFunction = (n: Loose): boolean => n.type === "FunctionExpression" || n.type === "FunctionDeclaration";

export class ModuleResolver {
  private readonly bindings = new Map<string, Binding>();
  private readonly topConstDeclarators = new Set<Loose>();
  /** name → the const whose initializer is the object literal it aliases. */
  private readonly objectRoot = new Map<string, string>();
  /** name → how many `const b = a` steps separate it from a const that is not such an alias. */
  private readonly aliasDepth = new Map<string, number>();
  /** name → the name its `const b = a` declaration aliases (declaration order). */
  private readonly aliasOf = new Map<string, string>();
  private readonly uses = new Map<string, Uses>();
  private readonly reassigned = new Set<string>();
  /** Non-arrow functions (and class fields / static blocks) whose `this` escapes or is written through. */
  private readonly thisEscapes = new Set<Loose>();
  private directEval = false;
  private readonly resolved = new Map<string, Resolved>();

  /** Top-level `let`/`var` names bound once; resolved like consts unless the module writes them. */
  private readonly rebindable = new Set<string>();

  constructor(program: Program) {
    this.collectBindings(program);
    this.findObjectRoots();
    this.scan(program as unknown as Loose);
    this.dropWrittenRebindables();
    for (const [name, b] of this.bindings) if (b.kind === "const") this.resolved.set(name, this.resolveConst(name, b.init));
  }

  /**
   * A `let`/`var` the module writes anywhere (name-based, as everywhere here) holds no value the
   * host can know: it is dropped, and with it every const alias that led to its object.
   */
  private dropWrittenRebindables(): void {
    const written = [...this.rebindable].filter((name) => this.reassigned.has(name));
    if (written.length === 0) return;
    for (const name of written) this.bindings.delete(name);
    // An alias reached through a written name may hold either value: it is no literal's alias.
    const untracked = new Set(written);
    for (const [name, target] of this.aliasOf) if (untracked.has(target)) untracked.add(name);
    for (const [name, root] of this.objectRoot) if (untracked.has(name) || untracked.has(root)) this.objectRoot.delete(name);
  }

  // ---- bindings ----

  private collectBindings(program: Program): void {
    const seen = new Set<string>();
    const ambiguous = new Set<string>();
    for (const statement of program.body as unknown as Loose[]) {
      let d: Loose | undefined = statement;
      if (statement.type === "ExportNamedDeclaration" || statement.type === "ExportDefaultDeclaration")
        d = isNode(statement.declaration) ? statement.declaration : undefined;
      if (d === undefined) continue;
      const id = isNode(d.id) && d.id.type === "Identifier" ? (d.id.name as string) : undefined;
      if (d.type === "FunctionDeclaration" && id !== undefined) this.bindings.set(id, { kind: "function", node: d });
      else if (d.type === "ClassDeclaration" && id !== undefined) this.bindings.set(id, { kind: "class", ready: d.end });
      else if (d.type === "VariableDeclaration") {
        // Bundlers bind the export object with `var` (esbuild: `var src_default = { … }; export {
        // src_default as default }`): a `let`/`var` declared once and never written is read as a
        // const. Declared twice, it is not resolved at all.
        for (const declarator of d.declarations as Loose[]) {
          const target = declarator.id as Loose;
          if (target.type !== "Identifier") continue;
          const name = target.name as string;
          if (d.kind !== "const" && (seen.has(name) || this.bindings.has(name))) {
            ambiguous.add(name);
            continue;
          }
          seen.add(name);
          if (!isNode(declarator.init)) continue;
          this.bindings.set(name, { kind: "const", ready: declarator.end, init: declarator.init, declarator });
          this.topConstDeclarators.add(declarator);
          if (d.kind !== "const") this.rebindable.add(name);
        }
      }
    }
    for (const name of ambiguous) {
      this.bindings.delete(name);
      this.rebindable.delete(name);
    }
  }

  /** A const bound to `name`, readable at source offset `at` (its declaration has completed). */
  private constAt(name: string, at: number): Extract<Binding, { kind: "const" }> | undefined {
    const b = this.bindings.get(name);
    return b?.kind === "const" && b.ready <= at ? b : undefined;
  }

  private findObjectRoots(): void {
    // Declaration order: an alias can only name an earlier const (a later one is in its TDZ).
    for (const [name, b] of this.bindings) {
      if (b.kind !== "const") continue;
      if (b.init.type === "ObjectExpression") this.objectRoot.set(name, name);
      else if (b.init.type === "Identifier") {
        const target = b.init.name as string;
        if (this.constAt(target, b.init.start) === undefined) continue;
        this.aliasOf.set(name, target);
        const depth = (this.aliasDepth.get(target) ?? 0) + 1;
        this.aliasDepth.set(name, depth);
        const root = this.objectRoot.get(target);
        if (root !== undefined && depth <= MAX_ALIAS_CHAIN) this.objectRoot.set(name, root);
      }
    }
  }

  // ---- what the module does with its names ----

  private usesOf(root: string): Uses {
    let u = this.uses.get(root);
    if (u === undefined) this.uses.set(root, (u = { written: new Set(), called: new Set(), read: false, escaped: false }));
    return u;
  }

  private scan(program: Loose): void {
    const stack: Entry[] = [{ node: program, parent: undefined, key: "", owner: undefined }];
    for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
      const node = entry.node;
      switch (node.type) {
        case "Identifier":
          this.identifier(entry);
          break;
        case "ThisExpression":
        case "Super":
          if (!this.readsAMember(entry) && entry.owner !== undefined) this.thisEscapes.add(entry.owner);
          break;
        case "CallExpression":
          if (isNode(node.callee) && node.callee.type === "Identifier" && node.callee.name === "eval") this.directEval = true;
          break;
        case "ImportDeclaration":
        case "ExportAllDeclaration":
        case "MetaProperty":
          continue;
      }
      for (const key in node) {
        if (key === "type" || key === "start" || key === "end") continue;
        if (!node.computed && (key === "key" || (key === "property" && node.type === "MemberExpression"))) continue;
        if (key === "label" || (key === "specifiers" && node.type === "ExportNamedDeclaration")) continue;
        const value = node[key];
        const children = Array.isArray(value) ? value : [value];
        for (let i = children.length - 1; i >= 0; i--) {
          const child: unknown = children[i];
          if (!isNode(child)) continue;
          const owner = isFunction(child) || child.type === "StaticBlock" ? child : node.type === "PropertyDefinition" && key === "value" ? node : entry.owner;
          stack.push({ node: child, parent: entry, key, owner });
        }
      }
    }
  }

  /** `this.x` / `super.x` read (not written, deleted or called). */
  private readsAMember(entry: Entry): boolean {
    return entry.parent?.node.type === "MemberExpression" && entry.key === "object" && this.memberUse(entry.parent) === "read";
  }

  private identifier(entry: Entry): void {
    const name = entry.node.name as string;
    const callable = this.bindings.get(name);
    const root = this.objectRoot.get(name);
    if (root === undefined && callable?.kind !== "function" && callable?.kind !== "class" && !this.rebindable.has(name)) return;
    const role = targetRole(entry);
    if (role === "binding") return;
    if (role === "write") {
      this.reassigned.add(name);
      return;
    }
    if (root !== undefined) this.objectUse(entry, root);
  }

  private objectUse(entry: Entry, root: string): void {
    const u = this.usesOf(root);
    const parent = entry.parent!;
    const p = parent.node;
    switch (p.type) {
      case "MemberExpression": {
        if (entry.key !== "object") break;
        const member = p.computed ? this.staticKey(p.property as Loose) : ((p.property as Loose).name as string | undefined);
        const use = this.memberUse(parent);
        if (use === "read") u.read = true;
        else {
          const set = use === "call" ? "called" : "written";
          if (member === undefined) u[set] = true;
          else if (u[set] !== true) (u[set] as Set<string>).add(member);
        }
        return;
      }
      case "SpreadElement":
        if (parent.parent?.node.type !== "ObjectExpression") break;
        u.read = true;
        return;
      case "VariableDeclarator":
        // A top-level const alias is tracked itself (its uses count for the same object); any other is an escape.
        if (entry.key === "init" && this.topConstDeclarators.has(p) && this.objectRoot.get((p.id as Loose).name as string) === root) return;
        break;
      case "ExportDefaultDeclaration":
        return;
      case "UnaryExpression":
        if (p.operator === "typeof" || p.operator === "void" || p.operator === "!") return;
        break;
      case "BinaryExpression":
        if (p.operator === "===" || p.operator === "!==") return;
        break;
    }
    u.escaped = true;
  }

  /** How a member expression is used: read, written (assigned, updated, a destructuring target), deleted, or called. */
  private memberUse(entry: Entry): "read" | "write" | "call" {
    let cur = entry;
    while (cur.parent?.node.type === "ChainExpression") cur = cur.parent;
    const p = cur.parent?.node;
    if (p?.type === "UnaryExpression" && p.operator === "delete") return "write";
    if ((p?.type === "CallExpression" && cur.key === "callee") || (p?.type === "TaggedTemplateExpression" && cur.key === "tag")) return "call";
    return targetRole(cur) === "write" ? "write" : "read";
  }

  // ---- values ----

  /** A property name known without running anything: a literal, a plain template, or a const bound to one. */
  staticKey(node: Loose, depth = 0): string | undefined {
    if (node.type === "Literal" && (typeof node.value === "string" || typeof node.value === "number")) return String(node.value);
    if (node.type === "TemplateLiteral" && (node.expressions as unknown[]).length === 0)
      return ((node.quasis as Loose[])[0]!.value as { cooked?: string | null }).cooked ?? undefined;
    if (node.type === "Identifier" && !this.directEval && depth < MAX_ALIAS_CHAIN) {
      const b = this.constAt(node.name as string, node.start);
      if (b !== undefined) return this.staticKey(b.init, depth + 1);
    }
    return undefined;
  }

  private resolveConst(name: string, init: Loose): Resolved {
    const root = this.objectRoot.get(name);
    if (root === name) return { kind: "object", members: this.rootMembers(name, init) };
    if (root !== undefined) return this.resolved.get(root) ?? { kind: "none" };
    if (init.type === "ObjectExpression" || (this.aliasDepth.get(name) ?? 0) > MAX_ALIAS_CHAIN) return { kind: "none" };
    return { kind: "value", value: this.value(init) };
  }

  /** The members of the object literal bound to `root`, less every one the module may change. */
  private rootMembers(root: string, init: Loose): Members {
    const members = this.members(init);
    const u = this.uses.get(root);
    if (u === undefined) return members;
    const forgetAll = () => {
      for (const k of members.keys()) members.set(k, UNKNOWN);
    };
    if (u.escaped || u.written === true || u.called === true) {
      forgetAll();
      return members;
    }
    for (const k of u.written) if (members.has(k)) members.set(k, UNKNOWN);
    // A method call hands the object to the method as `this`; only a method of this module that
    // never lets `this` out nor writes through it is harmless.
    for (const k of u.called) if (!members.get(k)?.receiverSafe) forgetAll();
    // An accessor runs on any read, spread, call or write of a member; so does a prototype's.
    const used = u.read || u.written.size > 0 || u.called.size > 0;
    if (
      used &&
      (init.properties as Loose[]).some((p) => p.type === "Property" && (isProtoSetter(p) || (p.kind !== "init" && this.thisEscapes.has(p.value as Loose))))
    )
      forgetAll();
    return members;
  }

  /** The own members an object literal defines, in order; a spread or key that cannot be resolved makes every earlier member unknown. */
  members(object: Loose): Members {
    const out: Members = new Map();
    const forget = () => {
      for (const k of out.keys()) out.set(k, UNKNOWN);
    };
    for (const p of object.properties as Loose[]) {
      if (p.type === "SpreadElement") {
        const arg = p.argument as Loose;
        if (arg.type === "Literal" && arg.value === null) continue;
        const inner = this.object(arg);
        if (typeof inner === "string") forget();
        else for (const [k, v] of inner) out.set(k, v);
        continue;
      }
      const key = p.key as Loose;
      const name = p.computed ? this.staticKey(key) : key.type === "Identifier" ? (key.name as string) : key.type === "Literal" ? String(key.value) : undefined;
      if (name === undefined) {
        forget();
        continue;
      }
      if (isProtoSetter(p)) continue;
      // A getter or setter is unknown: the host does not run the getter to see what it returns.
      out.set(name, p.kind === "init" ? this.value(p.value as Loose) : UNKNOWN);
    }
    return out;
  }

  /** Whether `node`'s value is statically callable. */
  value(node: Loose): Value {
    switch (node.type) {
      case "FunctionExpression":
        return { callable: true, receiverSafe: !this.thisEscapes.has(node) };
      case "ArrowFunctionExpression":
      case "ClassExpression":
        return { callable: true, receiverSafe: true };
      case "Identifier":
        return this.name(node);
      case "MemberExpression": {
        const member = node.computed ? this.staticKey(node.property as Loose) : ((node.property as Loose).name as string | undefined);
        const object = this.object(node.object as Loose);
        return member === undefined || typeof object === "string" ? UNKNOWN : (object.get(member) ?? UNKNOWN);
      }
      default:
        return UNKNOWN;
    }
  }

  private name(id: Loose): Value {
    const name = id.name as string;
    if (this.directEval) return UNKNOWN;
    const b = this.bindings.get(name);
    if (b === undefined) return UNKNOWN;
    if (b.kind === "function") return this.reassigned.has(name) ? UNKNOWN : { callable: true, receiverSafe: !this.thisEscapes.has(b.node) };
    if (b.kind === "class") return this.reassigned.has(name) || b.ready > id.start ? UNKNOWN : { callable: true, receiverSafe: true };
    if (b.ready > id.start) return UNKNOWN;
    const r = this.resolved.get(name);
    return r?.kind === "value" ? r.value : UNKNOWN;
  }

  /** The members of an object-valued expression, or why it is not one this host can read. */
  object(node: Loose): Members | string {
    if (node.type === "ObjectExpression") return this.members(node);
    if (node.type !== "Identifier") return label(node);
    const name = node.name as string;
    if (this.directEval) return `the binding ${name}, in a module that calls eval (which can rebind anything)`;
    const b = this.bindings.get(name);
    if (b?.kind === "const" && b.ready > node.start) return `the binding ${name}, read before its declaration completes (the module would throw)`;
    const r = this.resolved.get(name);
    if (b?.kind === "const" && r?.kind === "object") return new Map(r.members);
    if ((this.aliasDepth.get(name) ?? 0) > MAX_ALIAS_CHAIN)
      return `the binding ${name}, at the end of more than ${MAX_ALIAS_CHAIN} const aliases (the host follows no further)`;
    return `the binding ${name}, which is not a top-level const (or a let or var bound once and never written) bound to an object literal`;
  }

  /** The members of the default-exported expression, or why it cannot be read. */
  defaultExport(expression: Expression): Members | string {
    return this.object(expression as unknown as Loose);
  }
}
