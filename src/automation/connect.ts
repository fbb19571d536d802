// Wiring a provider for a command: where the host is, which space, which token, and which
// registry. The engine receives the provider; only this file knows about the embedded host.
//
// Provider configuration: the stack's `takoform` provider block (endpoint, space, token, lane;
// literals or variables), else TAKOFORM_ENDPOINT / TAKOFORM_SPACE / TAKOFORM_TOKEN / TAKOFORM_LANE
// — evaluated by the engine's config loader (engine/config/provider-settings.ts). `lane` pins the
// Host API lane (docs/client.md §1); without it the lane the state was written under is tried
// first, then the newest (docs/state.md §4). Without an endpoint the
// embedded local host is started IN-PROCESS on first use, with its data under
// `<project>/.takoform/host` (the host locks that directory: one process at a time), reached
// through the in-process transport, space `default`, development token. When another process
// holds that directory AND serves it over HTTP (`takoform dev`, or `host serve --data` without
// --token), the command goes through that server instead, so its runtime sees the change.
//
// `identity()` says which host that is, from discovery, for the state's host binding: the
// embedded host is recorded with the origin `embedded` and the host id its data directory
// publishes, so the same data served over HTTP is still the same host.
//
// The registry is the bundled one, plus the project's own generated registry
// (`<project>/.gen/takoform/registry.gen.json`, written by `takoform get`) when it exists.
// The embedded host is imported only when it is started: a command pointed at an endpoint never
// loads it.

import { setTimeout as delay } from "node:timers/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { HostClient, type HostTransport, inProcessTransport, type NegotiatedLane } from "../client/index.ts";
import { type Diagnostic, DiagnosticError, type LaneName } from "../core/index.ts";
import { providerSettings, type ProviderSettings, type ResolvedVariables, type StackConfig } from "../engine/config/index.ts";
import { EMBEDDED_ORIGIN, hostBindingOf } from "../engine/index.ts";
import type { HostBinding } from "../state/index.ts";
import type { LocalHost } from "../host/index.ts";
import { HostProvider, type Provider, providerCode, SupportCache, unreachableDiagnostic } from "../provider/index.ts";
import { bundledRegistry } from "../registry/bundled.ts";
import { combineGenerated, type GeneratedRegistry, readGeneratedRegistry, RegistryError } from "../registry/index.ts";
import type { RunConnections } from "./run-connections.ts";

/** The URL the in-process client is given; no socket ever opens on it. */
const IN_PROCESS_URL = "http://localhost";

export interface Connection {
  provider: Provider;
  /** Where the host is, which space, which token, which lane: the provider block, evaluated (engine/config). */
  settings: ProviderSettings;
  /** Where the host is, for messages (never includes the token). */
  describe: string;
  /** Notices worth printing (a project registry shadowing bundled types). */
  notices: string[];
  /**
   * Connects (discovery only, no resource is read) and returns the negotiated lane. A host that
   * cannot be used — refused, unresolvable, TLS, 401, 403, not a discovery document — is a
   * ConnectError carrying the one diagnostic for that cause.
   */
  reach(): Promise<NegotiatedLane>;
  /**
   * Who the host is (docs/state.md §4): connects (discovery only, no resource is read) and
   * returns the binding a state of this lineage records for it. A host that cannot be reached
   * is a ConnectError.
   */
  identity(lineage: string): Promise<HostBinding>;
  close(): Promise<void>;
}

/** A provider that cannot be connected for a reason the user can act on. */
export class ConnectError extends DiagnosticError {
  override name = "ConnectError";
}

/**
 * The embedded host could not open its data for want of disk space: named as the full disk it is,
 * not as a host that is unreachable (issue 23).
 */
function embeddedDiskFull(dataDir: string, error: unknown): Diagnostic {
  return {
    severity: "error",
    code: providerCode("host-disk-full"),
    summary: `The disk holding the embedded local host's data (${dataDir}) is full`,
    detail: "The host could not open its data, so nothing was read from it or written to it.",
    cause: error instanceof Error ? error.message : String(error),
    repair: `Free space on the disk holding ${dataDir} (\`df -h ${dataDir}\` shows it), then run the command again.`,
  };
}

