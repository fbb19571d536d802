// WorkerApp: the official way to run one worker (decision 0029 rule 5; the upstream `worker-app`
// module's role). It composes the five resources of a worker aggregate so that a code change
// moves traffic forward without ever leaving the worker unserved:
//
//   ModuleWorker  <name>                the stable identity authors reference (no create_before_destroy)
//   WorkerBundle  bundle-<content>-<owner>   derived name, revision_owner = <name>, create_before_destroy
//   WorkerVersion version-<content>-<owner>  derived name, revision_owner = <name>, create_before_destroy
//   WorkerDeployment <name>-deployment  updated in place to weight the new version (no create_before_destroy)
//   WorkerEndpoint   <name>-endpoint    optional; waits for the deployment (it needs a served fetch)
//   WorkerCronTrigger <name>-cron       optional; waits for the deployment (it needs `scheduled`)
//   QueueConsumer <name>-<key>-consumer optional, one per `queueConsumers` entry; waits for the
//                                       deployment (it needs `queue`): worker-app-consumers.ts
//   StaticAssetBundle static-asset-bundle-<content>-<owner>  optional (`assets`): derived name,
//                                       create_before_destroy; the version serves it (`assets`)
//   SQLiteMigrationSet sqlite-migration-set-<content>-<owner>  optional (`migrations`): derived
//                                       name, create_before_destroy
//   SQLiteMigrationApplication <name>-migrations-<8 hex>  applies the set to the bound database;
//                                       name_prefix and create_before_destroy, so a new set's
//                                       application runs beside the old one before it goes; the
//                                       deployment waits for it (the schema before the code)
//
// Neither revision writes a name: changed content derives a different name, so the new revision is
// created beside the old one, the deployment moves to it, and only then are the old ones deleted.
//
// Mistakes in the options are collected as the WorkerApp's validation problems (problems.ts), and
// the members are still built from what is usable, so their own problems are listed in the same
// synth; only a configuration that is not an object at all throws.

import { readdirSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { controlCharacterProblem } from "../core/index.ts";
import type { TerraformProvider } from "cdktf";
import { Token, type IResolvable } from "./cdk.ts";
import { Construct } from "constructs";
import { refusal, reportProblem, TakoformConstructError } from "./problems.ts";
import type { BundleModuleContentType } from "./resource.ts";
import type { AtLeastOnceQueue } from "./generated/at-least-once-queue.gen.ts";
import type { EdgeKVNamespace } from "./generated/edge-kv-namespace.gen.ts";
import type { ObjectBucket } from "./generated/edge-object-bucket.gen.ts";
import { ModuleWorker } from "./generated/module-worker.gen.ts";
import type { SQLiteDatabase } from "./generated/sqlite-database.gen.ts";
import { WorkerBundle } from "./generated/worker-bundle.gen.ts";
import { WorkerCronTrigger } from "./generated/worker-cron-trigger.gen.ts";
import { WorkerDeployment } from "./generated/worker-deployment.gen.ts";
import { WorkerEndpoint } from "./generated/worker-endpoint.gen.ts";
import { WorkerVersion } from "./generated/worker-version.gen.ts";
import type { SQLiteMigrationApplication } from "./generated/sqlite-migration-application.gen.ts";
import type { SQLiteMigrationSet } from "./generated/sqlite-migration-set.gen.ts";
import type { StaticAssetBundle } from "./generated/static-asset-bundle.gen.ts";
import { assetBundleOf, migrationsOf, type WorkerAppAssets, type WorkerAppMigrations } from "./worker-app-artifacts.ts";
import { queueConsumersOf, type WorkerAppQueueConsumer } from "./worker-app-consumers.ts";
import type { QueueConsumer } from "./generated/queue-consumer.gen.ts";

export type { WorkerAppAssets, WorkerAppMigrations, WorkerAppQueueConsumer };

/** File extension (lowercase, without the dot) → module media type; anything else is octet-stream. */
export const DEFAULT_MODULE_MEDIA_TYPES: Readonly<Record<string, BundleModuleContentType>> = {
  js: "application/javascript+module",
  mjs: "application/javascript+module",
  wasm: "application/wasm",
  txt: "text/plain",
  map: "application/source-map+json",
  bin: "application/octet-stream",
};

/** A handler a worker's main module exports: `fetch` (requests), `scheduled` (cron triggers) or `queue` (a queue's consumer). */
export type WorkerHandler = "fetch" | "scheduled" | "queue";

/** A WorkerApp: the worker's name, its code, and the assets, databases, bindings, triggers and consumers it deploys with. */
export interface WorkerAppConfig {
  /** The worker's name and the owner of its revisions (`^[a-z][a-z0-9-]{0,62}$`). */
  readonly name: string;
  /** SpaceID; the provider's default space when left out. */
  readonly space?: string;
  /** Directory whose every file (recursively, sorted by path) becomes one bundle module. */
  readonly contentDir: string;
  /** The module loaded first (default `index.js`). */
  readonly mainModule?: string;
  /** Extension → media type overrides, merged over {@link DEFAULT_MODULE_MEDIA_TYPES}. */
  readonly moduleMediaTypes?: Readonly<Record<string, BundleModuleContentType>>;
  /** Handlers the main module exports (default `["fetch"]`). */
  readonly handlers?: readonly WorkerHandler[];
  /** Plain configuration; each value keeps its JSON type. Never secrets. */
  readonly vars?: Readonly<Record<string, unknown>>;
  /** Names of secrets the host injects (names only). */
  readonly requiredSensitiveVars?: readonly string[];
  /** Binding name → the bound resource (a name, or the construct). */
  readonly kvBindings?: Readonly<Record<string, string | EdgeKVNamespace>>;
  readonly bucketBindings?: Readonly<Record<string, string | ObjectBucket>>;
  readonly sqliteBindings?: Readonly<Record<string, string | SQLiteDatabase>>;
  readonly queueProducerBindings?: Readonly<Record<string, string | AtLeastOnceQueue>>;
  readonly serviceBindings?: Readonly<Record<string, string | ModuleWorker>>;
  /** Give the worker a host-assigned HTTPS endpoint (`<name>-endpoint`). */
  readonly endpoint?: boolean;
  /** A five-field UTC cron schedule; adds `<name>-cron` (the handlers must include `scheduled`). */
  readonly cron?: string;
  /**
   * Queues the worker drains: key → the queue and its batching and retry policy; adds one
   * QueueConsumer `<name>-<key>-consumer` each (the handlers must include `queue`).
   */
  readonly queueConsumers?: Readonly<Record<string, WorkerAppQueueConsumer>>;
  /**
   * Static assets the worker serves (a StaticAssetBundle attached to every version): every file
   * under `directory` (recursively, sorted by path; dotfiles left out).
   */
  readonly assets?: WorkerAppAssets;
  /**
   * SQLite migrations applied to a database the worker binds before the deployment moves: the
   * `.sql` files directly in `directory`, in name order.
   */
  readonly migrations?: WorkerAppMigrations;
  /** Go durations bounding each resource's create, update and delete. */
  readonly createTimeout?: string;
  readonly deleteTimeout?: string;
  readonly provider?: TerraformProvider;
}

/** Every file under `dir` as a posix-style relative path, sorted (the upstream module's `fileset`). */
export function listModuleFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (current: string): void => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const full = join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() || (entry.isSymbolicLink() && statSync(full).isFile())) out.push(relative(dir, full).split(sep).join("/"));
    }
  };
  walk(dir);
  return out.sort();
}

function mediaTypeOf(path: string, table: Readonly<Record<string, BundleModuleContentType>>): BundleModuleContentType {
  const dot = path.lastIndexOf(".");
  const extension = dot < 0 || dot < path.lastIndexOf("/") ? "" : path.slice(dot + 1).toLowerCase();
  return table[extension] ?? "application/octet-stream";
}

/** The longest WorkerApp name whose migration application name (`<name>-migrations-<8 hex>`) fits 63 characters. */

/** The upstream module's `name` validation; a token (e.g. a variable) is checked by the provider at plan time. */
const APP_NAME = /^[a-z][a-z0-9-]{0,62}$/;

/** A `{name → target}` map as a binding list sorted by binding name. */
function bindingList<T>(map: Readonly<Record<string, string | T>> | undefined): { name: string; targetName: string | T }[] | undefined {
  if (map === undefined) return undefined;
  return Object.keys(map)
    .sort()
    .map((name) => ({ name, targetName: map[name]! }));
}

