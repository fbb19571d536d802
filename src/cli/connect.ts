// Wiring a provider for a command: where the host is, which space, which token, and which
// registry. The engine receives the provider; only this file knows about the embedded host.
//
// Provider configuration: the stack's `takoform` provider block (endpoint, space, token; literals
// or variables), else TAKOFORM_ENDPOINT / TAKOFORM_SPACE / TAKOFORM_TOKEN. Without an endpoint the
// embedded local host is started IN-PROCESS on first use, with its data under
// `<project>/.takoform/host` (the host locks that directory: one process at a time), reached
// through the in-process transport, space `default`, development token. When another process
// holds that directory AND serves it over HTTP (`takoform dev`, or `host serve --data` without
// --token), the command goes through that server instead, so its runtime sees the change.
//
// The registry is the bundled one, plus the project's own generated registry
// (`<project>/.gen/takoform/registry/index.gen.ts`, written by `takoform get`) when it exists.

import { setTimeout as delay } from "node:timers/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { tsImport } from "tsx/esm/api";
import { HostClient } from "../client/client.ts";
import { inProcessTransport } from "../client/transport.ts";
import type { Diagnostic } from "../core/diagnostic.ts";
import { isUnknown, type Value } from "../core/values.ts";
import { evaluate, EvaluationError, valueAtPath } from "../engine/config/expression/evaluate.ts";
import type { Expression, StackConfig } from "../engine/config/types.ts";
import type { ResolvedVariables } from "../engine/config/variables/resolve.ts";
import { DataDirLockedError, DEV_TOKEN, LocalHost, servedEndpoint } from "../host/index.ts";
import { TakoformProvider } from "../provider/provider.ts";
import type { Provider } from "../provider/types.ts";
import { bundledRegistry } from "../registry/bundled.ts";
import { combineGenerated } from "../registry/combine.ts";
import type { GeneratedRegistry } from "../registry/generated-types.ts";

export const DEFAULT_SPACE = "default";
const EMBEDDED_ORIGIN = "http://localhost";

export interface ConnectionSettings {
  /** null: the embedded local host. */
  endpoint: string | null;
  space: string;
  /** Never printed. */
  token: string | undefined;
}

export interface Connection {
  provider: Provider;
  settings: ConnectionSettings;
  /** Where the host is, for messages (never includes the token). */
  describe: string;
  /** Notices worth printing (a project registry shadowing bundled types). */
  notices: string[];
  close(): Promise<void>;
}

export class ConnectError extends Error {
  override name = "ConnectError";
  constructor(readonly diagnostic: Diagnostic) {
    super(diagnostic.summary);
  }
}

function setting(expr: Expression | undefined, name: string, variables: ResolvedVariables | null): string | undefined {
  if (expr === undefined) return undefined;
  let value: Value;
  try {
    value = evaluate(expr, (ref) => (ref.kind === "variable" && variables !== null ? valueAtPath(variables.values.get(ref.name), ref.path) : undefined));
  } catch (error) {
    if (!(error instanceof EvaluationError)) throw error;
    throw new ConnectError({ severity: "error", code: "takoform.provider/not-configured", summary: `The provider's ${name} cannot be evaluated`, detail: error.message, repair: `Set ${name} in the TakoformProvider to a literal or a variable.` });
  }
  if (value === null) return undefined;
  if (typeof value !== "string" || isUnknown(value)) {
    throw new ConnectError({ severity: "error", code: "takoform.provider/not-configured", summary: `The provider's ${name} must be a known string`, repair: `Set ${name} in the TakoformProvider to a string.` });
  }
  return value;
}

export function connectionSettings(stack: StackConfig | null, variables: ResolvedVariables | null, env: NodeJS.ProcessEnv): ConnectionSettings {
  const block = stack?.provider ?? null;
  const endpoint = setting(block?.endpoint, "endpoint", variables) ?? (env["TAKOFORM_ENDPOINT"] || undefined);
  const space = setting(block?.space, "space", variables) ?? (env["TAKOFORM_SPACE"] || undefined) ?? DEFAULT_SPACE;
  const token = setting(block?.token, "token", variables) ?? (env["TAKOFORM_TOKEN"] || undefined);
  return { endpoint: endpoint ?? null, space, token };
}

