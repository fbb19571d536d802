// Worker Cron Triggers firing on schedule. One timer, armed for the earliest next fire among
// all triggers; when it rings, every trigger due by then fires with the minute it matched (its
// `scheduledTime`, the UTC instant in epoch milliseconds) and the timer is armed again. A minute
// that passed while no runtime was serving is not fired late. A trigger that changes (a new
// expression, or a new incarnation) is scheduled afresh from now.

import type { CronNode } from "./topology.ts";
import { nextFire, parseSchedule } from "./cron-schedule.ts";

interface Armed {
  node: CronNode;
  next: number | null;
}

export class CronScheduler {
  private armed = new Map<string, Armed>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly now: () => number,
    private readonly fire: (node: CronNode, scheduledTime: number) => void,
  ) {}

  /** The triggers as the store now has them. */
  update(crons: readonly CronNode[]): void {
    const next = new Map<string, Armed>();
    const at = this.now();
    for (const node of crons) {
      const prior = this.armed.get(node.uid);
      if (prior !== undefined && prior.node.cron === node.cron && prior.node.workerUid === node.workerUid) next.set(node.uid, { node, next: prior.next });
      else next.set(node.uid, { node, next: nextFire(parseSchedule(node.cron), at) });
    }
    this.armed = next;
    this.arm();
  }

  private arm(): void {
    clearTimeout(this.timer);
    if (this.closed) return;
    let earliest: number | null = null;
    for (const a of this.armed.values()) if (a.next !== null && (earliest === null || a.next < earliest)) earliest = a.next;
    if (earliest === null) return;
    // Timers drift and long ones are capped: wake at most every minute and re-check.
    const delay = Math.min(Math.max(0, earliest - this.now()), 60_000);
    this.timer = setTimeout(() => this.ring(), delay);
    this.timer.unref();
  }

  private ring(): void {
    const at = this.now();
    for (const a of this.armed.values()) {
      if (a.next === null || a.next > at) continue;
      const due = a.next;
      a.next = nextFire(parseSchedule(a.node.cron), at);
      this.fire(a.node, due);
    }
    this.arm();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }
}
