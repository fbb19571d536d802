// Turns a JSON value from the synthesized stack into an Expression tree, once, at load time.
// Subtrees with no interpolation collapse into one literal. Refusals are reported through
// `onIssue` with the attribute path, and parsing continues so every problem is reported at once.

import type { KnownValue } from "../../../core/index.ts";
import type { Expression, InterpolationExpr } from "../types.ts";
import { scanTemplate } from "./template.ts";
import { appendPath, describeUnsupported, parseTraversal } from "./traversal.ts";

export interface ExpressionIssue {
  /** Where in the value, e.g. `bindings[0].service` (empty for the value itself). */
  path: string;
  summary: string;
  detail: string;
  repair: string;
}

export type IssueSink = (issue: ExpressionIssue) => void;

const NOT_EVALUATED =
  "takoform evaluates references to resource attributes (`${type.name.attribute}`), input variables (`${var.name}`) and other stacks' outputs (`${data.terraform_remote_state.name.outputs.x}`) in configuration, and nothing else: it does not run Terraform functions, operators or other expressions.";

const ROOT_REFUSALS: Record<string, { summary: string; repair: string }> = {
  local: {
    summary: "Local values are not supported",
    repair: "Replace the TerraformLocal with a TypeScript constant; its value is known when the app runs.",
  },
  data: {
    summary: "Data sources are not supported",
    repair:
      "Reference a managed resource's attribute instead, or pass the value in as a variable; another stack's values are read through cdktf's cross-stack references (data.terraform_remote_state).",
  },
  module: {
    summary: "Terraform modules are not supported",
    repair: "Compose resources with constructs (for example WorkerApp) instead of a Terraform module.",
  },
  count: { summary: "`count` is not supported", repair: "Create one construct per instance in TypeScript." },
  each: { summary: "`for_each` is not supported", repair: "Create one construct per instance in TypeScript." },
  self: { summary: "`self` references are not supported", repair: "Provisioners and connections are not supported; remove the block." },
  path: { summary: "`path.*` values are not supported", repair: "Compute the path in TypeScript when the app runs." },
  terraform: { summary: "`terraform.*` values are not supported", repair: "Use a TypeScript value or a variable instead." },
};

/**
 * Deepest nesting of lists and objects inside one value. A stack read from text is already
 * bounded by the strict reader; a document handed over already parsed is bounded here, so the
 * recursion below (and every later walk over the value) stays far from the call stack's limit.
 */
export const MAX_VALUE_DEPTH = 256;

/** Parses one configuration value. `basePath` prefixes issue paths (an attribute name). */
export function parseExpression(value: unknown, onIssue: IssueSink, basePath = "", depth = 0): Expression {
  if ((Array.isArray(value) || (value !== null && typeof value === "object")) && depth >= MAX_VALUE_DEPTH) {
    onIssue({
      path: basePath,
      summary: "Value nested too deeply",
      detail: `The value nests lists and objects more than ${MAX_VALUE_DEPTH} levels deep.`,
      repair: `Nest values at most ${MAX_VALUE_DEPTH} levels deep; no attribute of a Form needs more.`,
    });
    return { kind: "literal", value: null };
  }
  if (value === null || typeof value === "boolean") return { kind: "literal", value };
  if (typeof value === "number") {
    if (!Number.isFinite(value)) {
      onIssue({ path: basePath, summary: "Invalid number", detail: `${value} is not a JSON number.`, repair: "Use a finite number." });
      return { kind: "literal", value: null };
    }
    return { kind: "literal", value };
  }
  if (typeof value === "string") return parseString(value, onIssue, basePath);
  if (Array.isArray(value)) {
    const items = value.map((item, i) => parseExpression(item, onIssue, appendPath(basePath, i), depth + 1));
    return items.every((item) => item.kind === "literal")
      ? { kind: "literal", value: items.map((item) => (item as { value: KnownValue }).value) }
      : { kind: "list", items };
  }
  if (typeof value === "object") {
    const entries: Record<string, Expression> = {};
    let allLiteral = true;
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      const path = appendPath(basePath, key);
      if (key.includes("${")) {
        onIssue({
          path,
          summary: "Interpolation in an object key",
          detail: `The key ${JSON.stringify(key)} contains an interpolation; object keys must be literal.`,
          repair: "Use a literal key.",
        });
      }
      const parsed = parseExpression(item, onIssue, path, depth + 1);
      if (parsed.kind !== "literal") allLiteral = false;
      entries[key] = parsed;
    }
    if (!allLiteral) return { kind: "object", entries };
    const literal: Record<string, KnownValue> = {};
    for (const [key, item] of Object.entries(entries)) literal[key] = (item as { value: KnownValue }).value;
    return { kind: "literal", value: literal };
  }
  onIssue({ path: basePath, summary: "Invalid value", detail: `A ${typeof value} is not a JSON value.`, repair: "Use JSON values only." });
  return { kind: "literal", value: null };
}