/** The bundled registry, plus the project's generated one when `takoform get` wrote it. */
export async function projectRegistry(projectDir: string): Promise<{ registry: GeneratedRegistry; notices: string[] }> {
  const file = join(projectDir, ".gen", "takoform", "registry.gen.json");
  const regenerate = "Regenerate the project's registry with `takoform get --forms DIR` (the same --forms directories as before).";
  if (!existsSync(file)) {
    // Before the registry was a JSON document, `takoform get` wrote it as TypeScript, which only a
    // TypeScript loader could read. Using the bundled registry alone would silently drop the
    // project's types, so that layout is refused with the one step that upgrades it.
    const older = join(projectDir, ".gen", "takoform", "registry", "index.gen.ts");
    if (existsSync(older)) {
      throw new ConnectError({
        severity: "error",
        code: providerCode("not-configured"),
        summary: `The project's generated registry ${older} was written by an older takoform-cdk`,
        detail: `This version reads ${file} instead.`,
        repair: regenerate,
      });
    }
    return { registry: bundledRegistry, notices: [] };
  }
  let project: GeneratedRegistry;
  try {
    project = readGeneratedRegistry(file);
  } catch (error) {
    if (!(error instanceof RegistryError)) throw error;
    throw new ConnectError({
      severity: "error",
      code: providerCode("not-configured"),
      summary: `The project's generated registry cannot be used`,
      detail: error.message,
      repair: regenerate,
    });
  }
  const combined = combineGenerated(bundledRegistry, project);
  const notices = combined.shadowed.length > 0 ? [`The project's registry (.gen/takoform) replaces the bundled types ${combined.shadowed.join(", ")}.`] : [];
  return { registry: combined.data, notices };
}

export interface ConnectOptions {
  projectDir: string;
  stack: StackConfig | null;
  variables: ResolvedVariables | null;
  env?: NodeJS.ProcessEnv;
  /**
   * The lane the state was written under (engine/host-binding.ts recordedLane): asked first when
   * no lane is pinned, and served by the embedded host, so an existing state keeps its lane.
   */
  stateLane?: LaneName;
  /**
   * Speak exactly this lane (`takoform state upgrade-lane`: the lane the state moves to). A
   * provider block or TAKOFORM_LANE pinning another lane is refused: the two would disagree.
   */
  lane?: LaneName;
  /**
   * How long to wait for another takoform process to let go of the embedded host's data: a
   * command's --lock-timeout, since the other process is the run holding the state lock it waits
   * for (two first runs at once: issue 26, item 4). Never less than HOST_LOCK_GRACE_MS.
   */
  hostWaitMs?: number;
  /** The embedded host shared by the stacks of one command (closed by it, not by this connection). */
  shared?: SharedEmbeddedHost;
}

/** The embedded host as opened: in this process, or served over HTTP by the process that holds its data. */
type EmbeddedOpened = { host: LocalHost } | { served: string; devToken: string };

/**
 * One embedded host for the several stacks of one command (stacks-open.ts): the host locks its
 * data directory to one process, so every stack's connection shares the one the first opened,
 * and the command closes it once every connection is closed.
 */
export class SharedEmbeddedHost {
  opened: Promise<EmbeddedOpened> | undefined;
  /** A run of several stacks: the lanes negotiated and the support profiles read, shared by its connections. */
  run?: RunConnections;
  async close(): Promise<void> {
    const opened = await this.opened?.catch(() => undefined);
    if (opened !== undefined && "host" in opened) await opened.host.close();
  }
}

/**
 * One in-process transport per embedded host: the clients of a run share a negotiation only over
 * the same transport (client/lane-share.ts), and every one of them reaches this host.
 */
const inProcess = new WeakMap<LocalHost, HostTransport>();
function inProcessTo(host: LocalHost): HostTransport {
  let transport = inProcess.get(host);
  if (transport === undefined) inProcess.set(host, (transport = inProcessTransport((request) => host.handle(request))));
  return transport;
}

/** How long a command waits for another takoform process to let go of the embedded host's data. */
const HOST_LOCK_GRACE_MS = 3_000;

