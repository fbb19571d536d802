// WorkerVersion: a frozen, runnable snapshot of one worker.
//
//   validateSpec   declared handlers within the runtime contract's vocabulary; the runtime
//                  contract itself resolves (fail closed)                   invalid_argument
//   validateWrite  one environment namespace (apply and import only; a prepare accepts
//                  it, reference §2.7 step 6)                               invalid_argument
//   checkMutation  every declared handler is exported by the bundle's main module
//                                                                           invalid_argument
//                  every service binding targets a worker that serves fetch  unsupported_capability
//                  assets: the bundle's manifest resolves; SPA needs index.html (assets.ts)
//                                                        artifact_missing / artifact_invalid / invalid_argument
//   renderDependents  the workers of the deployments weighting it
//   supportProfile    handlers = the contract's vocabulary; limits.maximumBundleBytes

import { HostError, invalidArgument } from "../../errors.ts";
import { type JsonObject } from "../../../forms/index.ts";
import { formatContractRef, type WireSupportProfile } from "../../../core/index.ts";
import type { CatalogForm } from "../../catalog.ts";
import type { FormRules, MutationContext, RenderContext, RuleHost, RuleView, SpecProblem } from "../types.ts";
import type { StoredResource } from "../../store/index.ts";
import { activeDeployment, unserved, weightedVersions, workersWeighting } from "./aggregate.ts";
import { RELATION, SERVICE_HANDLER, describe } from "./family.ts";
import { environmentProblems } from "./environment.ts";
import { moduleExports, type ModuleExports } from "./module-exports.ts";
import { runtimeContract } from "./runtime-contract.ts";
import { withLimit } from "./bundle.ts";
import { checkAssets } from "./assets.ts";

const JS_MODULE = "application/javascript+module";

function handlerProblems(host: RuleHost, spec: JsonObject): SpecProblem[] {
  const contract = runtimeContract(host);
  if (!contract.ok) return [{ pointer: "/handlers", message: `${contract.reason}; every WorkerVersion is refused until exactly one is installed` }];
  const handlers = spec.handlers;
  if (!Array.isArray(handlers)) return [];
  const known = new Set(contract.handlers);
  const problems: SpecProblem[] = [];
  handlers.forEach((h, i) => {
    if (typeof h === "string" && !known.has(h)) {
      problems.push({
        pointer: `/handlers/${i}`,
        message: `handler "${h}" is not in the runtime contract ${formatContractRef(contract.ref)}, whose handler vocabulary is exactly ${contract.handlers.join(", ")}`,
      });
    }
  });
  return problems;
}

interface MainModule {
  bundle: StoredResource;
  name: string;
  exports: ModuleExports;
}

/** What the main module of the version's bundle exports; the store is read, never trusted to hold more. */
function mainModuleExports(view: RuleView, bundle: StoredResource): MainModule {
  const digest = view.specOf(bundle).manifestDigest;
  const nothing = (name: string, reason: string): MainModule => ({ bundle, name, exports: { resolved: false, reason, handlers: new Set() } });
  if (typeof digest !== "string") return nothing("?", "the bundle names no manifest");
  const text = view.manifest(digest);
  if (text === undefined) return nothing("?", `its manifest ${digest} is not held by this tenant`);
  let manifest: JsonObject;
  try {
    manifest = JSON.parse(text) as JsonObject;
  } catch {
    return nothing("?", `its manifest ${digest} does not decode`);
  }
  const name = typeof manifest.mainModule === "string" ? manifest.mainModule : "?";
  const modules = Array.isArray(manifest.modules) ? manifest.modules : [];
  const entry = modules.find((m): m is JsonObject => m !== null && typeof m === "object" && !Array.isArray(m) && m.name === name);
  if (entry === undefined || typeof entry.digest !== "string") return nothing(name, "the manifest declares no such module");
  if (entry.mediaType !== JS_MODULE) return nothing(name, `it is a ${String(entry.mediaType)} module, which has no default-exported handlers`);
  const bytes = view.blob(entry.digest);
  if (bytes === undefined) return nothing(name, `its bytes (${entry.digest}) are not held by this tenant`);
  return { bundle, name, exports: moduleExports(bytes, entry.digest) };
}

function checkExports(ctx: MutationContext): void {
  const bundleTarget = ctx.targets.find((t) => t.instance.relation.pointer === RELATION.bundle);
  const declared = Array.isArray(ctx.spec.handlers) ? ctx.spec.handlers.filter((h): h is string => typeof h === "string") : [];
  if (bundleTarget === undefined || declared.length === 0) return;
  const main = mainModuleExports(ctx.view, bundleTarget.resource);
  const missing = declared.filter((h) => !main.exports.handlers.has(h));
  if (missing.length === 0) return;
  const exposed = main.exports.handlers.size === 0 ? "no handler" : [...main.exports.handlers].sort().join(", ");
  const why = main.exports.resolved ? `its default export exposes ${exposed}` : `the host reads no handlers from it: ${main.exports.reason}`;
  throw invalidArgument(
    `WorkerVersion "${ctx.name}" declares handler${missing.length > 1 ? "s" : ""} ${missing.map((h) => `"${h}"`).join(", ")}, which the main module ` +
      `"${main.name}" of ${describe(main.bundle)} does not export (${why}); the runtime refuses to load a version whose declared handler is missing`,
    { hostCode: "handler_not_exported" },
  );
}

function checkServiceBindings(ctx: MutationContext): void {
  for (const t of ctx.targets) {
    if (t.instance.relation.pointer !== RELATION.serviceBindings) continue;
    const worker = t.resource;
    const deployment = activeDeployment(ctx.view, worker.uid);
    const gap =
      deployment === undefined ? "it has no active WorkerDeployment" : unserved(ctx.view, weightedVersions(ctx.view, deployment.uid), SERVICE_HANDLER);
    if (gap === undefined) continue;
    throw new HostError(
      "unsupported_capability",
      `the module-worker.service binding at ${t.instance.pointer} targets ${describe(worker)} (uid ${worker.uid}), which does not serve ${SERVICE_HANDLER}: ${gap}`,
      { hostCode: "service_target_unserved" },
    );
  }
}

function versionProfile(host: RuleHost, profile: WireSupportProfile): WireSupportProfile {
  const contract = runtimeContract(host);
  const enums = { ...(profile.supportedEnums ?? {}) };
  // Fail closed: with no single runtime contract the host accepts no handler at all.
  if (contract.ok) enums.handlers = [...contract.handlers];
  else delete enums.handlers;
  const out: WireSupportProfile = { ...profile };
  if (Object.keys(enums).length > 0) out.supportedEnums = enums;
  else delete out.supportedEnums;
  return withLimit(host, out);
}

export function workerVersionRules(host: RuleHost): FormRules {
  return {
    validateSpec: (spec: JsonObject) => handlerProblems(host, spec),
    validateWrite: (spec: JsonObject, form: CatalogForm) => environmentProblems(spec, form),
    checkMutation: (ctx) => {
      checkExports(ctx);
      checkServiceBindings(ctx);
      checkAssets(host, ctx);
    },
    renderDependents: ({ view, resource }: RenderContext) => workersWeighting(view, resource.uid),
    supportProfile: (profile) => versionProfile(host, profile),
  };
}
