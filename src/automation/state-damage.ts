// A damaged local state file, as the command reports it (issue 26, item 4): one diagnostic naming
// the file and what is wrong, with the repair that fits — the backup when there is a good one
// (`takoform state restore-backup`), else moving the file aside — never a stack trace. It is
// reported the same way whether the damage was found when the state was opened or at the first
// read of a damaged page in the middle of a command (the CLI's main.ts prints it then: src/cli/state-damage.ts).

import { existsSync, statSync } from "node:fs";
import { relative } from "node:path";
import type { Diagnostic } from "../core/index.ts";
import { engineCode } from "../engine/index.ts";
import { backupPathOf, readBackup, StateDamagedError } from "../state/index.ts";

/** How the repair names a file: relative to the working directory when inside it. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel !== "" && !rel.startsWith("..") ? rel : path;
}

/** The repair: the backup when it is whole, else moving the damaged file aside. */
function repairOf(error: StateDamagedError): string {
  const file = shown(error.path);
  if (error.kind === "foreign")
    return `This file belongs to another program: point the stack's local backend at another path, or move the file aside (mv ${file} ${file}.foreign) and apply again.`;
  const backup = backupPathOf(error.path);
  if (existsSync(backup)) {
    try {
      const info = readBackup(error.path);
      const when = statSync(backup).mtime.toISOString();
      return `Run \`takoform state restore-backup\`: it puts back ${shown(backup)}, the state as the last run that wrote it began (${when}; serial ${info.serial}, ${info.resources} resources), and keeps the damaged file beside it. Then run \`takoform plan\`: an object that last run created is on the host but not in the backup; \`takoform import\` brings it back.`;
    } catch {
      // a damaged backup is no repair: fall through
    }
  }
  return `There is no usable backup (${shown(backup)}). Move the damaged file aside (mv ${file} ${file}.damaged); the next apply starts a new state, and \`takoform import ADDRESS ID\` brings each object already on the host back under management.`;
}

export function damageDiagnostic(error: StateDamagedError): Diagnostic {
  return {
    severity: "error",
    code: engineCode("state-damaged"),
    summary: error.kind === "foreign" ? `${error.path} is not a takoform state file` : `The state file ${error.path} is damaged`,
    detail: `${error.detail[0]!.toUpperCase()}${error.detail.slice(1)}.`,
    repair: repairOf(error),
  };
}
