// The command's own part of the one table of diagnostic codes (core/diagnostics/codes.ts),
// `takoform.cli/<name>`: problems no lower layer owns — how the command was invoked, what a
// state command found missing, and an error no command turned into a diagnostic of its own.

import { defineCodes } from "../core/index.ts";

const cliCodes = defineCodes("cli", ["usage", "unknown-command", "no-state", "not-in-state", "output-not-found", "output-unprintable", "internal-error"]);

export type CliCodeName = (typeof cliCodes.names)[number];

export const cliCode = cliCodes.code;
