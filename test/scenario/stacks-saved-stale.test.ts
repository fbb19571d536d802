// A consumer stack whose saved plan read a value unknown until its producer applied, through the
// command against a local host served over HTTP (docs/stacks.md, "Saved plans of several stacks"):
// `shared` (a KV namespace, renamed between the first apply and the plan, so it is replaced and its
// uid known only after) and `api` (a KV namespace of its own, and an output of shared's uid). The
// host's every request is recorded, so a test sees what was applied and what was even read.

import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LocalHost } from "../../src/host/index.ts";
import type { HostRequest, HostResponse } from "../../src/host/http.ts";
import { stacksCli, stacksOk, stacksProject } from "./stacks-app.ts";

const APP = `
import { App, TerraformOutput, TerraformStack } from "cdktf";
import type { Construct } from "constructs";
import { EdgeKVNamespace, TakoformProvider } from "takoform-cdk";

class Shared extends TerraformStack {
  readonly kv: EdgeKVNamespace;
  constructor(scope: Construct, id: string) {
    super(scope, id);
    new TakoformProvider(this, "takoform", {});
    this.kv = new EdgeKVNamespace(this, "kv", { name: process.env.SHARED_KV ?? "shared-kv" });
  }
}

class Api extends TerraformStack {
  constructor(scope: Construct, id: string, shared: Shared) {
    super(scope, id);
    new TakoformProvider(this, "takoform", {});
    new EdgeKVNamespace(this, "own", { name: process.env.API_KV ?? "api-own" });
    new TerraformOutput(this, "kv_uid", { value: shared.kv.uid });
  }
}

const app = new App();
new Api(app, "api", new Shared(app, "shared"));
app.synth();
`;

const TOKEN = "takoform-dev-token";
const RESOURCE = /^\/apis\/forms\.takoform\.com\/[^/?]+\/resources\/[^/?]+\/[^/?]+\/([^/?]+)\/([^/?]+)(?:\?.*)?$/;

/** The host over HTTP, recording each resource request (`METHOD Kind name status`) in arrival order; resource writes wait while `gate` is set. */
interface RecordingHost {
  url: string;
  requests: string[];
  gate: Promise<void> | null;
  /** Resource writes waiting at the gate now. */
  waiting: number;
  /** Sends a request for a KV namespace to the host directly, past the recorder and the gate (a change made outside takoform). */
  direct(method: string, name: string, headers?: Record<string, string>): Promise<HostResponse>;
  /** A KV namespace's request target, as the provider read one. */
  path?: (name: string) => string;
}

const opened: LocalHost[] = [];
afterEach(async () => {
  for (const host of opened.splice(0)) await host.close();
});

async function recordingHost(): Promise<RecordingHost> {
  const host = await LocalHost.open({ data: ":memory:", log: () => undefined });
  opened.push(host);
  const handle = host.handle.bind(host);
  const recording: RecordingHost = {
    url: "",
    requests: [],
    gate: null,
    waiting: 0,
    direct: (method, name, headers = {}) =>
      handle({
        method,
        url: recording.path!(name),
        headers: { authorization: `Bearer ${TOKEN}`, "idempotency-key": randomUUID(), ...headers },
        body: new Uint8Array(),
      }),
  };
  host.handle = async (request: HostRequest): Promise<HostResponse> => {
    const m = RESOURCE.exec(request.url);
    if (m !== null && request.method !== "GET" && recording.gate !== null) {
      recording.waiting++;
      await recording.gate.finally(() => recording.waiting--);
    }
    const response = await handle(request);
    if (m !== null) {
      const name = decodeURIComponent(m[2]!);
      if (request.method === "GET" && recording.path === undefined) {
        const [path, query] = request.url.split("?") as [string, string];
        recording.path = (other) => `${path.replace(/[^/]*$/, encodeURIComponent(other))}?${query}`;
      }
      recording.requests.push(`${request.method} ${decodeURIComponent(m[1]!)} ${name} ${response.status}`);
    }
    return response;
  };
  recording.url = (await host.listen("127.0.0.1", 0)).url;
  return recording;
}

