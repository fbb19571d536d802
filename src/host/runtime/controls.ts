// Runtime controls on the host's port, under /_takoform/runtime/. Each needs the same bearer
// credential as the Host API and acts only within the caller's tenant.
//
//   POST cron-triggers/{space}/{name}/fire
//        Fires one WorkerCronTrigger now, exactly as the schedule would (its expression, the
//        current UTC minute as scheduledTime), and answers when the handler finished:
//        200 {"cron", "scheduledTime", "outcome": "returned"|"uncaught", "message"?}.
//   POST load-module                     (only with the conformance flag; never otherwise)
//        takoform.runtime-abi-loader@v1: a disposable adapter over the runtime's own module
//        loader. Body {mainModule, declaredHandlers, modules: [{name, mediaType, content}]}
//        (content base64); answer {"exportedHandlers": [...]} or {"error": {"code": ...}}.
//        Each request loads the bundle in a fresh isolate that is stopped afterwards.
//
// Failures answer the Host API's error envelope (401 unauthenticated, 404 resource_not_found,
// 400 invalid_argument), so a client reads them the way it reads every other refusal.

import { RUNTIME_HANDLERS } from "../../core/index.ts";
import type { Caller } from "../auth.ts";
import { errorEnvelope, HostError } from "../errors.ts";
import { newRequestId } from "../ids.ts";
import { Isolate, LoadError } from "./isolate.ts";
import { RuntimeFailure, type RuntimeLimits } from "./limits.ts";
import type { CronNode } from "./topology.ts";
import type { ModuleSource } from "./wire.ts";

export interface ControlAnswer {
  status: number;
  body: unknown;
}

export interface ControlHost {
  authenticate(header: string | undefined): Caller;
  crons(): readonly CronNode[];
  fireCron(node: CronNode, scheduledTime: number): Promise<{ outcome: "returned" | "uncaught"; message?: string }>;
  now(): number;
  conformance: boolean;
  limits: RuntimeLimits;
  services: ConstructorParameters<typeof Isolate>[4];
}

function refusal(error: HostError): ControlAnswer {
  return { status: error.status, body: errorEnvelope(error, newRequestId()) };
}

export async function answerControl(
  host: ControlHost,
  method: string,
  path: string,
  authorization: string | undefined,
  body: () => Promise<Uint8Array>,
): Promise<ControlAnswer> {
  let caller: Caller;
  try {
    caller = host.authenticate(authorization);
  } catch (error) {
    if (error instanceof HostError) return refusal(error);
    throw error;
  }
  const segments = path.split("/").map((s) => decodeURIComponent(s));
  if (segments.length === 4 && segments[0] === "cron-triggers" && segments[3] === "fire") {
    if (method !== "POST") return refusal(new HostError("invalid_argument", "fire a cron trigger with POST", { hostCode: "method_not_allowed" }));
    const [, space, name] = segments as [string, string, string, string];
    const matches = host.crons().filter((c) => c.tenant === caller.tenant && c.space === space && c.name === name);
    if (matches.length === 0) return refusal(new HostError("resource_not_found", `no WorkerCronTrigger "${name}" in space "${space}"`));
    const node = matches[0]!;
    const scheduledTime = Math.floor(host.now() / 60_000) * 60_000;
    const result = await host.fireCron(node, scheduledTime);
    return { status: 200, body: { cron: node.cron, scheduledTime, ...result } };
  }
  if (segments.length === 1 && segments[0] === "load-module" && host.conformance) {
    if (method !== "POST") return refusal(new HostError("invalid_argument", "load a module with POST", { hostCode: "method_not_allowed" }));
    let input: { mainModule?: unknown; declaredHandlers?: unknown; modules?: unknown };
    try {
      input = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(await body())) as typeof input;
    } catch {
      return refusal(new HostError("invalid_argument", "the body must be a JSON object"));
    }
    const modules = Array.isArray(input.modules) ? input.modules : null;
    const declared = Array.isArray(input.declaredHandlers) ? input.declaredHandlers : null;
    if (
      typeof input.mainModule !== "string" ||
      modules === null ||
      declared === null ||
      !declared.every((h) => (RUNTIME_HANDLERS as readonly unknown[]).includes(h))
    ) {
      return refusal(new HostError("invalid_argument", "the body needs mainModule, declaredHandlers (from the handler vocabulary) and modules"));
    }
    const sources: ModuleSource[] = [];
    for (const m of modules as { name?: unknown; mediaType?: unknown; content?: unknown }[]) {
      if (typeof m?.name !== "string" || typeof m.mediaType !== "string" || typeof m.content !== "string") {
        return refusal(new HostError("invalid_argument", "each module needs name, mediaType and content (base64)"));
      }
      sources.push({ name: m.name, mediaType: m.mediaType, bytes: new Uint8Array(Buffer.from(m.content, "base64")) });
    }
    const isolate = new Isolate(
      "load-module",
      "load-module",
      {
        label: "load-module",
        mainModule: input.mainModule,
        modules: sources,
        declaredHandlers: declared as string[],
        env: null,
        evaluateTimeoutMs: host.limits.cpuMs,
        maxWaitUntilTasks: 0,
      },
      host.limits,
      host.services,
    );
    // Not in the pool, so no CPU watchdog: loading is bounded by the wall-time limit instead.
    const bound = setTimeout(
      () => isolate.stop(new RuntimeFailure("backend_unavailable", `loading took longer than ${host.limits.wallMs} ms`)),
      host.limits.wallMs,
    );
    try {
      return { status: 200, body: { exportedHandlers: await isolate.ready } };
    } catch (error) {
      if (error instanceof LoadError && error.code !== "startup") return { status: 200, body: { error: { code: error.code } } };
      throw error;
    } finally {
      clearTimeout(bound);
      isolate.stop(new RuntimeFailure("backend_unavailable", "the loader adapter is done"));
    }
  }
  return refusal(new HostError("invalid_argument", `unknown runtime control ${path}`, { hostCode: "unknown_route" }));
}
