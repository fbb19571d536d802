// `POST /_takoform/host/lane-upgrade` — this host's own route (not the Host API, which has no
// such operation) for the lane upgrade of one space (lane-move.ts; docs/host.md, "Lane upgrade"),
// so a served host can be upgraded while it keeps serving: `takoform host upgrade-lane` goes
// through it when another process holds the data directory.
//
//   request  {"space": "<SpaceID>", "lane": "<lane name>"}         (Authorization: Bearer …)
//   200      {"lane": "<Host API group version>", "space": …, "moved": [{kind, name, uid, from, to}]}
//
// The caller's credential decides the tenant, as on every route; only that tenant's space moves.
// Refusals are the closed error envelope.

import { HEADER, isLaneName, isSpaceId, laneNamesText } from "../../core/index.ts";
import type { Authenticator } from "../auth.ts";
import type { HostContext } from "../context.ts";
import { decodeJsonBody, expectClosed, expectObject } from "../envelope.ts";
import { errorEnvelope, invalidArgument, refusalFor } from "../errors.ts";
import { HeaderBag, jsonResponse, type HostRequest, type HostResponse } from "../http.ts";
import { newRequestId } from "../ids.ts";
import { moveSpaceToLane } from "../lane-move.ts";

export const LANE_UPGRADE_PATH = "/_takoform/host/lane-upgrade";

export function isLaneUpgradeTarget(target: string): boolean {
  return target === LANE_UPGRADE_PATH || target.startsWith(`${LANE_UPGRADE_PATH}?`);
}

export interface LaneUpgradeEnv {
  lanes: ReadonlyMap<string, HostContext>;
  auth: Authenticator;
  reportInternal(error: unknown, requestId: string): void;
}

export function handleLaneUpgrade(env: LaneUpgradeEnv, request: HostRequest): HostResponse {
  const requestId = newRequestId();
  try {
    const caller = env.auth.authenticate(new HeaderBag(request.headers).get(HEADER.authorization));
    if (request.method.toUpperCase() !== "POST") throw invalidArgument(`${LANE_UPGRADE_PATH} takes POST`, { hostCode: "method_not_allowed" });
    if (request.url !== LANE_UPGRADE_PATH) throw invalidArgument(`${LANE_UPGRADE_PATH} takes no query`);
    const body = expectObject(decodeJsonBody(request.body), "");
    expectClosed(body, "", ["space", "lane"], ["space", "lane"]);
    const { space, lane } = body;
    if (!isSpaceId(space)) throw invalidArgument("/space must be a SpaceID");
    if (!isLaneName(lane)) throw invalidArgument(`/lane must name a Host API lane this host speaks (${laneNamesText()})`);
    const result = moveSpaceToLane(env.lanes, { tenant: caller.tenant, space, lane });
    return jsonResponse(200, { lane: result.lane.hostApiVersion, space: result.space, moved: result.moved }, { "X-Request-Id": requestId });
  } catch (error) {
    const refusal = refusalFor(error, requestId, env.reportInternal.bind(env));
    return jsonResponse(refusal.status, errorEnvelope(refusal, requestId), { "X-Request-Id": requestId });
  }
}