const FIRST_APPLY = ["PUT EdgeKVNamespace shared-kv 201", "PUT EdgeKVNamespace api-own 201"];
// shared's saved plan: its namespace renamed, so replaced (destroyed, then created), its uid unknown until then.
const SHARED_REPLACED = ["DELETE EdgeKVNamespace shared-kv 204", "PUT EdgeKVNamespace shared-kv-2 201"];

/** A project applied once (shared-kv, api-own), against `host`; the requests recorded so far dropped. */
async function appliedProject(host: RecordingHost): Promise<{ dir: string; env: Record<string, string> }> {
  const dir = stacksProject(APP);
  const env = { TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: TOKEN };
  await stacksOk(dir, ["apply", "*", "--auto-approve"], env);
  expect(host.requests).toEqual(FIRST_APPLY);
  host.requests.length = 0;
  return { dir, env };
}

/** Which of the names the host holds (a GET of each answers 200), asked past the recorder. */
async function holds(host: RecordingHost, names: readonly string[]): Promise<string[]> {
  const held: string[] = [];
  for (const name of names) if ((await host.direct("GET", name)).status === 200) held.push(name);
  return held;
}

/** Deletes a KV namespace on the host, as someone outside takoform would (fenced on the generation it read). */
async function deleteOutside(host: RecordingHost, name: string): Promise<number> {
  const read = JSON.parse(new TextDecoder().decode((await host.direct("GET", name)).body)) as { metadata: { generation: number } };
  return (await host.direct("DELETE", name, { "takoform-expected-generation": String(read.metadata.generation) })).status;
}

const NAMES = ["shared-kv", "shared-kv-2", "api-own", "api-own-2"];

/** `plan '*' --out app.plan` with shared's namespace renamed: shared is replaced, api's output reads its new uid (unknown). */
async function planRename(dir: string, env: Record<string, string>, host: RecordingHost): Promise<void> {
  const planned = await stacksOk(dir, ["plan", "*", "--out", "app.plan"], { ...env, SHARED_KV: "shared-kv-2" });
  expect(planned.stdout).toContain("─── Stack api ───\nChanges to Outputs:\n  ~ kv_uid = ");
  expect(planned.stdout).toContain(" -> (known after apply of stack shared)\n\nPlan: 0 to add, 0 to change, 0 to destroy.");
  // The file holds no token: the provider's credentials are given again at apply.
  expect(readFileSync(join(dir, "app.plan"), "utf8")).not.toContain(TOKEN);
  // A plan writes nothing: it reads each resource once.
  expect(host.requests).toEqual(["GET EdgeKVNamespace shared-kv 200", "GET EdgeKVNamespace api-own 200"]);
  host.requests.length = 0;
}

const output = async (dir: string, env: Record<string, string>, stack: string, name: string): Promise<string> =>
  (await stacksOk(dir, ["output", "--stack", stack, "--raw", name], env)).stdout;
const SHARED_UID = "cross-stack-output-takoform_edge_kv_namespacekvuid";

const PLAN_CHANGED = [
  'Error: The plan of stack "api" changed once the stacks it reads from had applied',
  "",
  "  Planned again with their applied values, it holds changes the plan shown did not: takoform_edge_kv_namespace.own: create (not in the plan shown). Nothing of this stack was applied.",
  "",
  "  Code: takoform.engine/stack-plan-changed",
  "  Retryable: no",
  "",
  "  Review the new plan: run `takoform plan api`, then apply it.",
].join("\n");

