// Running a Form's conformance fixtures against its own schemas: every positive fixture must
// validate, every negative one must be refused at its stage.
//
// Desired-stage documents are checked the way a host sees them: top-level defaults are
// materialized first (host-api §1.7), then the spec is validated. A fixture file that cannot
// be read or is not strict I-JSON is a failed verdict with `error` set, never a pass.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { FixtureStage } from "./definition-types.ts";
import type { LoadedForm } from "./catalog.ts";
import type { JsonValue } from "./digest.ts";
import type { JsonObject } from "./shape.ts";
import { parseStrictJson } from "./strict-json.ts";
import { compileDesiredSchema, materializeDefaults, type SpecViolation } from "./validate.ts";

export interface FixtureVerdict {
  /** Definition path of the Form (relative to the catalog root). */
  form: string;
  fixture: string;
  expected: "valid" | "invalid";
  actual: "valid" | "invalid";
  ok: boolean;
  violations?: SpecViolation[];
  /** Why the fixture could not be checked at all (unreadable or not strict JSON). */
  error?: string;
}

export function checkFixtures(form: LoadedForm): FixtureVerdict[] {
  const verdicts: FixtureVerdict[] = [];
  const definition = form.definition;
  for (const fixture of definition.conformanceFixtures ?? []) {
    const stages: [FixtureStage, string | undefined][] = [
      ["desired", fixture.desiredPath],
      ["observed", fixture.observedPath],
      ["output", fixture.outputPath],
    ];
    const violations: SpecViolation[] = [];
    let error: string | undefined;
    for (const [stage, path] of stages) {
      if (path === undefined) continue;
      const result = checkDocument(form, stage, path);
      if ("error" in result) error ??= result.error;
      else violations.push(...result.violations);
    }
    verdicts.push(verdict(form.path, fixture.name, "valid", violations, error));
  }
  for (const fixture of definition.negativeConformanceFixtures ?? []) {
    const result = checkDocument(form, fixture.stage, fixture.inputPath);
    if ("error" in result) verdicts.push(verdict(form.path, fixture.name, "invalid", [], result.error));
    else verdicts.push(verdict(form.path, fixture.name, "invalid", result.violations));
  }
  return verdicts;
}

function verdict(form: string, fixture: string, expected: "valid" | "invalid", violations: SpecViolation[], error?: string): FixtureVerdict {
  const actual = error !== undefined || violations.length > 0 ? "invalid" : "valid";
  const out: FixtureVerdict = { form, fixture, expected, actual, ok: error === undefined && actual === expected };
  if (violations.length > 0) out.violations = violations;
  if (error !== undefined) out.error = error;
  return out;
}

function checkDocument(form: LoadedForm, stage: FixtureStage, path: string): { violations: SpecViolation[] } | { error: string } {
  let document: JsonValue;
  try {
    document = parseStrictJson(readFileSync(join(form.directory, path)));
  } catch (error) {
    return { error: `${path}: ${error instanceof Error ? error.message : String(error)}` };
  }
  const schema = schemaFor(form, stage);
  if (schema === undefined) return { error: `${path}: the Form declares no ${stage} schema` };
  const input = stage === "desired" ? materializeDefaults(schema, document) : document;
  return { violations: compileDesiredSchema(schema).validate(input) };
}

function schemaFor(form: LoadedForm, stage: FixtureStage): JsonObject | undefined {
  const d = form.definition;
  return stage === "desired" ? d.desiredSchema : stage === "observed" ? d.observedSchema : d.outputSchema;
}
