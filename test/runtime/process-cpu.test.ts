// The kernel's count of a child's CPU, which the watchdog charges a silent isolate: a spinning
// process is charged what it burns, a stopped one (as a process waiting for a core is) nothing
// more, and a process that is gone has no figure.

import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { processCpuMs } from "../../src/host/runtime/process-cpu.ts";

const linux = process.platform === "linux";
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

function spinner(): ChildProcess {
  const child = spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
  children.push(child);
  return child;
}

/** Waits until the child's count passes `ms` (a loaded machine gives a spinner only part of a core). */
async function cpuPast(child: ChildProcess, ms: number): Promise<number> {
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; await sleep(20)) {
    const counted = processCpuMs(child.pid)!;
    if (counted > ms) return counted;
  }
  throw new Error(`the spinner did not pass ${ms} ms of CPU within 15 s`);
}

describe.runIf(linux)("processCpuMs", () => {
  it("grows while a process spins, and not while it is stopped", async () => {
    const child = spinner();
    await cpuPast(child, 100);
    child.kill("SIGSTOP");
    await sleep(100);
    const stopped = processCpuMs(child.pid)!;
    await sleep(600);
    expect(processCpuMs(child.pid)).toBe(stopped);
    child.kill("SIGCONT");
    expect(await cpuPast(child, stopped)).toBeGreaterThan(stopped);
  }, 40_000);

  it("reads its own process, and gives no figure for one that is gone or never was", async () => {
    expect(processCpuMs(process.pid)).toBeGreaterThan(0);
    expect(processCpuMs(undefined)).toBeUndefined();
    const child = spinner();
    child.kill("SIGKILL");
    await once(child, "exit");
    expect(processCpuMs(child.pid)).toBeUndefined();
  });
});

describe.runIf(!linux)("processCpuMs off Linux", () => {
  it("gives no figure, so silence decides", () => {
    expect(processCpuMs(process.pid)).toBeUndefined();
  });
});
