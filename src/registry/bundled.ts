// The registry generated from the bundled Form packages (registry/packages → `npm run gen`).
// Separate from ./index.ts on purpose: the generator that writes this data must never load it.

import { takoformRegistry } from "../../registry/generated/index.gen.ts";
import { CodecTable } from "./codec-table.ts";
import type { GeneratedRegistry } from "./generated-types.ts";

export const bundledRegistry: GeneratedRegistry = takoformRegistry;

let table: CodecTable | undefined;

/** The bundled registry as a CodecTable (built once). */
export function bundledCodecTable(): CodecTable {
  table ??= CodecTable.fromGenerated(bundledRegistry);
  return table;
}
