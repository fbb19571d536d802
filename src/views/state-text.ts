// The state as people read it: one record as `state show` prints it (Terraform's resource block,
// secrets masked), and the whole state as `takoform show` prints it. The CLI reads the state
// through a Workspace (workspace.state.show(), pull()), whose results carry the record and the
// document as plain values (the published API names no state type); they are the state's own
// record and document, copied, so these take them as such.

import { parseStateAddress, type ResourceRecord, type StateDocument } from "../state/index.ts";
import { isCrossStackOutput } from "../engine/index.ts";
import { formatValue } from "./values.ts";

/** A record a Workspace read: `workspace.state.show()`'s `record`, or an entry of `pull()`'s `document.resources`. */
type ReadRecord = Readonly<Record<string, unknown>>;

/** One record as `state show` prints it (the record of `workspace.state.show()`). */
export function recordText(read: ReadRecord): string {
  return resourceBlock(read as unknown as ResourceRecord);
}

/** One record as `state show` and `show` print it: Terraform's resource block, secrets masked. */
function resourceBlock(record: ResourceRecord): string {
  const { address, deposed } = parseStateAddress(record.address);
  const dot = address.indexOf(".");
  const lines = [
    `# ${record.address}:${deposed !== null ? " (deposed object)" : ""}${record.status !== "ready" ? ` (${record.status})` : ""}`,
    `resource "${record.type}" "${address.slice(dot + 1)}" {`,
  ];
  const names = Object.keys(record.attributes).sort();
  const width = Math.max(0, ...names.map((n) => n.length));
  // formatValue shows a sealed value as Terraform shows a secret: `(sensitive value)`, unquoted.
  for (const name of names) lines.push(`    ${name.padEnd(width)} = ${formatValue(record.attributes[name]!, "    ")}`);
  lines.push("}");
  if (record.intent !== null)
    lines.push(`# interrupted ${record.intent.write.operation} recorded at ${record.intent.at} (step ${record.intent.stepId}); the next apply resolves it`);
  return lines.join("\n");
}

/** The state `workspace.state.pull()` read (its `document`; null when there is no state), as the views' renderers take it. */
export function pulledState(document: Readonly<Record<string, unknown>> | null): StateDocument | null {
  return document as unknown as StateDocument | null;
}

/**
 * `takoform show` of a state: every record's block, then its outputs (a sensitive one masked),
 * or Terraform's words for no state and for an empty one.
 */
export function stateText(document: StateDocument | null): string {
  if (document === null) return "No state.";
  if (document.resources.length === 0 && Object.keys(document.outputs).length === 0) return "The state file is empty. No resources are represented.";
  const blocks = document.resources.map(resourceBlock);
  const outputs = Object.entries(document.outputs);
  if (outputs.length > 0) {
    blocks.push(["Outputs:", "", ...outputs.map(([name, o]) => `${name} = ${o.sensitive ? "(sensitive value)" : JSON.stringify(o.value)}`)].join("\n"));
  }
  return blocks.join("\n\n");
}

/**
 * Whether `takoform output` shows an output as `<sensitive>`: a sealed one, and one cdktf wrote
 * for a cross-stack reference, which it marks sensitive and takoform stores in the clear for the
 * other stack to read (docs/stacks.md); `--raw` and `--json` print that one, as Terraform prints
 * a sensitive output's value.
 */
export function outputHidden(name: string, output: { sensitive: boolean }): boolean {
  return output.sensitive || isCrossStackOutput(name);
}
