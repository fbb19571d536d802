// Issue 11 item 9, through the command against the local host over HTTP: every attribute is
// checked against the Form's schema at plan, with the resource address and attribute path in each
// diagnostic; a bad stack is refused with ALL its errors at once — including errors in resources
// whose dependencies are wrong too — and nothing is written: the host's own record of the resource
// mutations it answered stays as it was, and no state file is created.
//
// Item 10's plan side is here too: a deployment whose weights the host will refuse, and a version
// whose environment names collide, plan with a warning at the address (the host decides, at
// apply), and the apply meets the host's refusal at exactly that resource.

import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLocalStateReadOnly } from "../../../src/state/index.ts";
import { moduleSource, runCli, Scratch, startHost, timeline, type TestHost } from "../../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";
const Q = "takoform_at_least_once_queue";
const W = "takoform_module_worker";
const B = "takoform_worker_bundle";
const V = "takoform_worker_version";
const D = "takoform_worker_deployment";
const TOKEN = "takoform-dev-token";

/** What the command printed: the plan and its diagnostics go to stdout, load-time ones to stderr. */
const all = (result: { stdout: string; stderr: string }): string => `${result.stdout}\n${result.stderr}`;

interface JsonDiagnostic {
  severity: string;
  summary: string;
  address?: string;
  attribute?: string;
  code?: string;
  detail?: string;
}

/** A worker of four resources; `patch` edits the bodies before the stack is written. */
function workerStack(prefix: string, patch: (r: Record<string, Record<string, Record<string, unknown>>>) => void = () => {}): unknown {
  const resource: Record<string, Record<string, Record<string, unknown>>> = {
    [W]: { w: { name: `${prefix}-w` } },
    [B]: {
      b: {
        revision_owner: `${prefix}-w`,
        main_module: "index.js",
        modules: [{ name: "index.js", content_type: "application/javascript+module", content_file: "dist/index.js" }],
      },
    },
    [V]: { v: { revision_owner: `${prefix}-w`, worker: `\${${W}.w.name}`, bundle: `\${${B}.b.name}`, handlers: ["fetch"] } },
    [D]: { d: { name: `${prefix}-d`, worker: `\${${W}.w.name}`, versions: [{ worker_version: `\${${V}.v.name}`, weight: 10000 }] } },
  };
  patch(resource);
  return { resource };
}