export async function connectProvider(options: ConnectOptions): Promise<Connection> {
  const env = options.env ?? process.env;
  const evaluated = providerSettings(options.stack, options.variables, env);
  if (evaluated.settings === undefined) {
    throw new ConnectError(
      evaluated.problems.map(({ setting: _, ...problem }) => ({ severity: "error" as const, code: providerCode("not-configured"), ...problem })),
    );
  }
  const settings = evaluated.settings;
  if (options.lane !== undefined) {
    if (settings.lane !== null && settings.lane !== options.lane) {
      throw new ConnectError({
        severity: "error",
        code: providerCode("not-configured"),
        summary: `The provider's lane is pinned to ${settings.lane}, not ${options.lane}`,
        detail: `This command speaks the Host API lane ${options.lane}; the provider block's lane (or TAKOFORM_LANE) pins ${settings.lane}.`,
        repair: `Set the provider's lane to ${options.lane}, or remove the pin, and run again.`,
      });
    }
    settings.lane = options.lane;
  }
  const { registry, notices } = await projectRegistry(options.projectDir);
  const run = options.shared?.run;
  let embedded: LocalHost | undefined;
  let client: HostClient | undefined;
  // The token the connection presents: the configured one, or the embedded host's development token.
  let presentedToken = settings.token;
  const dataDir = join(options.projectDir, ".takoform", "host");
  let servedBy: string | undefined;

  // A command that waited for the state lock (--lock-timeout) gets it the moment the previous
  // run releases it, a few milliseconds before that process has closed the embedded host: a
  // held data directory is therefore retried for a short grace period before it is an error.
  const openEmbedded = async (): Promise<EmbeddedOpened> => {
    const { DataDirLockedError, DEV_TOKEN, isDiskFull, LocalHost, servedEndpoint } = await import("../host/index.ts");
    const deadline = Date.now() + Math.max(HOST_LOCK_GRACE_MS, options.hostWaitMs ?? 0);
    for (;;) {
      try {
        // The embedded host serves its data's lanes, plus the one this project needs: the pinned
        // lane, or the one its state was written under.
        const needed = [...(settings.lane !== null ? [settings.lane] : []), ...(options.stateLane !== undefined ? [options.stateLane] : [])];
        return { host: await LocalHost.open({ data: dataDir, includeLanes: needed, log: (line) => process.stderr.write(`${line}\n`) }) };
      } catch (error) {
        if (isDiskFull(error)) throw new ConnectError(embeddedDiskFull(dataDir, error));
        if (!(error instanceof DataDirLockedError)) throw error;
        const served = servedEndpoint(dataDir);
        if (served?.devToken === true) return { served: served.url, devToken: DEV_TOKEN.token };
        if (Date.now() >= deadline) {
          throw new Error(
            `the embedded local host's data directory ${dataDir} is in use by another takoform process (${error.message}); wait for it to finish, or serve the host once with \`takoform host serve\` and set TAKOFORM_ENDPOINT`,
          );
        }
        await delay(50);
      }
    }
  };

  const connect = async (): Promise<HostClient> => {
    const lanes = {
      ...(settings.lane !== null ? { lane: settings.lane } : {}),
      ...(options.stateLane !== undefined ? { preferLane: options.stateLane } : {}),
      ...(run !== undefined ? { lanes: run.lanes } : {}),
    };
    if (settings.endpoint !== null) {
      client = await HostClient.connect({ endpoint: settings.endpoint, ...(settings.token !== undefined ? { token: settings.token } : {}), ...lanes });
      return client;
    }
    const opened = options.shared !== undefined ? await (options.shared.opened ??= openEmbedded()) : await openEmbedded();
    if ("served" in opened) {
      servedBy = opened.served;
      presentedToken = settings.token ?? opened.devToken;
      client = await HostClient.connect({ endpoint: opened.served, token: presentedToken, ...lanes });
      return client;
    }
    if (options.shared === undefined) embedded = opened.host;
    const host = opened.host;
    const { DEV_TOKEN } = await import("../host/index.ts");
    presentedToken = settings.token ?? DEV_TOKEN.token;
    client = await HostClient.connect({
      endpoint: IN_PROCESS_URL,
      token: presentedToken,
      transport: inProcessTo(host),
      ...lanes,
    });
    return client;
  };

  // One connection for the provider and the identity: whichever asks first makes it.
  let connecting: Promise<HostClient> | undefined;
  const connectOnce = (): Promise<HostClient> => (connecting ??= connect());
  const describeHost = (): string => {
    if (settings.endpoint !== null) return settings.endpoint;
    return servedBy !== undefined ? `the embedded local host (${dataDir}), served at ${servedBy}` : `the embedded local host (${dataDir})`;
  };
  // The provider names the host the same way when the host refuses the credential AFTER
  // discovery (a resource call answered 401): the same finding as below, once per run.
  const provider = new HostProvider({
    client: connectOnce,
    registry,
    defaultSpace: settings.space,
    describeHost,
    // The embedded host's token, when none is configured, is its development token: the same for every stack.
    ...(run !== undefined
      ? {
          support: new SupportCache(
            30_000,
            run.support({
              host: settings.endpoint ?? "embedded",
              token: settings.token,
              space: settings.space,
              pinned: settings.lane,
              preferred: options.stateLane,
            }),
          ),
        }
      : {}),
  });
  // A host that cannot be used at all is ONE diagnostic, classified by its cause (refused, DNS,
  // TLS, 401, 403, not a discovery document), never one per resource (docs/cli.md).
  const reach = async (): Promise<NegotiatedLane> => {
    try {
      return (await connectOnce()).lane;
    } catch (error) {
      if (error instanceof ConnectError) throw error;
      throw new ConnectError(unreachableDiagnostic(error, { endpoint: describeHost(), ...(settings.lane !== null ? { pinnedLane: settings.lane } : {}) }));
    }
  };
  return {
    provider,
    settings,
    get describe() {
      return describeHost();
    },
    notices,
    reach,
    async identity(lineage: string): Promise<HostBinding> {
      const lane = await reach();
      const origin = settings.endpoint !== null ? lane.origin.origin : EMBEDDED_ORIGIN;
      return hostBindingOf(
        {
          origin,
          lane: lane.hostApiVersion,
          ...(lane.hostId !== undefined ? { hostId: lane.hostId } : {}),
          ...(lane.tenant !== undefined ? { tenant: lane.tenant } : {}),
        },
        settings.space,
        presentedToken,
        lineage,
      );
    },
    async close() {
      client?.close();
      await embedded?.close();
    },
  };
}
