// src/automation — what a run is wired from, below the CLI: the stack loaded (the app run and
// typechecked, or a synthesized stack), the state its backend names, and a provider connected to
// the host (the embedded host by default, or an endpoint, space and token). The `takoform`
// command is built on it. This index is the module's facade for the CLI; it is not published.
//
//   project.ts        loading the stack, its variables and its state target
//   output-variables.ts the sensitive variables `takoform output` is given, to open a sensitive output
//   remote-reads.ts   what a stack's data.terraform_remote_state reads from the other stacks' states
//   state-access.ts   which state a stack names, opening it for writing or reading
//   backend-record.ts `.takoform/backend.json`: the backend this directory last used
//   legacy-state.ts   the project's state from before each stack had its own, and which stack owns it
//   state-damage.ts   a damaged local state file as one diagnostic with its repair
//   connect.ts        the provider for a stack: host, space, token, lane, registry; the embedded host
//   session.ts        state, connection and host identity opened together
//   run.ts            a plan, or an apply / destroy / refresh, on a loaded stack
//   stacks-open.ts    the stacks of one multi-stack run as the engine's orchestrator drives them (app-run.ts)
//   stacks-saved.ts   the stacks of a saved plan of several stacks, as `apply FILE` drives them (app-run.ts)
//   app.ts            the published AppWorkspace (api.ts): plan/apply/destroy of several stacks;
//                     app-results.ts, what it returns and streams
//   options.ts        what a Workspace's calls take (host, run and lock options)
//   plan-file.ts      a saved plan file of one stack, as `apply({ planFile })` applies it, and the refusals of a file with stacks named
//   saved-plan.ts     a saved plan file read once (`Workspace.readPlan`): one stack's or several's, each plan a PlanHandle
//   workspace.ts      the published Workspace (api.ts), the command's plan/apply/import/synth
//   workspace-state.ts workspace.state, the state operations: state-edit.ts (mv, rm),
//                     state-push.ts, state-migrate.ts, state-restore.ts, state-adopt.ts

export { loadStack, type LoadedStack, type StackSource } from "./project.ts";
export { AppOutlines, readRemoteState, readRemoteStates, remoteReadsOf, type RemoteRead } from "./remote-reads.ts";
export { loadStateTarget, openReader, openStore, restoreConnStr, stackMismatch, stateTarget, unavailable, type StateTarget } from "./state-access.ts";
export { describeIdentity, legacyRecordPath, previousBackend, readRecordAt, samePlace, specOf, stateFileInUse, writeBackendRecord } from "./backend-record.ts";
export { legacyStatePath } from "./legacy-state.ts";
export { damageDiagnostic } from "./state-damage.ts";
export { ConnectError, connectProvider, SharedEmbeddedHost, type Connection } from "./connect.ts";
export { openSession, type Session } from "./session.ts";
export { applyStack, planStack } from "./run.ts";
