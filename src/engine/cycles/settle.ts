// Settling at apply time (RFC 0011 rule 5). Once every member of a loop is applied, each settle
// pass re-evaluates every member's full configuration against its peers' current values and
// updates the members whose configuration changed; a loop of N members gets N + 1 passes, each
// carrying a change one hop further, and the last one only checks. A member that still changes
// in the last pass fails the deploy, naming the peer output that moves on every update — for
// example `takoform_mesh_service.b.version_id` when each service pins the other's version.
//
// The tracker remembers which attributes each member's latest write in this apply changed, so the
// failure can say which referenced output keeps moving.

import type { Attributes, Diagnostic } from "../../core/index.ts";
import { referencesOf } from "../config/expression/evaluate.ts";
import type { ResourceConfig } from "../config/types.ts";
import type { PlanStep } from "../plan-data.ts";
import { changedAttributes } from "../values.ts";
import { engineCode } from "../codes.ts";

const EVERY = Symbol("every attribute");

export class SettleTracker {
  /** Address → the pass number of its last settle step. */
  readonly #finalPass = new Map<string, number>();
  /** Address → top-level attributes its latest write in this apply changed; `EVERY` after a create. */
  readonly #changed = new Map<string, ReadonlySet<string> | typeof EVERY>();

  /** Address → the loop it settles in (named by the first member of its settle chain). */
  readonly #loopOf = new Map<string, string>();
  /** Loop → the last pass in which a settle step of it wrote. */
  readonly #lastWritingPass = new Map<string, number>();

  constructor(steps: readonly PlanStep[]) {
    for (const step of steps) {
      if (step.action !== "settle" || step.pass === undefined) continue;
      if (step.pass > (this.#finalPass.get(step.address) ?? 0)) this.#finalPass.set(step.address, step.pass);
      if (step.pass !== 1) continue;
      // A loop's settle steps form one chain: the first waits on the loop's writes, each later one
      // on the settle step before it (`settle:<pass>:<address>`).
      const before =
        step.dependsOn.length === 1 && step.dependsOn[0]!.startsWith("settle:") ? step.dependsOn[0]!.slice(step.dependsOn[0]!.indexOf(":", 7) + 1) : undefined;
      this.#loopOf.set(step.address, before === undefined ? step.address : (this.#loopOf.get(before) ?? before));
    }
  }

  /**
   * True when a settle step has nothing to do: a whole pass of its loop wrote nothing, so every
   * member already matches its configuration and no later pass can find a change. The first pass
   * always runs. This keeps a large loop's N + 1 passes from re-planning every member N + 1 times.
   */
  quiet(step: PlanStep): boolean {
    if (step.action !== "settle" || step.pass === undefined || step.pass < 2) return false;
    const loop = this.#loopOf.get(step.address);
    return loop !== undefined && (this.#lastWritingPass.get(loop) ?? 0) < step.pass - 1;
  }

  /** Records that a settle step wrote. */
  settled(step: PlanStep): void {
    const loop = this.#loopOf.get(step.address);
    if (loop !== undefined && step.pass !== undefined) this.#lastWritingPass.set(loop, step.pass);
  }

  /** The last pass of a loop only checks that nothing changes any more. */
  isFinalPass(step: PlanStep): boolean {
    return step.action === "settle" && step.pass !== undefined && this.#finalPass.get(step.address) === step.pass;
  }

  /** Records what a write of a loop member changed. */
  wrote(address: string, before: Attributes | undefined, after: Attributes): void {
    if (!this.#finalPass.has(address)) return;
    // A create changed everything; one marker instead of a set of every attribute name per member.
    this.#changed.set(address, before === undefined ? EVERY : new Set(changedAttributes(before, after)));
  }

  #hasChanged(address: string, attribute: string): boolean {
    const changed = this.#changed.get(address);
    return changed === EVERY || (changed !== undefined && changed.has(attribute));
  }

  /** The plan error of a member that still changes in the last pass. */
  unsettled(step: PlanStep, resource: ResourceConfig, applied: Attributes, planned: Attributes): Diagnostic {
    const configured = new Set([...Object.keys(resource.attributes), ...resource.contributions.flatMap((c) => Object.keys(c.values))]);
    const differing = changedAttributes(applied, planned).filter((name) => configured.has(name));
    const moving: string[] = [];
    for (const name of differing) {
      const expressions = [resource.attributes[name], ...resource.contributions.map((c) => c.values[name])];
      for (const expr of expressions) {
        if (expr === undefined) continue;
        for (const ref of referencesOf(expr)) {
          const attribute = ref.path.length > 0 ? String(ref.path[0]) : undefined;
          if (attribute === undefined || !this.#hasChanged(ref.address, attribute)) continue;
          const output = `${ref.address}.${attribute}`;
          if (!moving.includes(output)) moving.push(output);
        }
      }
    }
    const named = moving.length > 0 ? moving.join(", ") : `${resource.address} (${differing.join(", ") || "its configuration"})`;
    return {
      severity: "error",
      code: engineCode("cycle-unsettled"),
      summary: `The cycle does not settle: ${named} ${moving.length === 1 ? "changes" : "change"} on every update`,
      detail:
        `After ${step.pass} settle passes, ${resource.address} would still have to be updated (${differing.join(", ") || "its configuration differs"}), ` +
        `because ${moving.length > 0 ? `it uses ${named}, which changed again when ${moving.length === 1 ? "that member was" : "those members were"} last updated` : "its configuration keeps changing"}. ` +
        "A value that changes on every update of a member can never come to rest when it is fed back around the loop. Nothing more was written; state records every write made.",
      address: resource.address,
      resourceType: resource.type,
      ...(differing.length > 0 ? { attribute: differing[0]! } : {}),
      repair:
        "Refer to a value that stays the same across updates (a name, a url, a namespace id) instead of one that changes on every update (a version id), or set that value from outside the cycle.",
    };
  }
}
