// Preloaded into each command the bench runs (`node --import bench/probe.mjs bin/takoform.js …`):
// when the process exits it writes its own peak RSS and CPU time to the file named by
// TAKOFORM_BENCH_PROBE, figures a parent cannot read from a child on every platform.

import { writeFileSync } from "node:fs";

const file = process.env.TAKOFORM_BENCH_PROBE;
if (file) {
  process.on("exit", () => {
    const usage = process.resourceUsage();
    writeFileSync(file, JSON.stringify({ peakRssMb: usage.maxRSS / 1024, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 }));
  });
}