describe("the schema at plan, through the command", () => {
  let host: TestHost;
  const scratches: Scratch[] = [];
  const env = () => ({ TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: TOKEN });
  const project = (document: unknown): Scratch => {
    const s = new Scratch();
    scratches.push(s);
    s.write("stack.json", JSON.stringify(document, null, 2));
    s.write("dist/index.js", moduleSource(1));
    return s;
  };
  const records = async (p: Scratch): Promise<string[]> => {
    const state = openLocalStateReadOnly(p.path(".takoform", "state.db"));
    try {
      return (await state.list()).map((r) => r.address);
    } finally {
      await state.close();
    }
  };
  beforeAll(async () => {
    host = await startHost();
  });
  afterAll(async () => {
    await host.close();
    for (const s of scratches) s.cleanup();
  });

  it("a stack with many schema errors is refused with all of them, each at its address and path, and nothing is written", async () => {
    const document = workerStack("sc", (r) => {
      r[KV] = { a: { name: "sc-a", bogus_attribute: 1 }, b: { name: "sc-b", Name: "sc-b" }, c: { name: 123 } };
      r[Q] = { q: { name: "sc-q", message_retention_seconds: "3600" } };
      r[B]!.b!.modules = [{ name: "index.js", content_type: "application/javascript+module", content_file: "dist/missing.js" }];
      delete r[V]!.v!.handlers;
      (r[D]!.d!.versions as Record<string, unknown>[])[0]!.weight = "10000";
    });
    (document as Record<string, unknown>).output = { a_name: { value: `\${${KV}.a.nmae}` } };
    const p = project(document);
    const before = timeline(host.mutations);
    const count = host.host.controls.resourceCount();

    const planned = await runCli(["plan", "--config", "stack.json", "--json"], { cwd: p.dir, env: env() });
    expect(planned.code, planned.stderr).toBe(1);
    const diagnostics = (JSON.parse(planned.stdout) as { diagnostics: JsonDiagnostic[] }).diagnostics;
    expect(diagnostics.map((d) => [d.severity, d.address ?? "", d.attribute, d.summary])).toEqual([
      ["error", "", "output.a_name", "Unsupported attribute"],
      ["error", `${Q}.q`, "message_retention_seconds", "Incorrect attribute value type"],
      ["error", `${KV}.a`, "bogus_attribute", "Unsupported argument"],
      ["error", `${KV}.b`, "Name", "Unsupported argument"],
      ["error", `${KV}.c`, "name", "Incorrect attribute value type"],
      ["error", `${B}.b`, "modules[0].content_file", "Module file not readable"],
      ["error", `${D}.d`, "versions[0].weight", "Incorrect attribute value type"],
      ["error", `${V}.v`, "handlers", "Missing required argument"],
    ]);
    const byAttribute = new Map(diagnostics.map((d) => [d.attribute, d]));
    expect(byAttribute.get("output.a_name")!.detail).toBe(
      `output "a_name" refers to \${${KV}.a.nmae}, but a ${KV} has no attribute "nmae". Did you mean "name"?`,
    );
    expect(byAttribute.get("Name")!.detail).toContain('Did you mean "name"? Argument names are case-sensitive.');
    expect(byAttribute.get("modules[0].content_file")!.detail).toContain(`"dist/missing.js" (${p.path("dist", "missing.js")}), which does not exist`);

    // The same refusal from apply: nothing reaches the host, nothing reaches state.
    const applied = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: p.dir, env: env() });
    expect(applied.code).toBe(1);
    expect(all(applied)).toContain(`Error: Unsupported argument\n\n  with ${KV}.a, attribute bogus_attribute,`);
    expect(all(applied)).toContain(`Error: Incorrect attribute value type\n\n  with ${D}.d, attribute versions[0].weight,`);
    expect(all(applied)).toContain("Write versions[0].weight as a number, without quotes.");
    expect(applied.stdout).not.toMatch(/Creation complete|Creating/);
    expect(timeline(host.mutations)).toEqual(before);
    expect(host.host.controls.resourceCount()).toBe(count);
    // Refused before anything opened: no state file was created (docs/engine.md "Refused at plan").
    expect(existsSync(p.path(".takoform", "state.db"))).toBe(false);
  }, 120_000);

  it("a bundle whose module file is missing is refused at plan, before the worker is created (not half-applied)", async () => {
    const p = project(
      workerStack("mf", (r) => {
        r[B]!.b!.modules = [{ name: "index.js", content_type: "application/javascript+module", content_file: "build/index.js" }];
      }),
    );
    const before = timeline(host.mutations);
    const applied = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: p.dir, env: env() });
    expect(applied.code).toBe(1);
    expect(all(applied)).toContain(`Error: Module file not readable\n\n  with ${B}.b, attribute modules[0].content_file,`);
    expect(all(applied)).toContain("Code: takoform.provider/local-file-unreadable");
    expect(timeline(host.mutations)).toEqual(before);
    expect(existsSync(p.path(".takoform", "state.db"))).toBe(false);

    // Built, the same stack applies, in its one order.
    p.write("build/index.js", moduleSource(2));
    const fixed = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: p.dir, env: env() });
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(timeline(host.mutations.slice(before.length)).map((m) => m.replace(/-[0-9a-f]{12}-[0-9a-f]{12} /, "-* "))).toEqual([
      "PUT ModuleWorker mf-w 201",
      "PUT WorkerBundle bundle-* 201",
      "PUT WorkerVersion version-* 201",
      "PUT WorkerDeployment mf-d 201",
    ]);
  }, 120_000);

  it("item 10: weights the host will refuse are a plan warning at the address, and the host refuses the deployment at apply", async () => {
    const p = project(
      workerStack("ws", (r) => {
        (r[D]!.d!.versions as Record<string, unknown>[])[0]!.weight = 9999;
      }),
    );
    const planned = await runCli(["plan", "--config", "stack.json", "--detailed-exitcode"], { cwd: p.dir, env: env() });
    expect(planned.code, planned.stderr).toBe(2);
    expect(all(planned)).toContain(`Warning: Invalid deployment weight total\n\n  with ${D}.d, attribute versions,`);
    expect(all(planned)).toContain(
      "The weights of versions add up to 9999; they must total 10000. The host refuses this deployment when it is applied (invalid_argument)",
    );
    expect(all(planned)).toContain("Code: takoform.provider/host-will-refuse");
    expect(planned.stdout).toContain("Plan: 4 to add, 0 to change, 0 to destroy.");

    const before = host.mutations.length;
    const applied = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: p.dir, env: env() });
    expect(applied.code).toBe(1);
    // prepare accepted the schema-valid spec; the apply (PUT) is where the host refuses it.
    expect(timeline(host.mutations.slice(before)).map((m) => m.replace(/-[0-9a-f]{12}-[0-9a-f]{12} /, "-* "))).toEqual([
      "PUT ModuleWorker ws-w 201",
      "PUT WorkerBundle bundle-* 201",
      "PUT WorkerVersion version-* 201",
      "PUT WorkerDeployment ws-d 400",
    ]);
    expect(all(applied)).toContain("Code: invalid_argument (host, HTTP 400)");
    expect(all(applied)).toMatch(/sum to 9999; a WorkerDeployment's weights must sum to exactly 10000/);
    expect(await records(p)).toEqual([`${W}.w`, `${B}.b`, `${V}.v`].sort());
  }, 120_000);

  it("item 10: colliding environment names are a plan warning, and the host refuses the version at apply", async () => {
    const p = project(
      workerStack("env", (r) => {
        r[KV] = { cache: { name: "env-cache" } };
        r[V]!.v!.vars_json = JSON.stringify({ CACHE: "on" });
        r[V]!.v!.kv_bindings = [{ name: "CACHE", target_name: `\${${KV}.cache.name}` }];
      }),
    );
    const planned = await runCli(["plan", "--config", "stack.json"], { cwd: p.dir, env: env() });
    expect(planned.code, planned.stderr).toBe(0);
    expect(all(planned)).toContain(`Warning: Duplicate module environment name\n\n  with ${V}.v, attribute kv_bindings[0].name,`);

    const before = host.mutations.length;
    const applied = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: p.dir, env: env() });
    expect(applied.code).toBe(1);
    const steps = timeline(host.mutations.slice(before)).map((m) => m.replace(/-[0-9a-f]{12}-[0-9a-f]{12} /, "-* "));
    // The version is refused at its PUT; the deployment that needs it is never sent.
    expect(steps.filter((s) => s.includes("WorkerVersion") || s.includes("WorkerDeployment"))).toEqual(["PUT WorkerVersion version-* 400"]);
    expect(steps.sort()).toEqual(
      ["PUT EdgeKVNamespace env-cache 201", "PUT ModuleWorker env-w 201", "PUT WorkerBundle bundle-* 201", "PUT WorkerVersion version-* 400"].sort(),
    );
    expect(all(applied)).toMatch(/"CACHE" is already declared at \/vars\/CACHE/);
  }, 120_000);
});
