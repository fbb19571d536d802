// The flow `apply`, `destroy` and `refresh` share: load the stack (or a saved plan), open and
// lock state, connect, finish interrupted writes, plan, show, ask, apply with progress, report.

import { hostname } from "node:os";
import type { Diagnostic } from "../core/diagnostic.ts";
import { ProgressPrinter } from "../engine/apply/progress.ts";
import type { ApplyHooks } from "../engine/apply/step.ts";
import type { PlanMode } from "../engine/plan/build.ts";
import { checkSensitiveVariables, PlanFileError, readPlanFile, type SavedPlan } from "../engine/plan/file.ts";
import type { Plan } from "../engine/plan/types.ts";
import { renderPlan } from "../engine/render/human.ts";
import { planToJson } from "../engine/render/json.ts";
import { runApply, type ApplyRun } from "../engine/run.ts";
import { diagnosticToJson } from "../provider/diagnostics/render.ts";
import { CliUsageError, parseArgs, type ParsedArgs } from "./command.ts";
import { openSession } from "./session.ts";
import { restoreConnStr } from "./state-access.ts";
import {
  enterProject,
  leaseMs,
  boolFlag,
  confirm,
  Console,
  diagnosticsJson,
  durationFlag,
  flagSpec,
  intFlag,
  LOCK_FLAGS,
  loadWorkspace,
  PROJECT_FLAGS,
} from "./workspace.ts";

export type ApplyKind = "apply" | "destroy" | "refresh";

/** Test hooks, off unless the variables are set: SIGKILL this process after the N-th intent / write. */
function crashHooks(env: NodeJS.ProcessEnv): ApplyHooks {
  const hooks: ApplyHooks = {};
  const after = (name: string): number | undefined => {
    const text = env[name];
    return text !== undefined && /^[0-9]+$/.test(text) ? Number(text) : undefined;
  };
  const intents = after("TAKOFORM_TEST_CRASH_AFTER_INTENTS");
  const writes = after("TAKOFORM_TEST_CRASH_AFTER_WRITES");
  if (intents !== undefined) hooks.afterIntent = (n) => void (n >= intents && process.kill(process.pid, "SIGKILL"));
  if (writes !== undefined) hooks.afterWrite = (n) => void (n >= writes && process.kill(process.pid, "SIGKILL"));
  return hooks;
}

function counts(run: ApplyRun): { added: number; changed: number; destroyed: number; imported: number } {
  let added = 0,
    changed = 0,
    destroyed = 0,
    imported = 0;
  for (const o of run.result?.outcomes ?? []) {
    // Only steps that wrote count: a settle pass that found nothing to change, or a delete of an
    // object already gone, changed nothing.
    if (o.status !== "ok" || o.noop === true) continue;
    if (o.action === "create" || o.action === "create-placeholder") added++;
    else if (o.action === "update" || o.action === "finalize" || o.action === "settle" || o.action === "revert") changed++;
    else if (o.action === "delete") destroyed++;
    else if (o.action === "import") imported++;
  }
  return { added, changed, destroyed, imported };
}

function summaryJson(kind: ApplyKind, run: ApplyRun, ok: boolean): Record<string, unknown> {
  const outputs: Record<string, unknown> = {};
  for (const [name, o] of Object.entries(run.result?.outputs ?? {})) outputs[name] = o.sensitive ? { sensitive: true } : { sensitive: false, value: o.value };
  return {
    command: kind,
    status: run.status,
    ok,
    recovered: run.recovered,
    ...counts(run),
    ...(run.plan !== undefined ? { plan: planToJson(run.plan) } : {}),
    steps: (run.result?.outcomes ?? []).map((o) => ({
      id: o.id,
      address: o.address,
      action: o.action,
      status: o.status,
      ...(o.elapsedMs !== undefined ? { elapsed_ms: o.elapsedMs } : {}),
      ...(o.uid !== undefined ? { uid: o.uid } : {}),
      ...(o.blockedBy !== undefined ? { blocked_by: o.blockedBy } : {}),
      ...(o.noop === true ? { noop: true } : {}),
      diagnostics: o.diagnostics.map(diagnosticToJson),
    })),
    diagnostics: diagnosticsJson(run.diagnostics),
    outputs,
  };
}

