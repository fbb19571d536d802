// Issue 11, item 2, the default-tier version of the soak (test/slow/flaky-soak.test.ts): 20
// resources applied and destroyed through the `takoform` command while a seeded fault proxy
// faults 20% of all requests (503 and 429 envelopes with Retry-After: 0, connection resets before
// and after the host answered, a cut answer, 1–2 s delays). On top of the draws, a script makes
// sure each interesting case happens in every run: a create's reply lost, a PUT and a DELETE
// that never reached the host, a throttled availability read, a prepare and a refresh read
// refused as unavailable, a cut refresh answer. Apply and destroy each converge in one run, and
// state and host agree exactly (flaky-apply.ts).

import { describe, expect, it } from "vitest";
import { type FaultKind, isResourceMutation, type ProxiedRequest } from "../../src/testing/fault-proxy.ts";
import { flakyApplyAndDestroy } from "../support/flaky-apply.ts";

/** The last path segment of a request (a resource name), without the query. */
function nameOf(request: { target: string }): string {
  return decodeURIComponent(request.target.split("?")[0]!.split("/").pop()!);
}

/** The faults every run meets, by (method, what, name), on the first occurrence only. */
const SCRIPTED: ReadonlyArray<{ method: string; where: (r: ProxiedRequest) => boolean; fault: FaultKind; label: string }> = [
  { method: "PUT", where: (r) => isResourceMutation(r) && nameOf(r) === "flaky-0", fault: "reset-after", label: "PUT flaky-0: reply lost" },
  { method: "PUT", where: (r) => isResourceMutation(r) && nameOf(r) === "flaky-2", fault: "reset-before", label: "PUT flaky-2: never reached the host" },
  { method: "GET", where: (r) => r.target.includes("/forms?"), fault: "429", label: "availability: throttled" },
  {
    method: "POST",
    where: (r) => r.target.endsWith("/resources/prepare") && r.body.includes('"name":"flaky-4"'),
    fault: "503",
    label: "prepare flaky-4: unavailable",
  },
  { method: "GET", where: (r) => r.target.includes("/resources/") && nameOf(r) === "flaky-6", fault: "truncate", label: "read flaky-6: answer cut" },
  { method: "GET", where: (r) => r.target.includes("/resources/") && nameOf(r) === "flaky-8", fault: "503", label: "read flaky-8: unavailable" },
  { method: "DELETE", where: (r) => isResourceMutation(r) && nameOf(r) === "flaky-14", fault: "reset-after", label: "DELETE flaky-14: reply lost" },
  {
    method: "DELETE",
    where: (r) => isResourceMutation(r) && nameOf(r) === "flaky-12",
    fault: "reset-before",
    label: "DELETE flaky-12: never reached the host",
  },
];

describe("a flaky network (issue 11, item 2)", () => {
  it("at a 20% fault rate, 20 resources apply in one run with nothing lost or duplicated, and destroy empties the host", async () => {
    const scripted = new Set<string>();
    const run = await flakyApplyAndDestroy({
      count: 20,
      seed: 11,
      script: (request) => {
        if (request.occurrence !== 0) return undefined;
        const hit = SCRIPTED.find((s) => s.method === request.method && !scripted.has(s.label) && s.where(request));
        if (hit === undefined) return undefined;
        scripted.add(hit.label);
        return hit.fault;
      },
    });
    expect([...scripted].sort()).toEqual(SCRIPTED.map((s) => s.label).sort());
    const log = run.proxy.log;
    // Per resource, the mutations the proxy saw — action, host status, key — in order. Fault
    // decisions are seeded and do not depend on arrival order, so this is the same every run.
    const mutations = (name: string) =>
      log
        .filter((e) => isResourceMutation(e) && nameOf(e) === name)
        .map((e) => `${e.method} ${e.action} ${e.upstreamStatus ?? "-"} ${e.idempotencyKey === undefined ? "no key" : keys(e.idempotencyKey)}`);
    const seen: string[] = [];
    const keys = (key: string) => `key ${seen.includes(key) ? seen.indexOf(key) + 1 : seen.push(key)}`;
    // The create's reply was lost: re-sent under its key, and the host replayed the 201.
    expect(mutations("flaky-0")).toEqual(["PUT reset-after 201 key 1", "PUT pass 201 key 1", "DELETE pass 204 key 2"]);
    // The PUT that never reached the host was sent again, same bytes and key, and carried out then.
    expect(mutations("flaky-2")).toEqual(["PUT reset-before - key 3", "PUT pass 201 key 3", "DELETE pass 204 key 4"]);
    // A drawn fault: the create and the delete each first dropped before reaching the host.
    expect(mutations("flaky-12")).toEqual(["PUT reset-before - key 5", "PUT pass 201 key 5", "DELETE reset-before - key 6", "DELETE pass 204 key 6"]);
    // The delete's reply was lost: re-sent under its key, and the host replayed the 204.
    expect(mutations("flaky-14")).toEqual(["PUT pass 201 key 7", "DELETE reset-after 204 key 8", "DELETE pass 204 key 8"]);
    // Everything the proxy did over the three runs (apply, plan, destroy).
    expect(run.proxy.counts()).toEqual({
      pass: 108,
      "503": 7,
      "429": 8,
      "reset-before": 10,
      "reset-after": 5,
      truncate: 2,
      delay: 5,
      "html-500": 0,
      "empty-200": 0,
      "cut-body": 0,
      "rewrite-uid": 0,
    });
  }, 180_000);
});
