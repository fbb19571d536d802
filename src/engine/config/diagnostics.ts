// Diagnostic codes of configuration loading, and a small collector the block readers share.

import type { Diagnostic } from "../../core/diagnostic.ts";

export const CONFIG_CODES = {
  invalidJson: "takoform.config/invalid-json",
  duplicateKey: "takoform.config/duplicate-key",
  nestingTooDeep: "takoform.config/nesting-too-deep",
  invalidStructure: "takoform.config/invalid-structure",
  unsupportedBlock: "takoform.config/unsupported-block",
  unsupportedMetaArgument: "takoform.config/unsupported-meta-argument",
  unsupportedExpression: "takoform.config/unsupported-expression",
  undeclaredReference: "takoform.config/undeclared-reference",
  selfReference: "takoform.config/self-reference",
  unsupportedProvider: "takoform.config/unsupported-provider",
  invalidVariable: "takoform.config/invalid-variable",
  variableMissing: "takoform.config/variable-missing",
  variableType: "takoform.config/variable-type",
  undeclaredVariableValue: "takoform.config/undeclared-variable-value",
  invalidImport: "takoform.config/invalid-import",
  ignoredSetting: "takoform.config/ignored-setting",
  projectInvalid: "takoform.config/project-invalid",
  appFailed: "takoform.config/app-failed",
  manifestInvalid: "takoform.config/manifest-invalid",
  stackNotFound: "takoform.config/stack-not-found",
  stackAmbiguous: "takoform.config/stack-ambiguous",
  appAnnotation: "takoform.config/app-annotation",
  backendUnsupported: "takoform.config/backend-unsupported",
  backendInvalid: "takoform.config/backend-invalid",
} as const;

export type ConfigCode = (typeof CONFIG_CODES)[keyof typeof CONFIG_CODES];

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
