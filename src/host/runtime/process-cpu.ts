// The CPU time a child process has used, as the operating system counts it.
//
// An isolate reports its own CPU in heartbeats, but a loop that never yields sends none, and a
// loaded machine delays heartbeats too: silence alone cannot tell a runaway loop from a process
// that is merely waiting for a core. Where the kernel publishes the figure (Linux's
// /proc/<pid>/stat) the watchdog asks it; elsewhere silence is all it has.

import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc's utime and stime: USER_HZ, 100 on every Linux architecture Node runs on. */
const USER_HZ = 100;

/** CPU milliseconds (user + system) the process has used, or undefined where the OS does not say. */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined || process.platform !== "linux") return undefined;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return undefined; // the process is gone, or /proc is not mounted
  }
  // The command name (field 2) is parenthesized and may hold spaces: count fields after its ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of the whole line, so 11 and 12 after the name.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return ((utime + stime) * 1000) / USER_HZ;
}
