// Diagnostic codes of configuration loading, and a small collector the block readers share.

import { defineCodes, type Diagnostic } from "../../core/index.ts";

const configCodes = defineCodes("config", [
  "invalid-json",
  "file-not-found",
  "file-unreadable",
  "duplicate-key",
  "nesting-too-deep",
  "invalid-structure",
  "unsupported-block",
  "unsupported-meta-argument",
  "unsupported-expression",
  "undeclared-reference",
  "self-reference",
  "unsupported-provider",
  "invalid-variable",
  "variable-missing",
  "variable-type",
  "undeclared-variable-value",
  "invalid-import",
  "invalid-moved",
  "invalid-removed",
  "ignored-setting",
  "project-invalid",
  "project-not-found",
  "app-failed",
  "manifest-invalid",
  "stack-not-found",
  "stack-ambiguous",
  "stack-name-mismatch",
  "app-annotation",
  "app-validation",
  "type-error",
  "typecheck-failed",
  "backend-unsupported",
  "backend-invalid",
  "remote-state-invalid",
]);

/** The configuration loader's codes, `takoform.config/<name>` (its part of core's one table). */
export const CONFIG_CODES = configCodes.names;
export type ConfigCodeName = (typeof CONFIG_CODES)[number];
export type ConfigCode = `takoform.config/${ConfigCodeName}`;
export const configCode = configCodes.code;

export interface ProblemInput {
  code: ConfigCode;
  summary: string;
  detail?: string;
  repair?: string;
  address?: string;
  attribute?: string;
}

/** Collects diagnostics while the blocks are read; loading never throws on bad input. */
export class Problems {
  readonly diagnostics: Diagnostic[] = [];

  error(problem: ProblemInput): void {
    this.diagnostics.push(toDiagnostic("error", problem));
  }

  warning(problem: ProblemInput): void {
    this.diagnostics.push(toDiagnostic("warning", problem));
  }
}

function toDiagnostic(severity: Diagnostic["severity"], problem: ProblemInput): Diagnostic {
  const diagnostic: Diagnostic = { severity, summary: problem.summary, code: problem.code };
  if (problem.detail !== undefined) diagnostic.detail = problem.detail;
  if (problem.repair !== undefined) diagnostic.repair = problem.repair;
  if (problem.address !== undefined) diagnostic.address = problem.address;
  if (problem.attribute !== undefined) diagnostic.attribute = problem.attribute;
  return diagnostic;
}

/** `takoform_x.a (demo/a)`: the address with the construct path that produced it. */
export function describeResource(address: string, constructPath: string | undefined): string {
  return constructPath ? `${address} (construct ${constructPath})` : address;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
