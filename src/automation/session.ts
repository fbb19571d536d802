// Opening what a state-writing command (apply, destroy, refresh, import, state rebind and
// upgrade-lane) works on: the state the stack's backend names, a provider connected for the stack,
// and which host that is. They open together or not at all, so a command that cannot connect leaves no state store open behind it.
// Finding out which host it is reads discovery only; whether the state may be used there is
// decided by the engine under the state lock, before the first resource is read.

import type { Diagnostic, LaneName } from "../core/index.ts";
import type { HostBinding, StateStore } from "../state/index.ts";
import { ConnectError, connectProvider, type Connection, type SharedEmbeddedHost } from "./connect.ts";
import { recordedLane } from "../engine/index.ts";
import { openStore } from "./state-access.ts";
import type { LoadedStack } from "./project.ts";

export interface Session {
  store: StateStore;
  connection: Connection;
  /** The host the connection reaches, as the state's binding records it. */
  host: HostBinding;
}

/**
 * Opens the workspace's state, then connects and identifies the host. A connection refused for a
 * reason the user can act on comes back as its diagnostic (the state closed again); anything else
 * is thrown. `lane` speaks exactly that lane instead of the one the state records (`takoform state
 * upgrade-lane`: the lane the state moves to). `env` is where the provider settings not in the
 * stack's provider block come from (TAKOFORM_ENDPOINT, …; process.env by default).
 */
export async function openSession(
  ws: Pick<LoadedStack, "projectDir" | "state" | "stack" | "variables">,
  options: { lane?: LaneName; hostWaitMs?: number; env?: NodeJS.ProcessEnv; shared?: SharedEmbeddedHost } = {},
): Promise<Session | { diagnostics: Diagnostic[] }> {
  const opened = await openStore(ws.state);
  if (!("store" in opened)) return opened;
  const { store } = opened;
  let connection: Connection | undefined;
  try {
    const stateLane = options.lane === undefined ? await recordedLane(store) : undefined;
    connection = await connectProvider({
      projectDir: ws.projectDir,
      stack: ws.stack,
      variables: ws.variables,
      ...(stateLane !== undefined ? { stateLane } : {}),
      ...(options.lane !== undefined ? { lane: options.lane } : {}),
      ...(options.hostWaitMs !== undefined ? { hostWaitMs: options.hostWaitMs } : {}),
      ...(options.env !== undefined ? { env: options.env } : {}),
      ...(options.shared !== undefined ? { shared: options.shared } : {}),
    });
    const host = await connection.identity(store.lineage);
    return { store, connection, host };
  } catch (error) {
    await connection?.close();
    await store.close();
    if (error instanceof ConnectError) return { diagnostics: error.diagnostics };
    throw error;
  }
}
