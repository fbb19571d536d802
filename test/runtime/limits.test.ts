// Isolation and limits: a runaway worker gets a host-generated error and the host stays up.
// The limits are set small here (CPU 400 ms and wall time 6 s; heap 48 MiB) so each case ends
// quickly; every one is followed by a request that proves the same worker answers again from a
// fresh isolate and the Host API still answers. The memory cases allocate in large steps (big
// arrays, one array grown by push): those abort the whole process when the isolate is a worker
// thread, which is why an isolate is a process of its own.

import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { PREFERRED_LANE } from "../../src/core/lanes.ts";
import { WorkerApp } from "../../src/index.ts";
import { DEV_TOKEN } from "../../src/host/index.ts";
import { endpointUrl, Project, useRuntimeHost } from "./harness.ts";

const RUNAWAY = `export default {
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/spin") { while (true) {} }
    if (path === "/spin-later") { await new Promise((r) => setTimeout(r, 10)); for (;;) {} }
    if (path === "/hog") { const keep = []; for (;;) keep.push(new Array(4e6).fill(keep.length)); }
    if (path === "/grow") { const one = []; for (let i = 0; ; i++) one.push(i, i, i, i, i, i, i, i); }
    if (path === "/hang") { await new Promise(() => {}); }
    if (path === "/pause") { await new Promise((r) => setTimeout(r, 1500)); return new Response("paused"); }
    return new Response("alive");
  },
};`;

/** This process's isolate children (Linux: read from /proc), as the host forked them. */
function isolatePids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === process.pid && readFileSync(`/proc/${entry}/cmdline`, "latin1").includes("isolate")) pids.push(Number(entry));
    } catch {
      // gone while we looked
    }
  }
  return pids;
}

for (const [label, limits, cases] of [
  [
    "CPU",
    // Wall time well above CPU: on a loaded machine a spinning isolate gets a fraction of a core,
    // and the CPU limit (charged CPU, not wall time) must be what stops it.
    { cpuMs: 400, wallMs: 6000 },
    [
      ["spin", "exceeded its CPU limit of 400 ms; the isolate was stopped"],
      ["spin-later", "exceeded its CPU limit of 400 ms; the isolate was stopped"],
    ],
  ],
  [
    "memory",
    // A generous CPU limit, so the heap bound is what stops these.
    { cpuMs: 20_000, wallMs: 30_000, memoryMb: 48 },
    [
      // Both would abort a whole process if isolates were worker threads (nodejs/node#47224).
      ["hog", "exceeded its memory limit of 48 MiB; the isolate was stopped"],
      ["grow", "exceeded its memory limit of 48 MiB; the isolate was stopped"],
    ],
  ],
] as const) {
  describe(`limits (${label}): a runaway worker is stopped, the host stays up`, () => {
    const ctx = useRuntimeHost({ limits });
    const project = new Project();
    let url = "";
    afterAll(() => project.close());

    const hostApiAnswers = async (): Promise<void> => {
      const discovery = await fetch(`${ctx.rt.url}${PREFERRED_LANE.discoveryPath}`, { headers: { authorization: `Bearer ${DEV_TOKEN.token}` } });
      expect(discovery.status).toBe(200);
    };

    it("deploys the runaway worker", async () => {
      const dist = project.modules("dist", { "index.js": RUNAWAY });
      await project.deploy(ctx.rt, (stack) => void new WorkerApp(stack, "w", { name: "runaway", contentDir: dist, endpoint: true }));
      url = endpointUrl(ctx.rt, "runaway");
      expect(await (await fetch(url)).text()).toBe("alive");
    }, 60_000);

    for (const [path, why] of cases) {
      it(`/${path}: a host-generated 503, then the worker answers again`, async () => {
        const answer = await fetch(`${url}${path}`);
        expect(answer.status).toBe(503);
        expect(answer.headers.get("takoform-runtime-error")).toBe("backend_unavailable");
        expect(await answer.text()).toMatch(
          new RegExp(`^takoform runtime: worker default/runaway \\(version-[0-9a-f-]+\\) ${why.replace(/[()]/g, "\\$&")}\\n$`),
        );
        await hostApiAnswers();
        expect(await (await fetch(url)).text()).toBe("alive");
      }, 60_000);
    }

    if (label === "CPU" && process.platform === "linux") {
      // A loaded machine leaves an isolate waiting for a core, its heartbeats late; a stopped
      // process is that wait drawn out. It is charged the CPU it used, not the time it waited.
      it("/pause: an isolate held off the CPU (SIGSTOP) three times the limit is charged nothing for it, and answers", async () => {
        const answer = fetch(`${url}pause`);
        await sleep(200);
        const pids = isolatePids();
        expect(pids.length).toBeGreaterThan(0);
        for (const pid of pids) process.kill(pid, "SIGSTOP");
        await sleep(1200);
        for (const pid of pids) process.kill(pid, "SIGCONT");
        const paused = await answer;
        expect(await paused.text()).toBe("paused");
        expect(paused.status).toBe(200);
      }, 60_000);
    }

    if (label === "CPU") {
      it("/hang: a handler that never answers gets a host-generated 503 after the wall-time limit", async () => {
        const answer = await fetch(`${url}hang`);
        expect(answer.status).toBe(503);
        expect(await answer.text()).toMatch(/did not answer within 6000 ms\n$/);
        expect(await (await fetch(url)).text()).toBe("alive");
      }, 60_000);
    }
  });
}
