// The lane is data, not forked code: no file of src/ outside the lane table (src/core/lanes.ts)
// spells a lane name (v1alpha3, v1beta1) or an Edge family group in a string or template literal.
// Generated constructs are data written from the Form packages and are left out. Comments may
// name a lane (they cite the reference); code may not.

import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../../src", import.meta.url));
const TABLE = "core/lanes.ts";
const GENERATED = "constructs/generated/";
const LANE_LITERAL = /\bv1(?:alpha3|beta1)\b|edge\.forms\.takoform\.com\/|edge\.takoform-cdk\.dev\//;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** Every string or template literal piece of `text` that names a lane or an Edge group, with its line. */
export function laneLiterals(text: string): { line: number; literal: string }[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const out: { line: number; literal: string }[] = [];
  const literal = new Set([
    ts.SyntaxKind.StringLiteral,
    ts.SyntaxKind.NoSubstitutionTemplateLiteral,
    ts.SyntaxKind.TemplateHead,
    ts.SyntaxKind.TemplateMiddle,
    ts.SyntaxKind.TemplateTail,
  ]);
  // Template continuations (`}…`) are scanned only when asked for after a close brace inside a template.
  let templateDepth = 0;
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.TemplateHead) templateDepth++;
    if (kind === ts.SyntaxKind.CloseBraceToken && templateDepth > 0) {
      kind = scanner.reScanTemplateToken(false);
      if (kind === ts.SyntaxKind.TemplateTail) templateDepth--;
    }
    if (kind === ts.SyntaxKind.SlashToken || kind === ts.SyntaxKind.SlashEqualsToken) kind = scanner.reScanSlashToken();
    if (literal.has(kind) && LANE_LITERAL.test(scanner.getTokenValue())) {
      out.push({ line: text.slice(0, scanner.getTokenStart()).split("\n").length, literal: scanner.getTokenValue() });
    }
  }
  return out;
}

describe("lane literals live only in the lane table", () => {
  it("finds a lane or Edge group in any kind of literal, and nowhere in a comment", () => {
    const sample = [
      "// the v1alpha3 lane, in a comment",
      'const a = "/apis/forms.takoform.com/v1alpha3";',
      "const b = `x ${1} edge.takoform-cdk.dev/v1beta1 ${2} y`;",
      "const c = 'edge.forms.takoform.com/v1alpha1';",
      "const d = /v1beta1/.test(a) ? `v1beta1` : a;",
    ].join("\n");
    expect(laneLiterals(sample).map((h) => h.line)).toEqual([2, 3, 4, 5]);
  });

  it("no source file outside src/core/lanes.ts spells one", () => {
    const offenders: string[] = [];
    for (const file of sources(SRC)) {
      const rel = relative(SRC, file).split("\\").join("/");
      if (rel === TABLE || rel.startsWith(GENERATED)) continue;
      for (const hit of laneLiterals(readFileSync(file, "utf8"))) offenders.push(`src/${rel}:${hit.line}: ${JSON.stringify(hit.literal)}`);
    }
    expect(offenders).toEqual([]);
  });

  it("the table itself holds them (the scan reads what it should)", () => {
    expect(laneLiterals(readFileSync(join(SRC, TABLE), "utf8")).length).toBeGreaterThan(4);
  });
});
