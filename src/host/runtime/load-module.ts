// The loader adapter of conformance mode: takoform.runtime-abi-loader@v1, the body upstream's
// runtime-abi-v1 runner posts (its `loadRequestFor`, a Go struct in this field order) and the
// answers it decodes:
//
//   POST {"protocol": "takoform.runtime-abi-loader@v1", "mainModule": "index.js",
//         "declaredHandlers": ["fetch"],
//         "modules": [{"name": "index.js", "mediaType": "application/javascript+module", "contentBase64": "…"}]}
//   → 200 {"protocol": "takoform.runtime-abi-loader@v1", "exportedHandlers": ["fetch", "scheduled", "queue"]}
//   → 422 {"protocol": "takoform.runtime-abi-loader@v1", "error": {"code": "module_syntax_error", "message": "…"}}
//
// The bundle is loaded by the runtime's own loader in a fresh isolate, stopped afterwards, so the
// answer is what the real loader makes of the bytes. A body that is not such a request at all (not
// JSON, another protocol, a member of the wrong type) is not a bundle and gets the Host API's
// 400 invalid_argument envelope; members the protocol does not name are ignored, as Go's decoder
// ignores them. `declaredHandlers: null` is an empty list (what Go sends for a nil slice).

import { PADDED_BASE64, RUNTIME_ABI_LOADER_PROTOCOL, type RuntimeHandler, type RuntimeLoadError } from "../../core/index.ts";
import { errorEnvelope, HostError } from "../errors.ts";
import { newRequestId } from "../ids.ts";
import { Isolate, LoadError } from "./isolate.ts";
import { RuntimeFailure, type RuntimeLimits } from "./limits.ts";
import type { ModuleSource } from "./wire.ts";

export interface LoaderHost {
  limits: RuntimeLimits;
  services: ConstructorParameters<typeof Isolate>[4];
}

export interface LoaderAnswer {
  status: number;
  body: unknown;
}

interface LoadRequest {
  mainModule: string;
  declaredHandlers: string[];
  modules: ModuleSource[];
}

/** A load failure decided before the loader runs (content that is not base64). */
class EarlyLoadFailure {
  constructor(
    readonly code: RuntimeLoadError,
    readonly message: string,
  ) {}
}

const loaded = (handlers: readonly RuntimeHandler[]): LoaderAnswer => ({
  status: 200,
  body: { protocol: RUNTIME_ABI_LOADER_PROTOCOL, exportedHandlers: [...handlers] },
});

const refused = (code: RuntimeLoadError, message: string): LoaderAnswer => ({
  status: 422,
  body: { protocol: RUNTIME_ABI_LOADER_PROTOCOL, error: { code, message } },
});

const invalid = (message: string): LoaderAnswer => {
  const error = new HostError("invalid_argument", `${RUNTIME_ABI_LOADER_PROTOCOL}: ${message}`);
  return { status: error.status, body: errorEnvelope(error, newRequestId()) };
};

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The request, a load failure its bytes already decide, or why it is no request of this protocol. */
function parseLoadRequest(body: Uint8Array): LoadRequest | EarlyLoadFailure | string {
  let input: unknown;
  try {
    input = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch {
    return "the body must be a JSON object";
  }
  if (!isObject(input)) return "the body must be a JSON object";
  if (input["protocol"] !== RUNTIME_ABI_LOADER_PROTOCOL) return `protocol must be "${RUNTIME_ABI_LOADER_PROTOCOL}"`;
  const { mainModule, modules } = input;
  const declared = input["declaredHandlers"] ?? [];
  if (typeof mainModule !== "string") return "mainModule must be a string";
  if (!Array.isArray(declared) || !declared.every((h) => typeof h === "string")) return "declaredHandlers must be a list of strings";
  if (!Array.isArray(modules)) return "modules must be a list";
  const sources: ModuleSource[] = [];
  for (const [i, m] of modules.entries()) {
    if (!isObject(m) || typeof m["name"] !== "string" || typeof m["mediaType"] !== "string" || typeof m["contentBase64"] !== "string") {
      return `modules[${i}] needs name, mediaType and contentBase64 (strings)`;
    }
    const content = m["contentBase64"];
    if (!PADDED_BASE64.test(content)) return new EarlyLoadFailure("module_syntax_error", `module ${m["name"]} content is not padded base64 (RFC 4648 §4)`);
    sources.push({ name: m["name"], mediaType: m["mediaType"], bytes: new Uint8Array(Buffer.from(content, "base64")) });
  }
  return { mainModule, declaredHandlers: declared as string[], modules: sources };
}

/** Answers one load request: the bundle is loaded in a fresh isolate that is stopped afterwards. */
export async function answerLoadModule(host: LoaderHost, body: Uint8Array): Promise<LoaderAnswer> {
  const request = parseLoadRequest(body);
  if (typeof request === "string") return invalid(request);
  if (request instanceof EarlyLoadFailure) return refused(request.code, request.message);
  const isolate = new Isolate(
    "load-module",
    "load-module",
    { label: "load-module", ...request, env: null, evaluateTimeoutMs: host.limits.cpuMs, maxWaitUntilTasks: 0 },
    host.limits,
    host.services,
  );
  // Not in the pool, so no CPU watchdog: loading is bounded by the wall-time limit instead.
  const bound = setTimeout(
    () => isolate.stop(new RuntimeFailure("backend_unavailable", `loading took longer than ${host.limits.wallMs} ms`)),
    host.limits.wallMs,
  );
  try {
    return loaded(await isolate.ready);
  } catch (error) {
    if (error instanceof LoadError && error.code !== "startup") return refused(error.code, error.message);
    throw error;
  } finally {
    clearTimeout(bound);
    isolate.stop(new RuntimeFailure("backend_unavailable", "the loader adapter is done"));
  }
}
