// A saved plan of several stacks (`takoform plan '*' --out FILE`, `takoform apply FILE`;
// docs/stacks.md, "Saved plans of several stacks"). One file holds, per stack, exactly the saved
// plan `plan --out` writes for one stack (plan/file.ts: the stack's document, its non-sensitive
// variables, the state lineage and serial it was made at, every secret sealed, no backend
// password), the app's stack dependencies and the run's order, and what each stack read from
// other stacks when it was planned.
//
// What a stack read is kept only as digests (HMAC keyed by that stack's state lineage, as a
// sensitive variable is kept): cdktf marks every cross-stack output sensitive, and a plan file
// never holds a sensitive value in the clear. An output not known until its producer applied is
// kept as `unknown` (that stack is planned again after it). At apply the stack's remote states
// are read again from the producers' states; a known value that no longer matches its digest
// means the producer's state moved since the plan, and the stack is refused as stale.

import { isUnknown, type Diagnostic, type KnownValue, type Value, writePrivately } from "../../core/index.ts";
import { digestMatches, sealDigest } from "../../secrets/index.ts";
import { readStrictJson, STACK_MAX_DEPTH } from "../config/strict-read.ts";
import type { RemoteStateValue } from "../config/types.ts";
import { engineCode } from "../codes.ts";
import { decodePlanFile, encodePlanFile, PLAN_FILE_FORMAT, PlanFileError, readPlanFileBytes, type SavedPlan } from "../plan/file.ts";

export const STACKS_PLAN_FILE_FORMAT = "takoform-stacks-plan@1";

/** What one `terraform_remote_state` of a stack read when it was planned: per output, a digest of its value, or that it was unknown. */
export interface SavedRead {
  /** The stack whose state or plan it read, when one of the app's. */
  stack?: string;
  outputs: Record<string, { digest: string } | { unknown: true }>;
}

export interface SavedStack {
  saved: SavedPlan;
  /** Data source name → what it read. */
  reads: Map<string, SavedRead>;
  /** Whether anything it read was unknown until another stack applied (it is planned again then). */
  readsUnknown: boolean;
}

export interface SavedStacks {
  /** The stacks in the order they were planned (and apply). */
  order: string[];
  /** Every stack of the app → the stacks it depends on, as the manifest recorded them at plan. */
  dependencies: Map<string, string[]>;
  stacks: Map<string, SavedStack>;
}

/** One stack as `plan --out` saves it, and what it read from the other stacks. */
export interface StackToSave {
  saved: Parameters<typeof encodePlanFile>[0];
  remote: ReadonlyMap<string, RemoteStateValue>;
}

export function encodeStacksPlanFile(input: {
  order: readonly string[];
  dependencies: ReadonlyMap<string, readonly string[]>;
  stacks: ReadonlyMap<string, StackToSave>;
}): string {
  const stacks: Record<string, unknown> = {};
  for (const name of input.order) {
    const { saved, remote } = input.stacks.get(name)!;
    const lineage = saved.plan.stateLineage;
    const reads: Record<string, SavedRead> = {};
    for (const [source, value] of remote) {
      const outputs: SavedRead["outputs"] = {};
      for (const [output, v] of Object.entries(value.outputs))
        outputs[output] = holdsUnknown(v) ? { unknown: true } : { digest: sealDigest(v as KnownValue, lineage) };
      reads[source] = { ...(value.stack !== undefined ? { stack: value.stack } : {}), outputs };
    }
    stacks[name] = { plan: JSON.parse(encodePlanFile(saved)), reads };
  }
  const dependencies = Object.fromEntries([...input.dependencies].map(([name, deps]) => [name, [...deps]]));
  return JSON.stringify({ format: STACKS_PLAN_FILE_FORMAT, createdAt: new Date().toISOString(), order: input.order, dependencies, stacks });
}

/** Writes a saved plan of several stacks to `path`, readable by its owner alone (core/private-file.ts). */
export async function saveStacksPlanFile(path: string, input: Parameters<typeof encodeStacksPlanFile>[0]): Promise<void> {
  await writePrivately(path, encodeStacksPlanFile(input));
}

/** A plan file as `plan --out` wrote it: of one stack, or of several. */
export type AnyPlanFile = { one: SavedPlan } | { several: SavedStacks };

