// `takoform import ADDRESS ID`: bind state to an existing host resource the configuration declares.

import { hostname } from "node:os";
import { diagnosticsToJson, Console } from "../console.ts";
import { CliUsageError, parseArgs, type Command } from "../command.ts";
import { openWorkspace } from "../../automation/api.ts";
import { enterProject, flagSpec, workspaceOptions, PROJECT_FLAGS, FLAG_SPELLING_HELP, PROJECT_HELP, usage } from "../workspace.ts";
import { LOCK_FLAGS, LOCK_HELP } from "../lock-flags.ts";
import { leaseMs, lockTimeoutMs } from "../lock-settings.ts";

const USAGE = `Usage: takoform import [options] ADDRESS ID

Read an existing host resource and record it in state under ADDRESS, which the configuration
must declare. Nothing on the host changes. Run \`takoform plan\` afterwards to compare it with
the configuration.

ID is the resource's import ID: NAME (in the provider's default space), SPACE/NAME, or the
canonical JSON object naming the exact FormRef, e.g.
  '{"space":"default","name":"cache","formRef":{"apiVersion":"…","kind":"EdgeKVNamespace","definitionVersion":"…","schemaDigest":"sha256:…"}}'

Options:
${PROJECT_HELP}
${LOCK_HELP}
  -h, --help             Show this help

${FLAG_SPELLING_HELP}

Exit status: 0 when imported, 1 otherwise.`;

export const FLAGS = flagSpec(PROJECT_FLAGS, LOCK_FLAGS);

export const command: Command = {
  async run(argv) {
    const args = parseArgs(argv, FLAGS);
    if (args.switches.has("--help")) return usage(USAGE);
    if (args.positionals.length !== 2) throw new CliUsageError("import takes exactly ADDRESS and ID");
    const [address, id] = args.positionals as [string, string];
    enterProject(args);
    const io = new Console(args);
    const workspace = openWorkspace(workspaceOptions(args));
    const lock = {
      lockHolder: `takoform import (pid ${process.pid} on ${hostname()})`,
      lockLeaseMs: leaseMs(),
      lockTimeoutMs: lockTimeoutMs(args),
      forceUnlock: args.switches.has("--force-unlock"),
    };
    const result = await workspace.import(address, id, {
      ...lock,
      onStart: () => {
        if (!io.json) io.out(`${address}: Importing from ID ${id}...`);
      },
    });
    if (result.status === "not-started") return io.fail("import", result.diagnostics);
    if (io.json) {
      io.emitJson({
        command: "import",
        ok: result.ok,
        address,
        ...(result.uid ? { uid: result.uid } : {}),
        diagnostics: diagnosticsToJson(result.diagnostics),
      });
      return result.ok ? 0 : 1;
    }
    io.diagnostics(result.diagnostics);
    if (!result.ok) return 1;
    io.out(`${address}: Import complete${result.uid ? ` [uid=${result.uid}]` : ""}`);
    io.out(`\nImport successful! ${address} is now managed by this state; run \`takoform plan\` to compare it with the configuration.`);
    return 0;
  },
};
