// `takoform plan`: refresh and plan in memory, show the plan (or its JSON), optionally save it.
// Writes nothing to state or the host.

import { Console, diagnosticsToJson } from "../console.ts";
import { planToJson, shownPlan, writePlan } from "../../views/index.ts";
import { CliUsageError, lastValue, parseArgs, type Command, type ParsedArgs } from "../command.ts";
import { cliCode } from "../codes.ts";
import { openWorkspace, Workspace, type Diagnostic, type PlanRunOptions } from "../../automation/api.ts";
import {
  enterProject,
  outsideProject,
  workspaceOptions,
  boolFlag,
  flagSpec,
  intFlag,
  PROJECT_FLAGS,
  FLAG_SPELLING_HELP,
  PROJECT_HELP,
  usage,
} from "../workspace.ts";
import { oneStackOnly, severalStacks, stackPatterns, stacksFlow } from "../stacks-flow.ts";
import { lockTimeoutMs } from "../lock-settings.ts";

const USAGE = `Usage: takoform plan [options] [STACK...]

Show what apply would change: refresh every resource from the host, then plan the configuration
against it. Nothing is written to state or the host. Several stacks (names, globs such as '*', or
repeated --stack) are planned in dependency order, each against the plans of the stacks it reads
from (docs/stacks.md).

Options:
${PROJECT_HELP}
  --out FILE             Save the plan; \`takoform apply FILE\` applies exactly it (of several
                         stacks: each stack's plan, applied in dependency order)
  --destroy              Plan destroying every resource in state
  --refresh-only         Only show what changed on the host since the last apply
  --refresh=false        Plan against state as recorded, without reading the host first
  --target ADDR          Only this resource and what it depends on (repeatable)
  --replace ADDR         Replace this resource even if nothing changed (repeatable)
  --parallelism N        At most N provider calls in flight (default: adapts to a host over
                         the network; ${Workspace.defaultParallelism} on the embedded host)
  --lock-timeout DUR     Accepted for Terraform's scripts; a plan takes no lock, so it never waits
  --detailed-exitcode    Exit 0 when nothing changes, 2 when something does, 1 on error
  -h, --help             Show this help

${FLAG_SPELLING_HELP}

Exit status: 0 success, 1 error (2 with --detailed-exitcode when there are changes).`;

/** `plan`'s flags. A plan takes no lock; `--lock-timeout` is accepted so Terraform's scripts run. */
export const FLAGS = flagSpec(PROJECT_FLAGS, {
  values: ["--target", "--replace", "--parallelism", "--out", "--lock-timeout"],
  switches: ["--refresh", "--detailed-exitcode", "--destroy", "--refresh-only"],
});

type PlanMode = NonNullable<PlanRunOptions["mode"]>;

export function planMode(args: ParsedArgs): PlanMode {
  const destroy = args.switches.has("--destroy");
  const refreshOnly = args.switches.has("--refresh-only");
  if (destroy && refreshOnly) throw new CliUsageError("--destroy and --refresh-only cannot be combined");
  const mode = destroy ? "destroy" : refreshOnly ? "refresh-only" : "normal";
  // As Terraform: a replacement is a change to the configured resources, which neither plans.
  if (mode !== "normal" && args.values.has("--replace")) throw new CliUsageError(`--replace cannot be combined with --${mode}`);
  return mode;
}

export const command: Command = {
  async run(argv) {
    const args = parseArgs(argv, FLAGS);
    if (args.switches.has("--help")) return usage(USAGE);
    enterProject(args);
    const io = new Console(args);
    const mode = planMode(args);
    const refresh = boolFlag(args, "--refresh", true);
    const parallelism = intFlag(args, "--parallelism", undefined);
    const targets = args.values.get("--target") ?? [];
    const replace = args.values.get("--replace") ?? [];
    lockTimeoutMs(args); // checked like apply's, though a plan never waits
    const out = lastValue(args, "--out");
    const patterns = stackPatterns(args);
    if (severalStacks(patterns)) {
      oneStackOnly(args, ["--target", "--replace", "--config"]);
      // A saved plan of several stacks applies them in dependency order: a normal plan only.
      if (out !== undefined && mode !== "normal")
        throw new CliUsageError(`--out with --${mode} applies to one stack; name one stack (--stack NAME) to save it`);
      return stacksFlow({
        kind: "plan",
        args,
        patterns,
        mode,
        refresh,
        parallelism,
        lockTimeout: 0,
        input: false,
        detailedExitcode: args.switches.has("--detailed-exitcode"),
        ...(out !== undefined ? { out } : {}),
      });
    }

    // Outside any project, say so (as the read-only commands do), not that this directory has no cdktf.json.
    const outside = await outsideProject(args);
    if (outside !== null) return io.fail("plan", [outside]);
    // A saved plan is bound to a state lineage, so --out creates the (empty) state when there is
    // none yet; a plain plan touches nothing.
    const planned = await openWorkspace(workspaceOptions(args)).plan({
      createState: out !== undefined,
      mode,
      refresh,
      ...(parallelism !== undefined ? { parallelism } : {}),
      ...(targets.length > 0 ? { targets } : {}),
      ...(replace.length > 0 ? { replace } : {}),
    });
    if (planned.plan === undefined) return io.fail("plan", planned.diagnostics);
    const plan = shownPlan(planned.plan);
    // The stack's own problems (its variables, …); the plan's are in what it renders.
    const own = planned.diagnostics.filter((d) => !plan.diagnostics.includes(d));
    // Saved before it is shown, so a file that cannot be written is a problem of this one run.
    const unsaved = planned.ok && out !== undefined ? await savePlan(planned.plan, out) : [];
    const ok = planned.ok && unsaved.length === 0;
    if (io.json) {
      const document = planToJson(plan);
      // The app's own problems (a construct's warning) join the plan's, as they are shown without
      // --json; a plan that failed is the problems' document too, `{command, ok: false, diagnostics}`
      // in front of the plan as far as it got.
      const diagnostics = [...diagnosticsToJson(own), ...(document.diagnostics as unknown[]), ...diagnosticsToJson(unsaved)];
      if (ok) io.emitJson(own.length === 0 ? document : { ...document, diagnostics });
      else io.emitJson({ command: "plan", ok: false, ...document, diagnostics });
      if (!ok) return 1;
    } else {
      io.diagnostics(own);
      io.outPieces((write) => writePlan(plan, { color: io.color }, write));
      if (!ok) {
        io.diagnostics(unsaved);
        return 1;
      }
      if (out !== undefined) io.out(`\nSaved the plan to ${out}. Apply exactly these actions with:\n  takoform apply ${out}`);
    }
    return args.switches.has("--detailed-exitcode") && planned.status === "planned" ? 2 : 0;
  },
};

/** Writes the plan to `file`; a file that cannot be written is a diagnostic, not a crash. */
async function savePlan(plan: { write(file: string): Promise<void> }, file: string): Promise<Diagnostic[]> {
  try {
    await plan.write(file);
    return [];
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "its directory does not exist" : (error as Error).message;
    return [
      {
        severity: "error",
        code: cliCode("plan-not-saved"),
        summary: `Cannot save the plan to ${file}`,
        detail: `The plan was made but not saved: ${reason}. Nothing was applied.`,
        repair: "Give --out a file in a directory that exists and can be written, and plan again.",
      },
    ];
  }
}