/** Reads either kind of plan file (the format names which). */
export function decodeAnyPlanFile(text: string | Uint8Array, file = "the plan file"): AnyPlanFile {
  const repair = "Write a plan with `takoform plan --out FILE` and apply that file.";
  const invalid = (detail: string): PlanFileError =>
    new PlanFileError({ severity: "error", code: engineCode("plan-file-invalid"), summary: `${file} is not a takoform plan file`, detail, repair });
  // Each stack's plan sits three levels below the top (stacks → name → plan).
  const read = readStrictJson(text, { what: file, repair, maxDepth: STACK_MAX_DEPTH + 24 });
  if (!read.ok) throw invalid(`${read.diagnostic.summary}. ${read.diagnostic.detail ?? ""}`.trimEnd());
  const raw = read.value as Record<string, unknown>;
  const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
  if (!isObject(raw) || (raw["format"] !== PLAN_FILE_FORMAT && raw["format"] !== STACKS_PLAN_FILE_FORMAT))
    throw invalid(`Its format is neither ${PLAN_FILE_FORMAT} nor ${STACKS_PLAN_FILE_FORMAT}.`);
  if (raw["format"] === PLAN_FILE_FORMAT) return { one: decodePlanFile(text, file) };
  const order = raw["order"];
  const stacksRaw = raw["stacks"];
  const depsRaw = raw["dependencies"];
  if (!Array.isArray(order) || !order.every((n) => typeof n === "string") || !isObject(stacksRaw) || !isObject(depsRaw))
    throw invalid("It lacks the order, the dependencies or the stacks.");
  // Each stack once, and exactly the stacks the file holds: the order is what applies.
  const names = order as string[];
  const repeated = names.find((name, i) => names.indexOf(name) !== i);
  if (repeated !== undefined) throw invalid(`Its order names stack "${repeated}" twice.`);
  const unordered = Object.keys(stacksRaw).find((name) => !names.includes(name));
  if (unordered !== undefined) throw invalid(`It holds a plan of stack "${unordered}", which its order does not name.`);
  const stacks = new Map<string, SavedStack>();
  for (const name of names) {
    const entry = stacksRaw[name];
    if (!isObject(entry) || !isObject(entry["plan"]) || !isObject(entry["reads"])) throw invalid(`It lacks the plan of stack "${name}".`);
    const saved = decodePlanFile(JSON.stringify(entry["plan"]), `${file} (stack "${name}")`);
    const reads = new Map<string, SavedRead>();
    for (const [source, read] of Object.entries(entry["reads"])) {
      const decoded = decodeRead(read);
      if (decoded === null) throw invalid(`What stack "${name}" read through "${source}" is not a record of digests and unknown values.`);
      reads.set(source, decoded);
    }
    const readsUnknown = [...reads.values()].some((r) => Object.values(r.outputs).some((o) => "unknown" in o));
    stacks.set(name, { saved, reads, readsUnknown });
  }
  const dependencies = new Map<string, string[]>();
  for (const [name, deps] of Object.entries(depsRaw)) {
    if (!Array.isArray(deps) || !deps.every((d) => typeof d === "string")) throw invalid(`Its dependencies of stack "${name}" are not a list of stack names.`);
    dependencies.set(name, deps);
  }
  // What a stack read from another stack of the file orders it after that one: a consumer planned
  // again before its producer applied would read the producer's old values.
  for (const [name, { reads }] of stacks) {
    for (const read of reads.values()) {
      const unknown = Object.values(read.outputs).some((o) => "unknown" in o);
      if (read.stack !== undefined && stacks.has(read.stack) && !(dependencies.get(name) ?? []).includes(read.stack))
        throw invalid(`It records that stack "${name}" read from stack "${read.stack}", but not that it depends on it.`);
      if (unknown && (read.stack === undefined || !stacks.has(read.stack)))
        throw invalid(`It records values unknown to stack "${name}" from a stack it does not hold, which no apply of it makes known.`);
    }
  }
  return { several: { order: order as string[], dependencies, stacks } };
}

/** One `reads` entry as the file holds it, or null when it is anything else (a damaged or edited file). */
function decodeRead(raw: unknown): SavedRead | null {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return null;
  const { stack, outputs } = raw as Record<string, unknown>;
  if ((stack !== undefined && typeof stack !== "string") || outputs === null || typeof outputs !== "object" || Array.isArray(outputs)) return null;
  const out: SavedRead["outputs"] = {};
  for (const [name, value] of Object.entries(outputs)) {
    const entry = value as Record<string, unknown> | null;
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) return null;
    const keys = Object.keys(entry);
    if (keys.length === 1 && typeof entry["digest"] === "string") out[name] = { digest: entry["digest"] };
    else if (keys.length === 1 && entry["unknown"] === true) out[name] = { unknown: true };
    else return null;
  }
  return { ...(stack !== undefined ? { stack } : {}), outputs: out };
}

/** Reads a plan file of either kind from disk. */
export async function readAnyPlanFile(path: string): Promise<AnyPlanFile> {
  return decodeAnyPlanFile(await readPlanFileBytes(path), path);
}

/**
 * What a stack reads now against what it read when it was planned: a known value whose digest no
 * longer matches (its producer's state moved since) is a stale plan. Unknown ones are not checked:
 * the stack is planned again with them.
 */
export function staleReads(stack: string, saved: SavedStack, remote: ReadonlyMap<string, RemoteStateValue>): Diagnostic[] {
  const lineage = saved.saved.plan.stateLineage;
  const moved: string[] = [];
  for (const [source, read] of saved.reads) {
    const now = remote.get(source);
    for (const [output, was] of Object.entries(read.outputs)) {
      if (!("digest" in was)) continue;
      const value = now?.outputs[output];
      if (value === undefined || holdsUnknown(value) || !digestMatches(was.digest, value as KnownValue, lineage))
        moved.push(`${read.stack !== undefined ? `stack "${read.stack}"` : source}: output "${output}"`);
    }
  }
  if (moved.length === 0) return [];
  return [
    {
      severity: "error",
      code: engineCode("plan-file-stale"),
      summary: `The saved plan of stack "${stack}" is stale: what it reads from other stacks changed since it was made`,
      detail: `${moved.join("; ")} no longer hold${moved.length === 1 ? "s" : ""} the value the plan was made with. Nothing of this stack was applied.`,
      repair: "Run `takoform plan --out FILE` for these stacks again and apply the new file.",
    },
  ];
}

function holdsUnknown(value: Value): boolean {
  if (isUnknown(value)) return true;
  if (Array.isArray(value)) return value.some(holdsUnknown);
  if (value !== null && typeof value === "object") return Object.values(value).some(holdsUnknown);
  return false;
}
