// The published Forms entry, `takoform-cdk/forms` (docs/automation.md, "Generating constructs and
// reading Form Definitions"): generate a project's constructs from Form packages, and read the
// definitions under a directory, as `takoform get` and `takoform forms` do. An entry of its own,
// apart from takoform-cdk/automation, so that a program (and those two commands) that only
// generates code never loads the engine, the state stores or the provider.

export { generateConstructs, type GenerateOptions, type GenerateResult } from "./generate.ts";
export { readForms, type FormsReport } from "./forms.ts";
