// `import` blocks: `{ "to": "type.name", "id": "<import id>" }`. The ID is a string — `NAME`,
// `SPACE/NAME`, or the canonical JSON object as JSON text — optionally built from variables.

import { configCode, isPlainObject, type Problems } from "../diagnostics.ts";
import { parseExpression } from "../expression/parse.ts";
import { parseTraversal } from "../expression/traversal.ts";
import type { ImportConfig } from "../types.ts";

export function readImports(block: unknown, problems: Problems): ImportConfig[] {
  const entries = Array.isArray(block) ? block : [block];
  const imports: ImportConfig[] = [];
  entries.forEach((entry: unknown, index: number) => {
    const fail = (summary: string, detail: string) =>
      problems.error({
        code: configCode("invalid-import"),
        summary: `Import ${index}: ${summary}`,
        detail,
        repair: 'Write imports as { "to": "type.name", "id": "NAME" } (resource.importFrom(id) in cdktf).',
      });
    if (!isPlainObject(entry)) return fail("not an object", `It is ${JSON.stringify(entry)}.`);
    for (const key of Object.keys(entry)) {
      if (key === "to" || key === "id") continue;
      if (key === "provider" && (entry.provider === undefined || entry.provider === "takoform")) continue;
      fail(`unsupported argument "${key}"`, key === "for_each" ? "Imports with for_each are not supported." : "An import takes to and id.");
    }
    const to = typeof entry.to === "string" ? parseTraversal(entry.to.replace(/^\$\{(.*)\}$/s, "$1")) : null;
    if (to === null || to.steps.length !== 1 || typeof to.steps[0] !== "string")
      return fail("`to` must be a resource address", `It is ${JSON.stringify(entry.to)}.`);
    if (typeof entry.id !== "string" || entry.id === "") return fail("`id` must be a non-empty string", `It is ${JSON.stringify(entry.id)}.`);
    const address = `${to.root}.${to.steps[0]}`;
    const id = parseExpression(entry.id, (found) => fail(found.summary, found.detail), "id");
    if (id.kind !== "literal" && id.kind !== "variable" && !(id.kind === "template" && id.parts.every((p) => typeof p === "string" || p.kind === "variable"))) {
      return fail("`id` may use only literals and variables", "The import ID must be known when planning.");
    }
    if (id.kind === "literal" && typeof id.value !== "string") return fail("`id` must be a string", "");
    imports.push({ to: address, id });
  });
  return imports;
}
