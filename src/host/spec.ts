// The materialization entry point of validate, prepare, apply and import (reference §1.7):
// declared top-level defaults are filled in, the Form's rules canonicalize the spec, and only
// then is it validated, digested, stored or echoed. The effective spec IS the wire spec.

import { canonicalJson, digestBytes } from "../forms/digest.ts";
import type { JsonObject } from "../forms/shape.ts";
import { materializeDefaults } from "../forms/validate.ts";
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
  if (result.problems.length > 0) {
    const shown = result.problems.slice(0, 8).map((p) => `/spec${p.pointer}: ${p.message}`);
    const more = result.problems.length > 8 ? ` (and ${result.problems.length - 8} more)` : "";
    throw invalidArgument(`the spec does not satisfy ${form.ref.kind}@${form.ref.definitionVersion}: ${shown.join("; ")}${more}`, {
      details: result.problems.slice(0, 64).map((p) => ({ field: `/spec${p.pointer}`, message: p.message })),
    });
  }
  return result;
}
