// The seeded malformed-stack generator: each stack is a valid base stack (base.ts) broken by one
// syntax defect, or by one to three defects of the load or the check stage (defect.ts), each with
// the diagnostic it must earn. The same seed always yields the same stacks.

import type { ResourceTypeSchema } from "../../../src/provider/types.ts";
import { CHECK_DEFECTS } from "./check.ts";
import { RawValues, clone, type JsonObject } from "./document.ts";
import type { Defect, DefectContext, Expectation, Stage } from "./defect.ts";
import { LOAD_DEFECTS } from "./load.ts";
import { Rng } from "./random.ts";
import { SYNTAX_DEFECTS } from "./syntax.ts";

export interface MalformedStack {
  /** `seed/index`: enough to regenerate it. */
  id: string;
  stage: Stage;
  kinds: string[];
  descriptions: string[];
  expectations: Expectation[];
  source: string | Uint8Array;
}

export interface GeneratorOptions {
  seed: number;
  count: number;
  /** The valid stack every malformed one is derived from. */
  base: JsonObject;
  schema(type: string): ResourceTypeSchema | undefined;
}

function generateOne(rng: Rng, options: GeneratorOptions, id: string): MalformedStack {
  const stage: Stage = rng.pick(["syntax", "load", "check", "check"] as const);
  const document = clone(options.base);
  if (stage === "syntax") {
    const defect = rng.pick(SYNTAX_DEFECTS);
    const broken = defect.apply(rng, document);
    return { id, stage, kinds: [defect.kind], descriptions: [broken.description], expectations: [{ code: broken.code }], source: broken.source };
  }
  const raw = new RawValues();
  const ctx: DefectContext = { rng, document, raw, used: new Set(), once: new Set(), schema: options.schema };
  const catalogue: readonly Defect[] = stage === "load" ? LOAD_DEFECTS : CHECK_DEFECTS;
  const wanted = rng.int(1, 3);
  const out: MalformedStack = { id, stage, kinds: [], descriptions: [], expectations: [], source: "" };
  for (let attempt = 0; out.kinds.length < wanted && attempt < 20; attempt++) {
    const defect = rng.pick(catalogue);
    const applied = defect.apply(ctx);
    if (applied === null) continue;
    out.kinds.push(defect.kind);
    out.descriptions.push(applied.description);
    out.expectations.push(applied.expect);
  }
  if (out.kinds.length === 0) throw new Error(`stack ${id}: no ${stage} defect applied`);
  // Serialized compactly or indented: line and column reporting sees both.
  out.source = rng.chance(0.5) ? raw.write(document) : JSON.stringify(JSON.parse(raw.write(document)), null, 2);
  return out;
}

export function generateMalformedStacks(options: GeneratorOptions): MalformedStack[] {
  const rng = new Rng(options.seed);
  return Array.from({ length: options.count }, (_, i) => generateOne(rng, options, `${options.seed}/${i}`));
}
