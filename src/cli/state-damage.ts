// A damaged local state file that reached the dispatcher from inside a command: printed as its
// one diagnostic (automation/state-damage.ts says what it is and the repair), never a stack trace.

import { diagnosticsToJson, renderDiagnostics } from "../core/index.ts";
import { StateDamagedError } from "../state/index.ts";
import { damageDiagnostic } from "../automation/index.ts";

/**
 * The dispatcher's last resort (main.ts): a StateDamagedError that reached it from inside a
 * command is printed as its diagnostic (as JSON with --json) and is exit status 1; anything else
 * is not this function's (undefined).
 */
export function reportStateDamage(error: unknown, argv: readonly string[]): number | undefined {
  if (!(error instanceof StateDamagedError)) return undefined;
  const diagnostic = damageDiagnostic(error);
  if (argv.some((arg) => /^--?json(=true)?$/.test(arg)))
    process.stdout.write(`${JSON.stringify({ ok: false, diagnostics: diagnosticsToJson([diagnostic]) }, null, 2)}\n`);
  else for (const text of renderDiagnostics([diagnostic], { color: false })) process.stderr.write(`${text}\n`);
  return 1;
}
