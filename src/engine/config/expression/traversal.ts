// The only expression form accepted inside `${…}`: a traversal — an identifier followed by
// `.attr`, `.0`, `[0]` or `["key"]` steps. Anything else is named precisely (function call,
// operator, conditional, …) so the refusal can say what was found.

/** Identifier: a letter or `_`, then letters, digits, `_` or `-` (HCL allows dashes). */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*$/;

export interface Traversal {
  root: string;
  steps: (string | number)[];
}

/** Parses `a.b[0]["c"].d` (surrounding whitespace allowed). Returns null when it is not a traversal. */
export function parseTraversal(source: string): Traversal | null {
  const text = source.trim();
  let i = 0;
  const identifier = (): string | null => {
    const match = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(text.slice(i));
    if (!match) return null;
    i += match[0].length;
    return match[0];
  };
  const root = identifier();
  if (root === null) return null;
  const steps: (string | number)[] = [];
  while (i < text.length) {
    const c = text[i];
    if (c === ".") {
      i++;
      const digits = /^\d+/.exec(text.slice(i));
      if (digits && !/^[A-Za-z_-]/.test(text.slice(i + digits[0].length))) {
        steps.push(Number(digits[0]));
        i += digits[0].length;
        continue;
      }
      const name = identifier();
      if (name === null) return null;
      steps.push(name);
    } else if (c === "[") {
      const rest = text.slice(i);
      const index = /^\[\s*(\d+)\s*\]/.exec(rest);
      if (index) {
        steps.push(Number(index[1]));
        i += index[0].length;
        continue;
      }
      const key = /^\[\s*("(?:[^"\\]|\\.)*")\s*\]/.exec(rest);
      if (!key) return null;
      steps.push(JSON.parse(key[1]!) as string);
      i += key[0].length;
    } else {
      return null;
    }
  }
  return { root, steps };
}

export function isIdentifier(text: string): boolean {
  return IDENTIFIER.test(text);
}

/** Names the unsupported construct in an interpolation body, for the refusal message. */
export function describeUnsupported(source: string): string {
  const text = source.trim();
  if (text.startsWith("~") || text.endsWith("~")) return "a whitespace strip marker (`~`)";
  const call = /^([A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z0-9_]+)*)\s*\(/.exec(text);
  if (call) return `a call of the function ${call[1]}()`;
  if (/^[[{]\s*for\b/.test(text)) return "a `for` expression";
  if (/\[\s*\*\s*\]|\.\*/.test(text)) return "a splat expression (`[*]`)";
  if (/\?[^?]*:/.test(text)) return "a conditional expression (`a ? b : c`)";
  if (/&&|\|\||==|!=|<=|>=|[<>!+*/%]|\s-\s|^-/.test(text)) return "an operator";
  if (/^(true|false|null)$/.test(text) || /^-?\d/.test(text) || text.startsWith('"')) return "a literal inside an interpolation";
  if (text.startsWith("[") || text.startsWith("{")) return "a list or object constructor";
  return "an expression that is not a plain reference";
}

/** Renders an attribute path the Terraform way: `versions[0].weight`, `tags["a b"]`. */
export function formatPath(path: readonly (string | number)[]): string {
  let out = "";
  for (const step of path) {
    if (typeof step === "number") out += `[${step}]`;
    else if (IDENTIFIER.test(step)) out += out === "" ? step : `.${step}`;
    else out += `[${JSON.stringify(step)}]`;
  }
  return out;
}

/** Extends a rendered path by one step: `appendPath("a", "b")` is `a.b`, `appendPath("a", 0)` is `a[0]`. */
export function appendPath(base: string, step: string | number): string {
  if (typeof step === "number") return `${base}[${step}]`;
  if (!IDENTIFIER.test(step)) return `${base}[${JSON.stringify(step)}]`;
  return base === "" ? step : `${base}.${step}`;
}