describe("a consumer whose saved plan read a value unknown until its producer applied", () => {
  it("apply FILE after the consumer's own state moved: the producer applies, the consumer is refused as stale and never planned again", async () => {
    const host = await recordingHost();
    const { dir, env } = await appliedProject(host);
    const uidBefore = await output(dir, env, "api", "kv_uid");
    await planRename(dir, env, host);
    // api's state moves: an apply of api alone renames its own namespace (replaced).
    await stacksOk(dir, ["apply", "--stack", "api", "--auto-approve"], { ...env, API_KV: "api-own-2" });
    expect(host.requests).toEqual(["GET EdgeKVNamespace api-own 200", "DELETE EdgeKVNamespace api-own 204", "PUT EdgeKVNamespace api-own-2 201"]);
    host.requests.length = 0;

    const applied = await stacksCli(dir, ["apply", "app.plan"], env);
    expect(applied.code).toBe(1);
    // shared applies exactly its saved plan (no read first); api's namespace is not even read: it was not planned again.
    expect(host.requests).toEqual(SHARED_REPLACED);
    expect(applied.stdout).not.toContain("─── Stack api: applying");
    expect(applied.stderr).toContain(
      [
        'Error: The saved plan of stack "api" is stale: its state changed since it was made',
        "",
        "  The plan was made at state serial 4; state is now at serial 9. Nothing of this stack was applied.",
        "",
        "  Code: takoform.engine/plan-file-stale",
        "  Retryable: no",
        "",
        "  Run `takoform plan --out FILE` for these stacks again and apply the new file.",
      ].join("\n"),
    );
    expect(applied.stdout).toContain(
      [
        "Stacks:",
        "  shared  1 added, 0 changed, 1 destroyed",
        "  api     failed",
        "",
        "Apply failed! 2 stacks: 1 added, 0 changed, 1 destroyed; 1 failed (api).",
      ].join("\n"),
    );
    // The host holds shared's new namespace and what api's own apply left; api's output still holds the uid it had.
    expect(await holds(host, NAMES)).toEqual(["shared-kv-2", "api-own-2"]);
    expect(await output(dir, env, "api", "kv_uid")).toBe(uidBefore);
    expect(await output(dir, env, "shared", SHARED_UID)).not.toBe(uidBefore);
  }, 600_000);

  it("apply FILE when the consumer's plan made again holds a change the saved plan did not: stack-plan-changed, nothing of it applied", async () => {
    const host = await recordingHost();
    const { dir, env } = await appliedProject(host);
    const uidBefore = await output(dir, env, "api", "kv_uid");
    await planRename(dir, env, host);
    // api's namespace is deleted on the host, outside takoform: api's state did not move (not stale),
    // but planned again (refreshed) it must create the namespace, which the saved plan did not.
    expect(await deleteOutside(host, "api-own")).toBe(204);

    const applied = await stacksCli(dir, ["apply", "app.plan"], env);
    expect(applied.code).toBe(1);
    expect(host.requests).toEqual([...SHARED_REPLACED, "GET EdgeKVNamespace api-own 404"]);
    expect(applied.stdout).toContain("─── Stack api: applying (planned again with the values of the stacks it reads from) ───");
    expect(applied.stderr).toContain(PLAN_CHANGED);
    expect(applied.stdout).toContain("Apply failed! 2 stacks: 1 added, 0 changed, 1 destroyed; 1 failed (api).");
    expect(await holds(host, NAMES)).toEqual(["shared-kv-2"]);
    // Nothing of api was written: its state still records its namespace and the uid it read.
    expect(await output(dir, env, "api", "kv_uid")).toBe(uidBefore);
    expect((await stacksOk(dir, ["state", "list", "--stack", "api"], env)).stdout.trim()).toBe("takoform_edge_kv_namespace.own");
  }, 600_000);

  it("apply '*' (no file) of the same shape: the consumer planned again holds a change not shown, and is refused the same way", async () => {
    const host = await recordingHost();
    const { dir, env } = await appliedProject(host);
    // shared's first write waits at the gate: every stack has been planned (and shown) by then.
    let open = (): void => undefined;
    host.gate = new Promise<void>((resolve) => (open = resolve));
    const run = stacksCli(dir, ["apply", "*", "--auto-approve"], { ...env, SHARED_KV: "shared-kv-2" });
    while (host.waiting === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await deleteOutside(host, "api-own")).toBe(204);
    host.gate = null;
    open();
    const applied = await run;
    expect(applied.code).toBe(1);
    expect(host.requests).toEqual([
      "GET EdgeKVNamespace shared-kv 200",
      "GET EdgeKVNamespace api-own 200",
      ...SHARED_REPLACED,
      "GET EdgeKVNamespace api-own 404",
    ]);
    expect(applied.stderr).toContain(PLAN_CHANGED);
    expect(applied.stdout).toContain("Apply failed! 2 stacks: 1 added, 0 changed, 1 destroyed; 1 failed (api).");
    expect(await holds(host, NAMES)).toEqual(["shared-kv-2"]);
  }, 600_000);
});