export async function applyFlow(kind: ApplyKind, argv: string[], usageText: string): Promise<number> {
  const valueFlags = ["--target", "--refresh", "--parallelism", ...LOCK_FLAGS.values];
  const switches = ["--auto-approve", ...LOCK_FLAGS.switches, ...(kind === "apply" ? ["--destroy", "--refresh-only"] : [])];
  const args: ParsedArgs = parseArgs(argv, flagSpec(PROJECT_FLAGS, { values: valueFlags, switches }));
  if (args.switches.has("--help")) {
    process.stdout.write(`${usageText}\n`);
    return 0;
  }
  enterProject(args);
  const io = new Console(args);
  if (args.positionals.length > (kind === "apply" ? 1 : 0)) throw new CliUsageError(`unexpected argument ${args.positionals[kind === "apply" ? 1 : 0]}`);
  const planFile = kind === "apply" ? args.positionals[0] : undefined;
  let mode: PlanMode = kind === "destroy" ? "destroy" : kind === "refresh" ? "refresh-only" : "normal";
  if (kind === "apply") {
    if (args.switches.has("--destroy") && args.switches.has("--refresh-only")) throw new CliUsageError("--destroy and --refresh-only cannot be combined");
    if (args.switches.has("--destroy")) mode = "destroy";
    if (args.switches.has("--refresh-only")) mode = "refresh-only";
  }
  const parallelism = intFlag(args, "--parallelism", 10);
  const lockTimeout = durationFlag(args, "--lock-timeout", 0);
  const targets = args.values.get("--target") ?? [];
  const refresh = boolFlag(args, "--refresh", true);
  if (planFile !== undefined && (targets.length > 0 || args.values.has("--refresh") || mode !== "normal")) {
    throw new CliUsageError("a saved plan is applied exactly as it was made; --target, --refresh, --destroy and --refresh-only belong to `takoform plan`");
  }

  let saved: SavedPlan | undefined;
  if (planFile !== undefined) {
    try {
      saved = await readPlanFile(planFile);
    } catch (error) {
      if (error instanceof PlanFileError) return io.fail(kind, [error.diagnostic]);
      throw error;
    }
  }
  const ws = await loadWorkspace(
    args,
    saved ? { text: saved.stackDocument, ...(saved.stackFile ? { file: saved.stackFile } : {}), variables: saved.variables } : undefined,
  );
  if (!("stack" in ws)) return io.fail(kind, ws.diagnostics);
  if (!io.json) io.diagnostics(ws.diagnostics);
  if (saved !== undefined) {
    const mismatch = checkSensitiveVariables(saved, ws.variables);
    if (mismatch.length > 0) return io.fail(kind, mismatch);
  }

  // A saved plan's stack carries no backend password; take it from the stack file it was made from.
  if (saved !== undefined) ws.state = restoreConnStr(ws.state, saved.stackFile);
  const session = await openSession(ws);
  if (!("store" in session)) return io.fail(kind, session.diagnostics);
  const { store, connection, host } = session;
  for (const notice of connection.notices) if (!io.json) io.err(notice);

  const printer = io.json ? null : new ProgressPrinter((line) => io.out(line), io.color);
  let interrupts = 0;
  // While the approval prompt waits, Ctrl-C is its answer (a no: the apply is cancelled).
  let prompting = false;
  const onInterrupt = (): void => {
    if (prompting) return;
    interrupts++;
    if (interrupts === 1) {
      io.err(
        "\nInterrupt received. No new step starts; the steps running now finish and are recorded. Press Ctrl-C again to stop at once (state records every write in flight; the next apply resolves it).",
      );
    } else {
      process.exit(130);
    }
  };
  process.on("SIGINT", onInterrupt);
  let noTty = false;
  const noted = new Set<Diagnostic>();
  try {
    const autoApprove = args.switches.has("--auto-approve");
    const run = await runApply({ provider: connection.provider, stack: ws.stack, variables: ws.variables, host }, store, {
      plan: { mode, refresh, parallelism, ...(targets.length > 0 ? { targets } : {}) },
      ...(saved !== undefined ? { saved } : {}),
      lock: {
        holder: `takoform ${kind} (pid ${process.pid} on ${hostname()})`,
        leaseMs: leaseMs(process.env),
        timeoutMs: lockTimeout,
        forceUnlock: args.switches.has("--force-unlock"),
      },
      parallelism,
      ...(printer ? { progress: printer.sink } : {}),
      hooks: crashHooks(process.env),
      stopped: () => interrupts > 0,
      onPlan: (plan: Plan) => {
        if (!io.json) io.out(renderPlan(plan, { color: io.color }));
      },
      onNote: (note: Diagnostic) => {
        if (io.json) return;
        io.diagnostics([note]);
        noted.add(note);
      },
      ...(autoApprove || kind === "refresh"
        ? {}
        : {
            confirm: async () => {
              if (io.json) {
                noTty = true;
                return false;
              }
              prompting = true;
              let answer: boolean | "no-tty";
              try {
                answer = await confirm(
                  kind === "destroy" ? "Do you really want to destroy all resources?" : "Do you want to perform these actions?",
                  kind === "destroy"
                    ? "Takoform will destroy all your managed infrastructure, as shown above. There is no undo."
                    : "Takoform will perform the actions described above.",
                );
              } finally {
                prompting = false;
              }
              if (answer === "no-tty") {
                noTty = true;
                return false;
              }
              return answer;
            },
          }),
    });
    const ok = (run.status === "applied" || run.status === "no-changes") && (run.result?.ok ?? true);
    if (noTty) {
      const refusal: Diagnostic = {
        severity: "error",
        summary: `${kind} needs approval, and there is no terminal to ask on`,
        detail: "The plan above was not applied.",
        repair: `Review the plan, then run \`takoform ${kind} --auto-approve\`, or save it with \`takoform plan --out FILE\` and apply that file.`,
      };
      if (io.json) io.emitJson({ ...summaryJson(kind, run, false), diagnostics: diagnosticsJson([...run.diagnostics, refusal]) });
      else io.diagnostics([refusal]);
      return 1;
    }
    if (io.json) {
      io.emitJson(summaryJson(kind, run, ok));
      return ok ? 0 : 1;
    }
    // Plan diagnostics were shown with the plan; show what came after it.
    const shown = new Set([...(run.plan?.diagnostics ?? []), ...noted]);
    io.diagnostics(run.diagnostics.filter((d) => !shown.has(d)));
    if (run.status === "cancelled") {
      io.err(`${kind === "destroy" ? "Destroy" : "Apply"} cancelled.`);
      return 1;
    }
    if (run.status === "applied" || run.status === "no-changes") {
      const c = counts(run);
      const word = kind === "destroy" ? "Destroy" : kind === "refresh" ? "Refresh" : "Apply";
      if (kind === "refresh")
        io.out(`\nRefresh ${ok ? "complete" : "failed"}! ${run.plan?.resourceDrift?.length ?? 0} change(s) found on the host were recorded in state.`);
      else if (run.status === "applied" || run.recovered > 0) {
        const resources =
          kind === "destroy"
            ? `${c.destroyed} destroyed`
            : `${c.imported > 0 ? `${c.imported} imported, ` : ""}${c.added} added, ${c.changed} changed, ${c.destroyed} destroyed`;
        io.out(`\n${word} ${ok ? "complete" : "failed"}! Resources: ${resources}.`);
      }
      if (run.recovered > 0) io.out(`${run.recovered} write(s) an interrupted apply had left unfinished were resolved first.`);
      const outputs = Object.entries(run.result?.outputs ?? {});
      if (kind !== "destroy" && outputs.length > 0) {
        io.out("\nOutputs:\n");
        for (const [name, o] of outputs) io.out(`${name} = ${o.sensitive ? "<sensitive>" : JSON.stringify(o.value)}`);
      }
    }
    return ok ? 0 : 1;
  } finally {
    process.off("SIGINT", onInterrupt);
    printer?.close();
    await connection.close();
    await store.close();
  }
}