/** The bundled registry, plus the project's generated one when `takoform get` wrote it. */
export async function projectRegistry(projectDir: string): Promise<{ registry: GeneratedRegistry; notices: string[] }> {
  const file = join(projectDir, ".gen", "takoform", "registry", "index.gen.ts");
  if (!existsSync(file)) return { registry: bundledRegistry, notices: [] };
  // Loaded through tsx's namespaced ESM import: the file is TypeScript with ESM syntax, and the
  // project's package.json may not say "type": "module".
  const module = (await tsImport(pathToFileURL(file).href, import.meta.url)) as { takoformRegistry?: GeneratedRegistry };
  if (module.takoformRegistry === undefined) {
    throw new ConnectError({
      severity: "error",
      code: "takoform.provider/not-configured",
      summary: `${file} exports no takoformRegistry`,
      repair: "Regenerate the project's registry with `takoform get --forms DIR`.",
    });
  }
  const combined = combineGenerated(bundledRegistry, module.takoformRegistry);
  const notices = combined.shadowed.length > 0 ? [`The project's registry (.gen/takoform) replaces the bundled types ${combined.shadowed.join(", ")}.`] : [];
  return { registry: combined.data, notices };
}

export interface ConnectOptions {
  projectDir: string;
  stack: StackConfig | null;
  variables: ResolvedVariables | null;
  env?: NodeJS.ProcessEnv;
}

/** How long a command waits for another takoform process to let go of the embedded host's data. */
const HOST_LOCK_GRACE_MS = 3_000;

export async function connectProvider(options: ConnectOptions): Promise<Connection> {
  const env = options.env ?? process.env;
  const settings = connectionSettings(options.stack, options.variables, env);
  const { registry, notices } = await projectRegistry(options.projectDir);
  let embedded: LocalHost | undefined;
  let client: HostClient | undefined;
  const dataDir = join(options.projectDir, ".takoform", "host");
  let servedBy: string | undefined;

  const connect = async (): Promise<HostClient> => {
    if (settings.endpoint !== null) {
      client = await HostClient.connect({ endpoint: settings.endpoint, ...(settings.token !== undefined ? { token: settings.token } : {}) });
      return client;
    }
    // A command that waited for the state lock (--lock-timeout) gets it the moment the previous
    // run releases it, a few milliseconds before that process has closed the embedded host: a
    // held data directory is therefore retried for a short grace period before it is an error.
    const deadline = Date.now() + HOST_LOCK_GRACE_MS;
    for (;;) {
      try {
        embedded = await LocalHost.open({ data: dataDir, log: (line) => process.stderr.write(`${line}\n`) });
        break;
      } catch (error) {
        if (!(error instanceof DataDirLockedError)) throw error;
        const served = servedEndpoint(dataDir);
        if (served?.devToken === true) {
          servedBy = served.url;
          client = await HostClient.connect({ endpoint: served.url, token: settings.token ?? DEV_TOKEN.token });
          return client;
        }
        if (Date.now() >= deadline) {
          throw new Error(`the embedded local host's data directory ${dataDir} is in use by another takoform process (${error.message}); wait for it to finish, or serve the host once with \`takoform host serve\` and set TAKOFORM_ENDPOINT`);
        }
        await delay(50);
      }
    }
    const host = embedded;
    client = await HostClient.connect({
      endpoint: EMBEDDED_ORIGIN,
      token: settings.token ?? DEV_TOKEN.token,
      transport: inProcessTransport((request) => host.handle(request)),
    });
    return client;
  };

  const provider = new TakoformProvider({ client: connect, registry, defaultSpace: settings.space });
  return {
    provider,
    settings,
    get describe() {
      if (settings.endpoint !== null) return settings.endpoint;
      return servedBy !== undefined ? `the embedded local host (${dataDir}), served at ${servedBy}` : `the embedded local host (${dataDir})`;
    },
    notices,
    async close() {
      client?.close();
      await embedded?.close();
    },
  };
}
