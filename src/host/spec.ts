// The materialization entry point of validate, prepare, apply and import (reference §1.7):
// declared top-level defaults are filled in, the Form's rules canonicalize the spec, and only
// then is it validated, digested, stored or echoed. The effective spec IS the wire spec.
//
// Two tiers of refusal: the schema and the Form's spec rules (`validateSpec`) refuse a spec
// everywhere; the spec-only semantic rules (`validateWrite`: deployment weights, the module
// environment namespace) refuse it only where the protocol runs semantic validation — apply
// and import (reference §2.7 step 6). A prepare accepts such a spec and mints its review, as
// upstream's reference host does (§11 Q20, checks `deployment-weight-sum-enforced` and
// `binding-name-collision-rejected`).

import { canonicalJson, digestBytes, type JsonObject, materializeDefaults } from "../forms/index.ts";
import type { CatalogForm } from "./catalog.ts";
import { invalidArgument } from "./errors.ts";
import type { SpecProblem } from "./rules/types.ts";

export interface MaterializedSpec {
  spec: JsonObject;
  /** RFC 8785 text of the spec: what is stored and echoed. */
  canonical: string;
  /** `specDigest`: the canonical digest of the materialized spec. */
  digest: string;
  problems: SpecProblem[];
}

export function materializeSpec(form: CatalogForm, raw: JsonObject): MaterializedSpec {
  let spec = materializeDefaults(form.desiredSchema, raw) as JsonObject;
  if (form.rules.canonicalizeSpec !== undefined) spec = form.rules.canonicalizeSpec(spec, form);
  const problems: SpecProblem[] = form.validator.validate(spec).map((v) => ({ pointer: v.pointer, message: `${v.message} (${v.keyword})` }));
  // Host-side rules read a schema-valid spec; a spec the schema refuses is already refused.
  if (problems.length === 0 && form.rules.validateSpec !== undefined) problems.push(...form.rules.validateSpec(spec, form));
  const canonical = canonicalJson(spec);
  return { spec, canonical, digest: digestBytes(canonical), problems };
}

/** The spec, or invalid_argument listing what the schema and the host rules refuse. */
export function requireValidSpec(form: CatalogForm, raw: JsonObject): MaterializedSpec {
  const result = materializeSpec(form, raw);
  if (result.problems.length > 0) throw specRefusal(form, result.problems);
  return result;
}

/** The semantic problems apply and import refuse on top of `problems` (none for a schema-invalid spec). */
export function writeProblems(form: CatalogForm, spec: MaterializedSpec): SpecProblem[] {
  if (spec.problems.length > 0 || form.rules.validateWrite === undefined) return [];
  return form.rules.validateWrite(spec.spec, form);
}

/** Apply and import: a valid spec that the spec-only semantic rules also accept, else invalid_argument. */
export function requireWritableSpec(form: CatalogForm, spec: MaterializedSpec): void {
  const problems = writeProblems(form, spec);
  if (problems.length > 0) throw specRefusal(form, problems);
}

function specRefusal(form: CatalogForm, problems: readonly SpecProblem[]): Error {
  const shown = problems.slice(0, 8).map((p) => `/spec${p.pointer}: ${p.message}`);
  const more = problems.length > 8 ? ` (and ${problems.length - 8} more)` : "";
  return invalidArgument(`the spec does not satisfy ${form.ref.kind}@${form.ref.definitionVersion}: ${shown.join("; ")}${more}`, {
    details: problems.slice(0, 64).map((p) => ({ field: `/spec${p.pointer}`, message: p.message })),
  });
}
