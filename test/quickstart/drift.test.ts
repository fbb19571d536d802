// Issue 14: after the Quick start's first deploy, the next plan claimed the worker had "changed
// outside of Takoform". Creating the WorkerDeployment re-renders its ModuleWorker on the host
// (Ready False/Provisioning, revision 1 → True/Available, revision 2: the Host API's derived
// rendering rule) after the apply recorded the worker's create response. That difference is real
// (a refresh-only plan shows it) but nothing the plan reads or the configuration sets, so a plan
// does not report it. A real out-of-band change — the endpoint deleted by another client over the
// Host API — is still reported, and repaired by the next apply.
//
// Run through the `takoform` command in a scratch copy of examples/worker-app, as the Quick start
// test does; the out-of-band client reaches the project's embedded host over real HTTP while no
// command holds it.

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { HostClient } from "../../src/client/client.ts";
import { DEV_TOKEN, LocalHost } from "../../src/host/index.ts";
import { exampleProject } from "../support/node-modules.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "bin", "takoform.js");
const project = mkdtempSync(join(tmpdir(), "takoform-quickstart-drift-"));
const NOTE = "Objects have changed outside of Takoform";
const WORKER = /takoform_module_worker\.counter_worker_[0-9A-F]+ has changed/;
const ENDPOINT_GONE = /# takoform_worker_endpoint\.counter_endpoint_[0-9A-F]+ has been deleted/;

function scaffold(): void {
  exampleProject("worker-app", project, "quickstart-drift");
}

function takoform(...args: string[]): { status: number | null; out: string } {
  // The embedded host of the project, whatever the environment running the tests points at.
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  for (const name of ["TAKOFORM_ENDPOINT", "TAKOFORM_TOKEN", "TAKOFORM_SPACE"]) delete env[name];
  const run = spawnSync(process.execPath, [BIN, ...args, "-C", project], { encoding: "utf8", env, timeout: 120_000 });
  return { status: run.status, out: `${run.stdout}\n${run.stderr}` };
}

/** Another client deletes the endpoint through the Host API, fenced on what it reads first. */
async function deleteEndpointOutOfBand(): Promise<void> {
  const host = await LocalHost.open({ data: join(project, ".takoform", "host"), log: () => undefined });
  try {
    const { url } = await host.listen("127.0.0.1", 0);
    const client = await HostClient.connect({ endpoint: url, token: DEV_TOKEN.token });
    try {
      const stored = host.controls.resource({
        tenant: "dev",
        space: "default",
        apiVersion: "edge.takoform-cdk.dev/v1beta1",
        kind: "WorkerEndpoint",
        name: "counter-endpoint",
      });
      expect(stored).toBeDefined();
      const ref = { apiVersion: stored!.apiVersion, kind: stored!.kind, definitionVersion: stored!.definitionVersion, schemaDigest: stored!.schemaDigest };
      const read = await client.getResource("default", ref, "counter-endpoint");
      await client.deleteResource("default", ref, "counter-endpoint", { uid: read.metadata.uid!, generation: read.metadata.generation! });
      expect(host.controls.resource({ tenant: "dev", space: "default", apiVersion: ref.apiVersion, kind: ref.kind, name: "counter-endpoint" })).toBeUndefined();
    } finally {
      client.close();
    }
  } finally {
    await host.close();
  }
}

afterAll(() => rmSync(project, { recursive: true, force: true }));

describe("Quick start: drift after the first deploy", () => {
  it("plans no drift after the first deploy, yet reports and repairs a real out-of-band deletion", async () => {
    scaffold();
    const first = takoform("apply", "--auto-approve");
    expect(first.status, first.out).toBe(0);
    expect(first.out).toContain("Apply complete! Resources: 6 added, 0 changed, 0 destroyed.");

    // The plan right after: nothing to do and nothing to note.
    const quiet = takoform("plan", "--detailed-exitcode");
    expect(quiet.status, quiet.out).toBe(0);
    expect(quiet.out).not.toContain(NOTE);
    expect(quiet.out).toContain("No changes. Your infrastructure matches the configuration.");

    // The host did re-render the worker when its deployment landed: refresh-only shows exactly that.
    const everything = takoform("plan", "--refresh-only", "--detailed-exitcode");
    expect(everything.status, everything.out).toBe(2);
    expect(everything.out).toContain(NOTE);
    expect(everything.out).toMatch(WORKER);
    expect(everything.out).toMatch(/~ ready\s+= false -> true/);
    expect(everything.out).toMatch(/~ revision\s+= "1" -> "2"/);

    // A real change made outside takoform is still reported, and only it.
    await deleteEndpointOutOfBand();
    const drifted = takoform("plan", "--detailed-exitcode");
    expect(drifted.status, drifted.out).toBe(2);
    expect(drifted.out).toContain(`Note: ${NOTE}`);
    expect(drifted.out).toMatch(ENDPOINT_GONE);
    expect(drifted.out).not.toMatch(WORKER);
    expect(drifted.out).toContain("Plan: 1 to add, 0 to change, 0 to destroy.");

    const repaired = takoform("apply", "--auto-approve");
    expect(repaired.status, repaired.out).toBe(0);
    expect(repaired.out).toContain("Apply complete! Resources: 1 added, 0 changed, 0 destroyed.");

    const after = takoform("plan", "--detailed-exitcode");
    expect(after.status, after.out).toBe(0);
    expect(after.out).not.toContain(NOTE);
  }, 300_000);
});
