// The refactoring blocks: `moved` (`{ "from": "type.old", "to": "type.new" }`, what cdktf's
// moveTo, moveToId and moveFromId write) and `removed` (`{ "from": "type.name", "lifecycle":
// { "destroy": false } }`, Terraform 1.7's; cdktf has no construct for it, an override writes it).
// Each block is read on its own here; the rules between blocks and the resources they name are
// refactoring-rules.ts.

import { configCode, isPlainObject, type Problems } from "../diagnostics.ts";
import { parseTraversal } from "../expression/traversal.ts";
import type { MovedConfig, RemovedConfig } from "../types.ts";

/** `moved[2]`: how a message names the block (cdktf writes no construct path for it). */
export function blockName(kind: "moved" | "removed", index: number): string {
  return `${kind}[${index}]`;
}

/**
 * A resource address as a refactoring block names one: `TYPE.NAME`, optionally inside `${…}`.
 * Anything else gets the reason it is not one (an instance key, a module or data address).
 */
function readAddress(value: unknown): { address: string } | { problem: string } {
  if (typeof value !== "string") return { problem: `it is ${JSON.stringify(value) ?? "missing"}, not a string` };
  const text = value.replace(/^\$\{(.*)\}$/s, "$1");
  const traversal = parseTraversal(text);
  if (traversal === null) return { problem: `${JSON.stringify(value)} is not a resource address` };
  if (traversal.root === "module") return { problem: `${JSON.stringify(value)} names a module; takoform stacks have none` };
  if (traversal.root === "data") return { problem: `${JSON.stringify(value)} names a data source; takoform has none` };
  if (traversal.steps.length === 2 && typeof traversal.steps[1] !== "string")
    return { problem: `${JSON.stringify(value)} names an instance key; takoform has no count or for_each, so a resource has one instance` };
  if (traversal.steps.length !== 1 || typeof traversal.steps[0] !== "string") return { problem: `${JSON.stringify(value)} is not TYPE.NAME` };
  return { address: `${traversal.root}.${traversal.steps[0]}` };
}

const MOVED_REPAIR =
  'Write it as { "from": "TYPE.OLD_NAME", "to": "TYPE.NEW_NAME" } — in cdktf, newResource.moveFromId("TYPE.OLD_NAME") or oldResource.moveToId("TYPE.NEW_NAME").';

export function readMoved(block: unknown, problems: Problems): MovedConfig[] {
  const entries = Array.isArray(block) ? block : [block];
  const moved: MovedConfig[] = [];
  entries.forEach((entry: unknown, index: number) => {
    const name = blockName("moved", index);
    const fail = (summary: string, detail: string) =>
      problems.error({ code: configCode("invalid-moved"), summary: `${name}: ${summary}`, detail, repair: MOVED_REPAIR });
    if (!isPlainObject(entry)) return fail("not an object", `It is ${JSON.stringify(entry)}.`);
    for (const key of Object.keys(entry)) if (key !== "from" && key !== "to") fail(`unsupported argument "${key}"`, "A moved block takes from and to.");
    const from = readAddress(entry.from);
    const to = readAddress(entry.to);
    if ("problem" in from) fail("`from` must be a resource address", `\`from\`: ${from.problem}.`);
    if ("problem" in to) fail("`to` must be a resource address", `\`to\`: ${to.problem}.`);
    if ("problem" in from || "problem" in to) return;
    moved.push({ from: from.address, to: to.address, index });
  });
  return moved;
}

const REMOVED_REPAIR =
  'Write it as { "from": "TYPE.NAME", "lifecycle": { "destroy": false } } to forget the object and keep it on the host, or with "destroy": true to destroy it.';

/** `lifecycle`, as Terraform JSON writes a nested block: an object, or a list of one object. */
function readLifecycle(value: unknown, fail: (summary: string, detail: string) => void): boolean | null {
  if (value === undefined) return true; // Terraform's default: a removed resource is destroyed
  const body = Array.isArray(value) && value.length === 1 ? value[0] : value;
  if (!isPlainObject(body)) {
    fail("`lifecycle` must be an object", `It is ${JSON.stringify(value)}.`);
    return null;
  }
  for (const key of Object.keys(body)) if (key !== "destroy") fail(`unsupported lifecycle argument "${key}"`, "A removed block's lifecycle takes destroy.");
  if (body.destroy === undefined) return true;
  if (typeof body.destroy !== "boolean") {
    fail("`lifecycle.destroy` must be true or false", `It is ${JSON.stringify(body.destroy)}.`);
    return null;
  }
  return body.destroy;
}

export function readRemoved(block: unknown, problems: Problems): RemovedConfig[] {
  const entries = Array.isArray(block) ? block : [block];
  const removed: RemovedConfig[] = [];
  entries.forEach((entry: unknown, index: number) => {
    const name = blockName("removed", index);
    const fail = (summary: string, detail: string) =>
      problems.error({ code: configCode("invalid-removed"), summary: `${name}: ${summary}`, detail, repair: REMOVED_REPAIR });
    if (!isPlainObject(entry)) return fail("not an object", `It is ${JSON.stringify(entry)}.`);
    for (const key of Object.keys(entry)) {
      if (key === "from" || key === "lifecycle") continue;
      fail(
        `unsupported argument "${key}"`,
        key === "provisioner" || key === "connection"
          ? "takoform runs no provisioners: the engine only calls the Host API."
          : "A removed block takes from and lifecycle.",
      );
    }
    const from = readAddress(entry.from);
    if ("problem" in from) return fail("`from` must be a resource address", `\`from\`: ${from.problem}.`);
    const destroy = readLifecycle(entry.lifecycle, fail);
    if (destroy === null) return;
    removed.push({ from: from.address, destroy, index });
  });
  return removed;
}
