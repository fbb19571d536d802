// src/views — what the command shows, rendered from what the engine returns and emits (issue 28
// item 3): the plan as people read it (human.ts) and as `terraform show -json` shapes it
// (json.ts), an apply's progress lines and its live counter on a terminal (progress.ts, live.ts),
// a run's closing lines and JSON document (run.ts), state and outputs as JSON (state-json.ts),
// a state transfer's `--json` answer (state-transfer-json.ts), state and outputs as text
// (state-text.ts), a run of several stacks' closing lines and JSON document (stacks-run.ts).
// The engine decides; nothing here does. Only the CLI imports this module, and no published
// entry point exports it.

export { planSummary, renderPlan, summarize, writePlan } from "./human.ts";
export { planToJson } from "./json.ts";
export { shownPlan, shownRun } from "./plan-handle.ts";
export { progressLine, ProgressPrinter } from "./progress.ts";
export { LiveCounter } from "./live.ts";
export { runToJson, runClosingLines, runTimingLine } from "./run.ts";
export { outputJson, stateToJson } from "./state-json.ts";
export { formatValue } from "./values.ts";
export { outputHidden, pulledState, recordText, stateText } from "./state-text.ts";
export { transferJson } from "./state-transfer-json.ts";
export { shownStacksRun, stacksJson, stacksSummaryLines } from "./stacks-run.ts";
