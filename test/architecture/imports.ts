// The import graph of src/**, read the way the compiler reads it (typescript's preProcessFile:
// static imports and re-exports, `import type`, and dynamic `import("…")`), for the layering test.

import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

export interface ImportEdge {
  /** Importing file, relative to the repository root with `/` separators (`src/cli/connect.ts`). */
  from: string;
  /** Imported file, likewise (`src/engine/index.ts`, `registry/generated/index.gen.ts`). */
  to: string;
  /** The specifier as written. */
  specifier: string;
  /** 1-based line of the import in `from`. */
  line: number;
  /** A dynamic `import("…")`. */
  dynamic: boolean;
  /** `import type` / `export type`: erased from the JavaScript, so nothing is loaded at run time. */
  typeOnly: boolean;
}

const posix = (path: string): string => path.split(sep).join("/");

function listTs(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listTs(path));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

/** Every relative import of every TypeScript file under `root/src`. */
export function importGraph(root: string): { files: string[]; edges: ImportEdge[] } {
  const files = listTs(join(root, "src")).sort();
  const edges: ImportEdge[] = [];
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const info = ts.preProcessFile(text, true, true);
    for (const ref of info.importedFiles) {
      if (!ref.fileName.startsWith(".")) continue;
      const line = text.slice(0, ref.pos).split("\n").length;
      // `pos` is where the quoted specifier starts: a dynamic import has `import(` just before it.
      const dynamic = /import\s*\(\s*$/.test(text.slice(Math.max(0, ref.pos - 40), ref.pos));
      const typeOnly = !dynamic && isTypeOnly(text, ref.pos);
      edges.push({
        from: posix(relative(root, file)),
        to: posix(relative(root, resolve(dirname(file), ref.fileName))),
        specifier: ref.fileName,
        line,
        dynamic,
        typeOnly,
      });
    }
  }
  return { files: files.map((f) => posix(relative(root, f))), edges };
}

/**
 * Whether the import or export statement the specifier at `pos` ends is type-only: `import type`,
 * `export type`, or a clause whose every member is `type X`.
 */
function isTypeOnly(text: string, pos: number): boolean {
  const start = Math.max(text.lastIndexOf("\nimport", pos), text.lastIndexOf("\nexport", pos), 0);
  const statement = text.slice(start, pos).trim();
  if (/^(import|export)\s+type\s/.test(statement)) return true;
  const clause = /\{([^}]*)\}/.exec(statement);
  if (clause === null) return false;
  const members = clause[1]!
    .split(",")
    .map((m) => m.trim())
    .filter((m) => m !== "");
  return members.length > 0 && members.every((m) => m.startsWith("type "));
}

/**
 * Strongly connected components of a directed graph with more than one member, or with a
 * self-loop (iterative Tarjan, so a deep graph cannot overflow the stack).
 */
export function cyclicComponents(nodes: readonly string[], next: (node: string) => readonly string[]): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  let counter = 0;
  for (const start of nodes) {
    if (index.has(start)) continue;
    const work: { node: string; children: readonly string[]; i: number }[] = [];
    const open = (node: string): void => {
      index.set(node, counter);
      low.set(node, counter++);
      stack.push(node);
      onStack.add(node);
      work.push({ node, children: next(node), i: 0 });
    };
    open(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      if (frame.i < frame.children.length) {
        const child = frame.children[frame.i++]!;
        if (!index.has(child)) open(child);
        else if (onStack.has(child)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(child)!));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const members: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          members.push(member);
        } while (member !== frame.node);
        if (members.length > 1 || next(frame.node).includes(frame.node)) out.push(members.sort());
      }
    }
  }
  return out;
}

/** One loop through `members` (the shortest from the first member back to itself), as a path. */
export function loopThrough(members: readonly string[], next: (node: string) => readonly string[]): string[] {
  const inside = new Set(members);
  const start = members[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    for (const child of next(node)) {
      if (!inside.has(child)) continue;
      if (child === start) {
        const path = [start];
        for (let at: string | undefined = node; at !== undefined && at !== start; at = previous.get(at)) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!previous.has(child)) {
        previous.set(child, node);
        queue.push(child);
      }
    }
  }
  return [...members, start];
}