/** A Module Worker with its bundle, version and deployment (and assets, migrations, consumers), replaced create-before-destroy: the `worker-app` module of upstream. */
export class WorkerApp extends Construct {
  readonly worker: ModuleWorker;
  readonly bundle: WorkerBundle;
  readonly version: WorkerVersion;
  readonly deployment: WorkerDeployment;
  readonly endpoint?: WorkerEndpoint;
  readonly cronTrigger?: WorkerCronTrigger;
  /** The queue consumers, by their `queueConsumers` key. */
  readonly queueConsumers: Readonly<Record<string, QueueConsumer>> = {};
  /** The static asset bundle (with `assets`). */
  readonly assetBundle?: StaticAssetBundle;
  /** The migration set and its application to the database (with `migrations`). */
  readonly migrationSet?: SQLiteMigrationSet;
  readonly migrationApplication?: SQLiteMigrationApplication;
  /** The endpoint outputs read without an endpoint, each reported once. */
  readonly #missingRead = new Set<string>();

  constructor(scope: Construct, id: string, config: WorkerAppConfig) {
    if (config === null || typeof config !== "object" || Array.isArray(config)) {
      throw new TakoformConstructError(`WorkerApp "${id}": the configuration must be an object.`);
    }
    super(scope, id);
    // Checked in the order WorkerAppConfig declares its options, so the listing reads the same way.
    const report = (message: string): void => reportProblem(this, message);
    if (!Token.isUnresolved(config.name) && (typeof config.name !== "string" || !APP_NAME.test(config.name))) {
      const given = typeof config.name === "string" ? `name ${JSON.stringify(config.name)}` : "name (the worker's name)";
      report(`${given} must be a lowercase letter followed by up to 62 lowercase letters, digits or hyphens.`);
    }
    // An unreadable contentDir is one problem; the members are built without modules.
    const contentDir = resolve(typeof config.contentDir === "string" ? config.contentDir : "");
    let files: string[] | undefined;
    const control = typeof config.contentDir === "string" ? controlCharacterProblem("contentDir", config.contentDir) : undefined;
    if (typeof config.contentDir !== "string") {
      report("contentDir must name the directory of the built worker.");
    } else if (control !== undefined) {
      // Before anything is opened: a NUL would end the path the system is handed.
      report(`${control}; name the directory of the built worker without control characters.`);
    } else {
      try {
        files = listModuleFiles(contentDir);
      } catch (error) {
        report(`contentDir ${JSON.stringify(config.contentDir)} cannot be read (${(error as Error).message}); build the worker first.`);
      }
    }
    const mainModule = config.mainModule ?? "index.js";
    const named = (files ?? [])
      .map((path) => controlCharacterProblem(`The module file ${JSON.stringify(path)} under contentDir`, path))
      .filter((p) => p !== undefined);
    for (const problem of named) report(`${problem}; no module name takes one, so rename the file.`);
    if (files !== undefined && !files.includes(mainModule)) {
      report(`mainModule "${mainModule}" is not a file under ${JSON.stringify(config.contentDir)} (found: ${files.join(", ") || "nothing"}).`);
    }
    const varsUsable = config.vars === undefined || (config.vars !== null && typeof config.vars === "object" && !Array.isArray(config.vars));
    if (!varsUsable) report("vars must be an object of plain configuration values.");
    const handlers = config.handlers ?? ["fetch"];
    const handlersKnown = !Token.isUnresolved(handlers) && Array.isArray(handlers) && !handlers.some((h) => Token.isUnresolved(h));
    if (config.cron !== undefined && handlersKnown && !handlers.includes("scheduled")) {
      report(
        `cron needs the "scheduled" handler, and handlers are ${JSON.stringify(handlers)}; add "scheduled" to handlers (the host refuses a cron trigger for a worker that does not serve it).`,
      );
    }
    const mediaTypes = { ...DEFAULT_MODULE_MEDIA_TYPES, ...config.moduleMediaTypes };
    // Paths are written relative to the project directory (where the app runs), so the synthesized
    // JSON is the same on every checkout; the engine reads them from there.
    const base = process.cwd();
    const contentFile = (path: string): string => {
      const full = join(contentDir, ...path.split("/"));
      const rel = relative(base, full);
      return rel === "" || rel.startsWith("..") || isAbsolute(rel) ? full : rel.split(sep).join("/");
    };
    const common = {
      space: config.space,
      createTimeout: config.createTimeout,
      deleteTimeout: config.deleteTimeout,
      provider: config.provider,
    };

    this.worker = new ModuleWorker(this, "worker", { ...common, name: config.name });

    this.bundle = new WorkerBundle(this, "bundle", {
      ...common,
      revisionOwner: config.name,
      mainModule,
      modules: (files ?? []).map((path) => ({ name: path, contentType: mediaTypeOf(path, mediaTypes), contentFile: contentFile(path) })),
      lifecycle: { createBeforeDestroy: true },
    });

    if (config.assets !== undefined) this.assetBundle = assetBundleOf(this, config.name, config.assets, common, report);

    const vars = varsUsable && config.vars !== undefined && Object.keys(config.vars).length > 0 ? config.vars : undefined;
    this.version = new WorkerVersion(this, "version", {
      ...common,
      revisionOwner: config.name,
      worker: this.worker,
      bundle: this.bundle,
      handlers,
      varsJson: vars as { readonly [key: string]: unknown } | undefined,
      requiredSensitiveVars: config.requiredSensitiveVars,
      kvBindings: bindingList(config.kvBindings),
      bucketBindings: bindingList(config.bucketBindings),
      sqliteBindings: bindingList(config.sqliteBindings),
      queueProducerBindings: bindingList(config.queueProducerBindings),
      serviceBindings: bindingList(config.serviceBindings),
      ...(this.assetBundle !== undefined
        ? {
            assets: {
              bundle: this.assetBundle,
              runWorkerFirst: config.assets?.runWorkerFirst === true,
              notFoundHandling: config.assets?.spa === true ? ("single_page_application" as const) : ("none" as const),
            },
          }
        : {}),
      lifecycle: { createBeforeDestroy: true },
    });

    if (config.migrations !== undefined) {
      const migrations = migrationsOf(this, config.name, config.migrations, config.sqliteBindings, common, report);
      this.migrationSet = migrations.set;
      this.migrationApplication = migrations.application;
    }

    this.deployment = new WorkerDeployment(this, "deployment", {
      ...common,
      updateTimeout: config.createTimeout,
      name: `${config.name}-deployment`,
      worker: this.worker,
      versions: [{ workerVersion: this.version, weight: 10000 }],
      // The schema is migrated before traffic moves to code that may need it.
      ...(this.migrationApplication !== undefined ? { dependsOn: [this.migrationApplication] } : {}),
    });

    // Attachments need a deployment that serves their handler; the host refuses them before it.
    if (config.endpoint) {
      this.endpoint = new WorkerEndpoint(this, "endpoint", {
        ...common,
        name: `${config.name}-endpoint`,
        worker: this.worker,
        dependsOn: [this.deployment],
      });
    }
    if (config.cron !== undefined) {
      this.cronTrigger = new WorkerCronTrigger(this, "cron", {
        ...common,
        updateTimeout: config.createTimeout,
        name: `${config.name}-cron`,
        worker: this.worker,
        cron: config.cron,
        dependsOn: [this.deployment],
      });
    }
    if (config.queueConsumers !== undefined) {
      this.queueConsumers = queueConsumersOf(
        this,
        config.name,
        config.queueConsumers,
        { known: handlersKnown, list: handlersKnown ? handlers : [] },
        { worker: this.worker, deployment: this.deployment, common: { ...common, updateTimeout: config.createTimeout } },
        report,
      );
    }
  }

