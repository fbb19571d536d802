// The command's own diagnostic codes, `takoform.cli/<name>`: problems no lower layer owns — how
// the command was invoked, what a state command found missing, a run the command itself declined
// (no approval, a directory init will not fill, a plan it could not save), and an error no command turned
// into a diagnostic of its own.
//
// Every layer below the CLI declares its codes in the one table of core/diagnostics/codes.ts
// (decision 0032). The CLI is built on the published API only (issue 28), and declaring codes is
// no user's business, so its table is this closed list: a code still exists only where its layer
// lists it, and test/core/diagnostics.test.ts checks that no layer below claims the `cli` prefix
// and that these names are distinct.

/** Every code the command itself reports, in the order docs/ARCHITECTURE.md §4 lists them. */
export const CLI_CODES = [
  "usage",
  "unknown-command",
  "no-state",
  "not-in-state",
  "output-not-found",
  "output-unprintable",
  "approval-required",
  "directory-not-empty",
  "plan-not-saved",
  "internal-error",
] as const;

export type CliCodeName = (typeof CLI_CODES)[number];

export const cliCode = <N extends CliCodeName>(name: N): `takoform.cli/${N}` => `takoform.cli/${name}`;
