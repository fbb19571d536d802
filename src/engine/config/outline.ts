// What a command needs to know about the app's other stacks without loading them: the backend
// each names (so two stacks that would share one state are refused, docs/stacks.md) and the
// addresses each declares (which stack a project's state from before stacks had their own
// belongs to). The file is read as strictly as a stack is (strict-read.ts); a stack whose file or
// backend does not read is reported when that stack itself is loaded, not here.

import type { BackendConfig } from "../../state/index.ts";
import { readBackend } from "./blocks/backend.ts";
import { isPlainObject, Problems } from "./diagnostics.ts";
import { readInputBytes, readStrictJson } from "./strict-read.ts";

export interface StackOutline {
  /** `//.metadata.stackName`, when cdktf wrote it. */
  stackName?: string;
  /** `terraform.backend`; null when the stack names none. */
  backend: BackendConfig | null;
  /** Every resource address the stack declares (`type.name`). */
  addresses: Set<string>;
}

/** The outline of a synthesized stack file; null when it cannot be read as one. */
export async function readStackOutline(file: string): Promise<StackOutline | null> {
  const read = await readInputBytes(file, { noun: "stack", missingRepair: "Re-run the synthesis." });
  if (!read.ok) return null;
  const parsed = readStrictJson(read.bytes, { what: file, repair: "Re-run the synthesis." });
  if (!parsed.ok || !isPlainObject(parsed.value)) return null;
  const document = parsed.value;
  const outline: StackOutline = { backend: null, addresses: new Set() };
  const meta = isPlainObject(document["//"]) && isPlainObject(document["//"].metadata) ? document["//"].metadata : {};
  if (typeof meta.stackName === "string") outline.stackName = meta.stackName;
  const terraform = document.terraform;
  if (isPlainObject(terraform) && terraform.backend !== undefined) {
    const problems = new Problems();
    outline.backend = readBackend(terraform.backend, problems);
    if (problems.diagnostics.length > 0) return null;
  }
  if (isPlainObject(document.resource)) {
    for (const [type, resources] of Object.entries(document.resource)) {
      if (isPlainObject(resources)) for (const name of Object.keys(resources)) outline.addresses.add(`${type}.${name}`);
    }
  }
  return outline;
}
