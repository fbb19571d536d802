// takoform-cdk/testing as a user's vitest file uses it: a stack built with cdktf's Testing,
// deployed to a TestHost (the embedded host in memory, served with its runtime), its worker
// requested through the runtime, state and the last plan inspected — and the same deploy through
// faults (a lost reply, a 429) that the engine must ride out, the fault log saying what was done.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TerraformOutput, TerraformStack, Testing } from "cdktf";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { TakoformProvider, WorkerApp } from "takoform-cdk";
import { TestHost } from "takoform-cdk/testing";

const dist = mkdtempSync(join(tmpdir(), "takoform-testing-dist-"));
writeFileSync(join(dist, "index.js"), `export default { async fetch(request) { return new Response("hello from " + new URL(request.url).pathname); } };\n`);
afterAll(() => rmSync(dist, { recursive: true, force: true }));

/** The stack as a user's test builds it, synthesized in memory. */
function greeter(): Record<string, unknown> {
  const stack = new TerraformStack(Testing.app(), "test");
  new TakoformProvider(stack, "takoform", {});
  const app = new WorkerApp(stack, "greeter", { name: "greeter", contentDir: dist, endpoint: true });
  new TerraformOutput(stack, "url", { value: app.url });
  return JSON.parse(Testing.synth(stack)) as Record<string, unknown>;
}

const isMutation = (method: string, target: string) => (method === "PUT" || method === "DELETE") && target.includes("/resources/");

describe("TestHost", () => {
  let host: TestHost | undefined;
  afterEach(async () => {
    await host?.close();
    host = undefined;
  });

  it("deploys a stack, and its worker answers through the runtime", async () => {
    host = await TestHost.start();
    const run = await host.deploy(greeter());
    expect(run.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(run.status).toBe("applied");
    expect(run.counts.added).toBe(run.changes.length);
    const response = await run.fetch("greeter", "/a/b");
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("hello from /a/b");

    // State and the last plan are there to inspect.
    expect((await host.resources()).map((r) => r.type)).toContain("takoform_worker_endpoint");
    expect(host.lastPlan?.map((c) => c.address)).toEqual(expect.arrayContaining(run.changes.map((c) => c.address)));
    const url = (await host.outputs())["url"];
    expect(url?.sensitive).toBe(false);

    // Deployed again unchanged: nothing to do.
    expect((await host.deploy(greeter())).status).toBe("no-changes");
    const destroyed = await host.destroy();
    expect(destroyed.status).toBe("applied");
    expect(await host.resources()).toEqual([]);
  });

  it("with faults between the engine and the host (a lost reply, a 429), the deploy still lands, and the log shows them", async () => {
    let lost = false;
    let limited = false;
    host = await TestHost.start({
      faults: {
        script: (request) => {
          if (!isMutation(request.method, request.target)) return undefined;
          if (!lost) return ((lost = true), "reset-after");
          if (!limited) return ((limited = true), "429");
          return undefined;
        },
      },
    });
    const run = await host.deploy(greeter());
    expect(run.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(run.ok).toBe(true);
    expect(host.faultLog.filter((e) => e.action !== "pass").map((e) => e.action)).toEqual(["reset-after", "429"]);
    expect(await (await run.fetch("greeter")).text()).toBe("hello from /");
  });
});
