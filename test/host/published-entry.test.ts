// `takoform-cdk/host`, imported by the package's name as a user's program imports it (docs/host.md,
// "From a program"): open the embedded host on a data directory, serve it on a loopback address,
// and tell apart the errors a caller reacts to — the data directory held, the address taken.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DataDirLockedError, DEV_TOKEN, isLaneName, isSpaceId, LANES, LocalHost } from "takoform-cdk/host";

const dir = mkdtempSync(join(tmpdir(), "takoform-host-entry-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("takoform-cdk/host", () => {
  it("opens a data directory, serves discovery on a free loopback port, and refuses a second open of the directory", async () => {
    const data = join(dir, "host");
    const host = await LocalHost.open({ data, lanes: LANES.map((l) => l.name), log: () => {} });
    try {
      const { url, port } = await host.listen("127.0.0.1", 0);
      expect(port).toBeGreaterThan(0);
      for (const lane of LANES) {
        const reply = await fetch(`${url}${lane.discoveryPath}`, { headers: { authorization: `Bearer ${DEV_TOKEN.token}` } });
        expect(reply.status, lane.name).toBe(200);
        expect(((await reply.json()) as { api_versions: string[] }).api_versions, lane.name).toEqual([lane.hostApiVersion]);
      }
      await expect(LocalHost.open({ data, log: () => {} })).rejects.toBeInstanceOf(DataDirLockedError);

      // The address is taken: listen rejects with Node's system error, which the caller tells by its code.
      const other = await LocalHost.open({ log: () => {} });
      try {
        await expect(other.listen("127.0.0.1", port)).rejects.toMatchObject({ code: "EADDRINUSE" });
      } finally {
        await other.close();
      }
    } finally {
      await host.close();
    }
    // Closed, the directory opens again.
    const again = await LocalHost.open({ data, log: () => {} });
    expect(again.lanes).toContain(LANES[0]!.name);
    await again.close();
  });

  it("names the lanes it speaks, the preferred first", () => {
    expect(LANES.length).toBeGreaterThan(1);
    for (const lane of LANES) expect(isLaneName(lane.name)).toBe(true);
    expect(isLaneName("v9")).toBe(false);
    expect(isSpaceId("default")).toBe(true);
    for (const space of ["", "a/b", " lead", "tab\t"]) expect(isSpaceId(space), JSON.stringify(space)).toBe(false);
  });

  it("moves a space to a lane through the process serving its data directory, else opened in place, refusals as values", async () => {
    const data = join(dir, "upgrade");
    const lane = LANES[0]!.name;
    const host = await LocalHost.open({ data, lanes: LANES.map((l) => l.name), log: () => {} });
    try {
      const { url } = await host.listen("127.0.0.1", 0);
      // Served here: the move goes over its route (the development token), while it keeps serving.
      expect(await LocalHost.upgradeSpaceLane({ data, space: "default", lane })).toEqual({
        ok: true,
        lane: LANES[0]!.hostApiVersion,
        space: "default",
        moved: [],
        served: url,
      });
      const refused = await LocalHost.upgradeSpaceLane({ data, space: "a/b", lane });
      expect(refused).toMatchObject({ ok: false, code: "invalid_argument", served: url });
      expect(await LocalHost.upgradeSpaceLane({ endpoint: url, token: "not-a-token", space: "default", lane })).toMatchObject({
        ok: false,
        code: "unauthenticated",
      });
    } finally {
      await host.close();
    }
    // Nothing serves it now: opened here, moved and closed (so it opens again).
    expect(await LocalHost.upgradeSpaceLane({ data, space: "default", lane })).toEqual({
      ok: true,
      lane: LANES[0]!.hostApiVersion,
      space: "default",
      moved: [],
    });
    await (await LocalHost.open({ data, log: () => {} })).close();
  });
});
