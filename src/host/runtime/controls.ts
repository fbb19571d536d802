// Runtime controls on the host's port, under /_takoform/runtime/. Each needs the same bearer
// credential as the Host API and acts only within the caller's tenant.
//
//   POST cron-triggers/{space}/{name}/fire
//        Fires one WorkerCronTrigger now, exactly as the schedule would (its expression, the
//        current UTC minute as scheduledTime), and answers when the handler finished:
//        200 {"cron", "scheduledTime", "outcome": "returned"|"uncaught", "message"?}.
//   POST load-module                     (only with the conformance flag; never otherwise)
//        takoform.runtime-abi-loader@v1: a disposable adapter over the runtime's own module
//        loader, exactly as upstream's runtime-abi-v1 runner calls it (load-module.ts).
//
// Failures answer the Host API's error envelope (401 unauthenticated, 404 resource_not_found,
// 400 invalid_argument), so a client reads them the way it reads every other refusal.

import type { Caller } from "../auth.ts";
import { errorEnvelope, HostError } from "../errors.ts";
import { newRequestId } from "../ids.ts";
import type { Isolate } from "./isolate.ts";
import type { RuntimeLimits } from "./limits.ts";
import { answerLoadModule } from "./load-module.ts";
import type { CronNode } from "./topology.ts";

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
    return answerLoadModule(host, await body());
  }
  return refusal(new HostError("invalid_argument", `unknown runtime control ${path}`, { hostCode: "unknown_route" }));
}
