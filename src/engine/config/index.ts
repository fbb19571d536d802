// src/engine/config — reading the configuration the engine plans from.
//
// How the engine uses it
// ----------------------
//   const loaded = flags.config
//     ? await loadConfigFile(flags.config)                       // --config FILE
//     : await loadProjectConfig(projectDir, { stack: flags.stack }); // runs cdktf.json's "app"
//   if (!loaded.config) return render(loaded.diagnostics);       // config is null on any error
//   const stack = loaded.config;
//   const vars = resolveVariables(stack.variables, { values: flags.vars, env: process.env });
//
//   const graph = buildDependencyGraph(stack.resources.keys(), configEdges(stack));
//   for (const resource of stack.resources.values()) {
//     const resolve = (ref) => ref.kind === "variable"
//       ? valueAtPath(vars.values.get(ref.name), ref.path)
//       : valueAtPath(plannedOrStateAttributes(ref.address), ref.path);  // UNKNOWN when not yet known
//     const own = mapValues(resource.attributes, (e) => evaluate(e, resolve));          // placeholder config
//     const contributed = resource.contributions.map((c) => mapValues(c.values, (e) => evaluate(e, resolve)));
//     // merging `contributed` into `own` (list attributes concatenate) is the engine's rule.
//   }
//
// Every document is read strictly (strict-read.ts; docs/engine.md §0): a repeated key, nesting
// past 256 levels and invalid UTF-8 are refused with the file, line, column and JSON pointer.
//
// Model notes
// - `ResourceConfig.attributes` is the resource's own configuration; `contributions` are the
//   RFC 0011 values other constructs added (read from `//.takoform.contributions`). A placeholder
//   is planned from `attributes` alone.
// - Expressions are parsed once; a string that is exactly `${ref}` is the reference itself (its
//   value keeps its type), a mixed string is a template (UNKNOWN if any part is unknown).
// - Sensitive: variables marked sensitive (`vars.sensitive`), outputs marked sensitive, and the
//   provider `token`. `variablesOf(expr)` tells which variables flow into a value.
// - `moved` and `removed` blocks are read (blocks/refactoring.ts) and checked against each other and
//   the resources (refactoring-rules.ts); the plan applies them to state (plan/moves.ts).
// - `data.terraform_remote_state` (blocks/remote-state.ts) is another stack's outputs: its
//   references are `DataExpr`s, inputs of the plan like variables (ResolvedVariables.remote).
// - Refused with a diagnostic (and `config: null`): every other data source, locals, module, check,
//   count, for_each, provisioner, connection, lifecycle conditions, variable validation, provider
//   aliases or other providers, functions/operators/conditionals/splats/`for` in interpolations,
//   `local.*`, references to undeclared resources or variables, self-references.
// - terraform.backend is read (blocks/backend.ts: local or pg; any other type is refused).
//   Ignored without error: terraform.required_providers, terraform.required_version; other
//   terraform settings produce a warning.

export type {
  ContributionConfig,
  DataExpr,
  Expression,
  ImportConfig,
  InterpolationExpr,
  LifecycleConfig,
  MovedConfig,
  OutputConfig,
  ProviderConfig,
  ReferenceExpr,
  RemoteStateConfig,
  RemoteStateValue,
  RemovedConfig,
  ResourceConfig,
  StackConfig,
  TypeConstraint,
  VariableConfig,
  VariableExpr,
} from "./types.ts";
export { loadConfigFile, loadStackConfig, type LoadResult } from "./load.ts";
export { readStackOutline, type StackOutline } from "./outline.ts";
export { readManifest, type Manifest } from "./manifest.ts";
export { readLastSynth } from "./last-synth.ts";
export {
  loadProjectConfig,
  synthesizeProject,
  type AppRun,
  type AppRunner,
  type AppStacks,
  type ProjectLoadResult,
  type ProjectOptions,
  type SynthResult,
} from "./project.ts";
export { WarmApp } from "./warm-app.ts";
export { WarmTypecheck, type WarmCheck } from "./typecheck/warm.ts";
export { resolveVariables, type ResolvedVariables, type VariableInputs, type VariableSource } from "./variables/resolve.ts";
export { readVarFile, type VarFile, type VarFileRead } from "./variables/var-file.ts";
export { convertValue, parseTypeConstraint, TypeSyntaxError } from "./variables/type-constraint.ts";
export { evaluate, EvaluationError, referencesOf, remoteReferencesOf, valueAtPath, variablesOf, type Resolver } from "./expression/evaluate.ts";
export { parseExpression } from "./expression/parse.ts";
export { formatPath } from "./expression/traversal.ts";
export { configEdges } from "./edges.ts";
export { providerSettings, type ProviderSettings } from "./provider-settings.ts";
export { CONFIG_CODES, configCode, type ConfigCode } from "./diagnostics.ts";
export { readStrictJson, STACK_MAX_DEPTH } from "./strict-read.ts";
