// A valid stack for the generator to break: KV namespaces, a queue whose retention comes from a
// variable, and a worker the way WorkerApp writes one (bundle from a local file, version with a
// KV binding and vars, deployment, endpoint). The seed varies its size and names. The base is
// applied first, so every malformed variant is planned over existing state: a defect the engine
// let through would show up as a write (a destroy, an update), not just a missing refusal.

import type { JsonObject } from "./document.ts";
import type { Rng } from "./random.ts";

export const KV = "takoform_edge_kv_namespace";
export const QUEUE = "takoform_at_least_once_queue";
export const WORKER = "takoform_module_worker";
export const BUNDLE = "takoform_worker_bundle";
export const VERSION = "takoform_worker_version";
export const DEPLOYMENT = "takoform_worker_deployment";
export const ENDPOINT = "takoform_worker_endpoint";

/** `prefix` keeps the names of several bases on one host apart; `contentFile` must exist. */
export function baseStack(rng: Rng, prefix: string, contentFile: string): JsonObject {
  const kvs: JsonObject = {};
  const kvCount = rng.int(1, 3);
  for (let i = 0; i < kvCount; i++) kvs[`kv${i}`] = { name: `${prefix}-kv${i}` };
  const owner = `${prefix}-w`;
  const resource: JsonObject = {
    [KV]: kvs,
    [QUEUE]: { q: { name: `${prefix}-q`, message_retention_seconds: "${var.retention}" } },
    [WORKER]: { w: { name: owner } },
    [BUNDLE]: {
      b: {
        revision_owner: owner,
        main_module: "index.js",
        modules: [{ name: "index.js", content_type: "application/javascript+module", content_file: contentFile }],
        lifecycle: { create_before_destroy: true },
      },
    },
    [VERSION]: {
      v: {
        revision_owner: owner,
        worker: `\${${WORKER}.w.name}`,
        bundle: `\${${BUNDLE}.b.name}`,
        handlers: ["fetch"],
        kv_bindings: [{ name: "KV0", target_name: `\${${KV}.kv0.name}` }],
        vars_json: JSON.stringify({ MODE: rng.pick(["a", "b", "c"]) }),
        lifecycle: { create_before_destroy: true },
      },
    },
    [DEPLOYMENT]: { d: { name: `${prefix}-d`, worker: `\${${WORKER}.w.name}`, versions: [{ worker_version: `\${${VERSION}.v.name}`, weight: 10000 }] } },
  };
  if (rng.chance(0.5)) {
    resource[ENDPOINT] = { e: { name: `${prefix}-e`, worker: `\${${WORKER}.w.name}`, depends_on: [`${DEPLOYMENT}.d`] } };
  }
  return {
    variable: { retention: { type: "number", default: 3600 + 60 * rng.int(0, 10) } },
    resource,
    output: { kv0_uid: { value: `\${${KV}.kv0.uid}` } },
  };
}