function parseString(value: string, onIssue: IssueSink, path: string): Expression {
  const scanned = scanTemplate(value);
  if (!scanned.ok) {
    onIssue({
      path,
      summary: "Unsupported template",
      detail: `In ${JSON.stringify(scanned.excerpt)}: ${scanned.reason}. ${NOT_EVALUATED}`,
      repair: "Build the string in TypeScript before synthesis.",
    });
    return { kind: "literal", value };
  }
  const parts: (string | InterpolationExpr)[] = [];
  for (const segment of scanned.segments) {
    if (segment.kind === "text") {
      parts.push(segment.text);
      continue;
    }
    const interpolation = parseInterpolation(segment.source, onIssue, path);
    parts.push(interpolation ?? `\${${segment.source}}`);
  }
  if (parts.length === 1 && typeof parts[0] !== "string") return parts[0]!;
  if (parts.every((part) => typeof part === "string")) return { kind: "literal", value: parts.join("") };
  return { kind: "template", parts };
}

/** One `${…}` body → a reference or a variable; null (after reporting) when refused. */
export function parseInterpolation(source: string, onIssue: IssueSink, path: string): InterpolationExpr | null {
  const traversal = parseTraversal(source);
  const text = source.trim();
  if (traversal === null) {
    onIssue({
      path,
      summary: "Unsupported expression",
      detail: `"\${${text}}" is ${describeUnsupported(source)}. ${NOT_EVALUATED}`,
      repair:
        "Compute the value in TypeScript before synthesis (cdktf's Fn.* helpers and operators render Terraform expressions; use plain TypeScript values instead), or reference an attribute directly.",
    });
    return null;
  }
  // The one data source takoform reads: another stack's state (a cross-stack reference).
  const [kind, name] = traversal.steps;
  if (traversal.root === "data" && kind === "terraform_remote_state" && typeof name === "string") {
    return { kind: "data", name, address: `data.terraform_remote_state.${name}`, path: traversal.steps.slice(2), text };
  }
  const refusal = ROOT_REFUSALS[traversal.root];
  if (refusal) {
    onIssue({
      path,
      summary: refusal.summary,
      detail: `"\${${text}}" refers to ${traversal.root}.*, which takoform does not support.`,
      repair: refusal.repair,
    });
    return null;
  }
  const [first, ...rest] = traversal.steps;
  if (typeof first !== "string") {
    onIssue({
      path,
      summary: "Unsupported expression",
      detail: `"\${${text}}" is not a reference: a reference names a resource (\`type.name\`) or a variable (\`var.name\`).`,
      repair: "Reference a resource attribute as `${type.name.attribute}` or a variable as `${var.name}`.",
    });
    return null;
  }
  if (traversal.root === "var") return { kind: "variable", name: first, path: rest, text };
  return { kind: "reference", address: `${traversal.root}.${first}`, path: rest, text };
}
