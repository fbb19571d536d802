// Opening what a state-writing command (apply, destroy, refresh, import) works on: the project's
// state and a provider connected for the stack. They open together or not at all, so a command
// that cannot connect leaves no state store open behind it.

import type { Diagnostic } from "../core/diagnostic.ts";
import { openLocalState } from "../state/index.ts";
import type { StateStore } from "../state/types.ts";
import { ConnectError, connectProvider, type Connection } from "./connect.ts";
import type { Workspace } from "./workspace.ts";

export interface Session {
  store: StateStore;
  connection: Connection;
}

/**
 * Opens the workspace's state, then connects. A connection refused for a reason the user can act
 * on comes back as its diagnostic (the state closed again); anything else is thrown.
 */
export async function openSession(ws: Workspace): Promise<Session | { diagnostics: Diagnostic[] }> {
  const store = openLocalState(ws.statePath);
  try {
    const connection = await connectProvider({ projectDir: ws.projectDir, stack: ws.stack, variables: ws.variables });
    return { store, connection };
  } catch (error) {
    await store.close();
    if (error instanceof ConnectError) return { diagnostics: [error.diagnostic] };
    throw error;
  }
}
