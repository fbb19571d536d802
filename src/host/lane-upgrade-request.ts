// The lane upgrade of one space asked of a served takoform-cdk host, through its own route
// (handlers/lane-upgrade.ts): what `LocalHost.upgradeSpaceLane` does for a host at an endpoint or
// for the process serving a data directory. Its answer is a value: what moved, or the host's
// refusal as the error envelope carried it.

import type { FormRef, LaneName } from "../core/index.ts";
import { LANE_UPGRADE_PATH } from "./handlers/lane-upgrade.ts";

/** What a lane upgrade of one space came to: every object moved, or the refusal (nothing moved). */
export type SpaceLaneUpgrade =
  | { ok: true; lane: string; space: string; moved: { kind: string; name: string; uid: string; from: FormRef; to: FormRef }[] }
  | { ok: false; code: string; hostCode?: string; message: string };

/** POSTs the move to the host at `url` (its origin) with `token` as the bearer credential. */
export async function requestLaneUpgrade(url: string, token: string | undefined, space: string, lane: LaneName): Promise<SpaceLaneUpgrade> {
  const response = await fetch(new URL(LANE_UPGRADE_PATH, url), {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(token !== undefined ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ space, lane }),
  });
  const body = (await response.json().catch(() => undefined)) as
    | { lane?: string; space?: string; moved?: Extract<SpaceLaneUpgrade, { ok: true }>["moved"]; error?: { code: string; hostCode?: string; message: string } }
    | undefined;
  if (response.status === 200 && body?.moved !== undefined) return { ok: true, lane: body.lane!, space: body.space!, moved: body.moved };
  if (body?.error !== undefined)
    return { ok: false, code: body.error.code, ...(body.error.hostCode !== undefined ? { hostCode: body.error.hostCode } : {}), message: body.error.message };
  return { ok: false, code: `HTTP ${response.status}`, message: `${url} answered ${response.status} without the error envelope; is it a takoform-cdk host?` };
}
