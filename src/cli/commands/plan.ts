// `takoform plan`: refresh and plan in memory, show the plan (or its JSON), optionally save it.
// Writes nothing to state or the host.

import { hasErrors } from "../../core/diagnostic.ts";
import { createPlan, type PlanMode } from "../../engine/plan/build.ts";
import { writePlanFile } from "../../engine/plan/file.ts";
import { renderPlan } from "../../engine/render/human.ts";
import { planToJson } from "../../engine/render/json.ts";
import { planChangesSomething, readSnapshot } from "../../engine/run.ts";
import type { StateReader } from "../../state/types.ts";
import { CliUsageError, lastValue, parseArgs, type Command } from "../command.ts";
import { ConnectError, connectProvider } from "../connect.ts";
import { openReader, openStore } from "../state-access.ts";
import { enterProject, boolFlag, Console, diagnosticsJson, flagSpec, intFlag, loadWorkspace, PROJECT_FLAGS, PROJECT_HELP, usage } from "../workspace.ts";

const USAGE = `Usage: takoform plan [options]

Show what apply would change: refresh every resource from the host, then plan the configuration
against it. Nothing is written to state or the host.

Options:
${PROJECT_HELP}
  --out FILE             Save the plan; \`takoform apply FILE\` applies exactly it
  --destroy              Plan destroying every resource in state
  --refresh-only         Only show what changed on the host since the last apply
  --refresh=false        Plan against state as recorded, without reading the host first
  --target ADDR          Only this resource and what it depends on (repeatable)
  --parallelism N        Provider calls in flight at once (default 10)
  --detailed-exitcode    Exit 0 when nothing changes, 2 when something does, 1 on error
  -h, --help             Show this help

Exit status: 0 success, 1 error (2 with --detailed-exitcode when there are changes).`;

export const PLAN_VALUE_FLAGS = ["--target", "--refresh", "--parallelism"] as const;

export function planMode(args: ReturnType<typeof parseArgs>): PlanMode {
  const destroy = args.switches.has("--destroy");
  const refreshOnly = args.switches.has("--refresh-only");
  if (destroy && refreshOnly) throw new CliUsageError("--destroy and --refresh-only cannot be combined");
  return destroy ? "destroy" : refreshOnly ? "refresh-only" : "normal";
}

export const command: Command = {
  async run(argv) {
    const args = parseArgs(
      argv,
      flagSpec(PROJECT_FLAGS, { values: [...PLAN_VALUE_FLAGS, "--out"], switches: ["--detailed-exitcode", "--destroy", "--refresh-only"] }),
    );
    if (args.switches.has("--help")) return usage(USAGE);
    if (args.positionals.length > 0) throw new CliUsageError(`unexpected argument ${args.positionals[0]}`);
    enterProject(args);
    const io = new Console(args);
    const mode = planMode(args);
    const refresh = boolFlag(args, "--refresh", true);
    const parallelism = intFlag(args, "--parallelism", 10);
    const targets = args.values.get("--target") ?? [];
    const out = lastValue(args, "--out");

    const ws = await loadWorkspace(args);
    if (!("stack" in ws)) {
      if (io.json) io.emitJson({ diagnostics: diagnosticsJson(ws.diagnostics) });
      else io.diagnostics(ws.diagnostics);
      return 1;
    }
    if (!io.json) io.diagnostics(ws.diagnostics);

    // A saved plan is bound to a state lineage, so --out creates the (empty) state when there is
    // none yet; a plain plan touches nothing.
    let reader: StateReader | null = null;
    const opened = out !== undefined ? await openStore(ws.state) : await openReader(ws.state);
    if ("diagnostics" in opened) {
      if (io.json) io.emitJson({ diagnostics: diagnosticsJson(opened.diagnostics) });
      else io.diagnostics(opened.diagnostics);
      return 1;
    }
    if ("store" in opened) reader = opened.store;
    else if ("reader" in opened) reader = opened.reader;
    let connection;
    try {
      connection = await connectProvider({ projectDir: ws.projectDir, stack: ws.stack, variables: ws.variables });
    } catch (error) {
      await reader?.close();
      if (!(error instanceof ConnectError)) throw error;
      if (io.json) io.emitJson({ diagnostics: diagnosticsJson([error.diagnostic]) });
      else io.diagnostics([error.diagnostic]);
      return 1;
    }
    try {
      for (const notice of connection.notices) if (!io.json) io.err(notice);
      const state = reader !== null ? await readSnapshot(reader) : { lineage: "", serial: 0, records: [], outputs: {} };
      // Which host this is decides whether state may be read there at all (and a saved plan
      // records it); without state there is nothing to compare.
      let host;
      if (reader !== null) {
        try {
          host = await connection.identity(reader.lineage);
        } catch (error) {
          if (!(error instanceof ConnectError)) throw error;
          if (io.json) io.emitJson({ diagnostics: diagnosticsJson([error.diagnostic]) });
          else io.diagnostics([error.diagnostic]);
          return 1;
        }
      }
      const { plan, ok } = await createPlan({
        provider: connection.provider,
        stack: ws.stack,
        variables: ws.variables,
        state,
        ...(host !== undefined ? { host } : {}),
        options: { mode, refresh, parallelism, ...(targets.length > 0 ? { targets } : {}) },
      });
      if (io.json) io.emitJson(planToJson(plan));
      else io.out(renderPlan(plan, { color: io.color }));
      if (!ok || hasErrors(plan.diagnostics)) return 1;
      if (out !== undefined) {
        await writePlanFile(out, {
          plan,
          stackDocument: ws.stackDocument,
          ...(ws.stackFile !== undefined ? { stackFile: ws.stackFile } : {}),
          variables: ws.variables,
          mode,
          refresh,
        });
        if (!io.json) io.out(`\nSaved the plan to ${out}. Apply exactly these actions with:\n  takoform apply ${out}`);
      }
      return args.switches.has("--detailed-exitcode") && planChangesSomething(plan) ? 2 : 0;
    } finally {
      await connection.close();
      await reader?.close();
    }
  },
};
