// What a defect is: an edit of a valid stack, and the diagnostic it must earn. Three stages,
// matching how the engine refuses a stack:
//   syntax  the document is not strict I-JSON: the reader refuses it, with one diagnostic;
//   load    the document reads, but the loader refuses a block, expression or reference;
//   check   the stack loads, and the configuration pass refuses it against the schemas.
// A stack gets one syntax defect, or one to three defects of one other stage; every defect's
// expected diagnostic must then be among the refusal's (a stage reports all of its errors).

import type { ResourceTypeSchema } from "../../../src/provider/types.ts";
import { resourcesOf, type JsonObject, type RawValues, type ResourceRef } from "./document.ts";
import type { Rng } from "./random.ts";

export type Stage = "syntax" | "load" | "check";

/** A diagnostic the refusal must contain: this code, at this address when one is given. */
export interface Expectation {
  code: string;
  address?: string;
}

export interface Applied {
  description: string;
  expect: Expectation;
}

export interface DefectContext {
  rng: Rng;
  /** The document being broken (edited in place). */
  document: JsonObject;
  raw: RawValues;
  /** Addresses another defect of this stack already broke (one defect per resource). */
  used: Set<string>;
  /** Top-level changes made once per stack (a second `data` block would be a repeated key). */
  once: Set<string>;
  schema(type: string): ResourceTypeSchema | undefined;
}

export interface Defect {
  kind: string;
  stage: "load" | "check";
  /** Breaks the document, or returns null when it does not apply to what is left. */
  apply(ctx: DefectContext): Applied | null;
}

/** Meta-arguments and the comment object: never schema attributes. */
export const META = new Set(["//", "depends_on", "lifecycle", "provider", "count", "for_each", "provisioner", "connection"]);

/** An unused resource accepted by `filter`, marked used; null when none is left. */
export function target(ctx: DefectContext, filter: (r: ResourceRef) => boolean = () => true): ResourceRef | null {
  const candidates = resourcesOf(ctx.document).filter((r) => !ctx.used.has(r.address) && filter(r));
  if (candidates.length === 0) return null;
  const chosen = ctx.rng.pick(candidates);
  ctx.used.add(chosen.address);
  return chosen;
}

/** A name near `name` that `taken` does not hold: a swap, a drop, a double, a case change. */
export function misspell(rng: Rng, name: string, taken: (candidate: string) => boolean): string {
  for (let attempt = 0; attempt < 20; attempt++) {
    const i = rng.int(0, Math.max(0, name.length - 2));
    const variants = [
      name.slice(0, i) + name[i + 1] + name[i] + name.slice(i + 2),
      name.slice(0, i) + name.slice(i + 1),
      name.slice(0, i) + name[i] + name.slice(i),
      name.toUpperCase(),
      name[0]!.toUpperCase() + name.slice(1),
      `${name}s`,
    ];
    const candidate = rng.pick(variants);
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(candidate) && candidate !== name && !taken(candidate) && !META.has(candidate)) return candidate;
  }
  return `${name}_${rng.int(100, 999)}`;
}