  // The upstream module's outputs, one getter each (tokens resolved at apply).

  get workerName(): string {
    return this.worker.name;
  }
  /** Whether the worker reports Ready (upstream output `worker_ready`). */
  get workerReady(): IResolvable {
    return this.worker.ready;
  }
  get bundleName(): string {
    return this.bundle.name;
  }
  /** `sha256:` digest of the committed artifact manifest of the current bundle (upstream output `manifest_digest`). */
  get manifestDigest(): string {
    return this.bundle.getStringAttribute("manifest_digest");
  }
  get versionName(): string {
    return this.version.name;
  }
  get deploymentName(): string {
    return this.deployment.name;
  }
  // Deliberate: upstream's hostname and url outputs are null without an endpoint; here reading
  // them without `endpoint: true` is a problem of the WorkerApp, so a missing endpoint cannot
  // silently synthesize an output that is always null. The getter still returns a string (a token
  // that refuses the final synthesis), so the synth goes on to list every other problem too.

  /** The endpoint's HTTPS URL (requires `endpoint: true`). */
  get url(): string {
    return this.endpoint?.url ?? this.#missingEndpoint("url");
  }
  get hostname(): string {
    return this.endpoint?.hostname ?? this.#missingEndpoint("hostname");
  }

  #missingEndpoint(output: string): string {
    const message = `${output} was read, but the WorkerApp has no endpoint; set endpoint: true to get a ${output}.`;
    if (!this.#missingRead.has(output)) {
      this.#missingRead.add(output);
      reportProblem(this, message);
    }
    return Token.asString(refusal(this));
  }
}
