// State knows which host it belongs to (docs/state.md §4), through the command: a state written
// against one host is refused by every command that runs against another — a served host and the
// embedded one, another tenant, another credential — before it reads or writes anything; the
// embedded host is the same host wherever its data directory is served from; `state rebind`
// moves the binding only when the new host holds every recorded object with its uid; state
// written before bindings existed binds on first use.

import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { IDENTITY_HEADER } from "../../src/core/protocol.ts";
import { LocalHost } from "../../src/host/index.ts";
import type { HostRequest, HostResponse } from "../../src/host/http.ts";
import { openLocalStateReadOnly } from "../../src/state/index.ts";
import type { StateDocument } from "../../src/state/types.ts";
import { runCli, Scratch, startHost, timeline, type CliResult, type TestHost } from "./harness.ts";

const KV = "takoform_edge_kv_namespace";
const TOKEN = "takoform-dev-token";
const STACK = { resource: { [KV]: { a: { name: "bound-a" }, b: { name: "bound-b" } } } };

const opened: { close(): Promise<void> }[] = [];
const scratches: Scratch[] = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
  for (const scratch of scratches.splice(0)) scratch.cleanup();
});

function project(): Scratch {
  const scratch = new Scratch();
  scratches.push(scratch);
  scratch.write("stack.json", JSON.stringify(STACK));
  return scratch;
}

async function pull(scratch: Scratch): Promise<StateDocument> {
  const reader = openLocalStateReadOnly(scratch.path(".takoform", "state.db"));
  try {
    return await reader.pull();
  } finally {
    await reader.close();
  }
}

/** The command in the project, against `endpoint` (null: the embedded host; TAKOFORM_ENDPOINT unset). */
function takoform(scratch: Scratch, args: string[], endpoint: string | null, token: string | null = endpoint === null ? null : TOKEN): Promise<CliResult> {
  return runCli(args, { cwd: scratch.dir, env: { TAKOFORM_ENDPOINT: endpoint ?? undefined, TAKOFORM_TOKEN: token ?? undefined } });
}

const EMBEDDED_HOST_ID = /the embedded local host \(host id takoform-local-[0-9a-f]{32}\), space "default", tenant "dev"/;

async function served(): Promise<TestHost> {
  const host = await startHost();
  opened.push(host);
  return host;
}

/** A host of its own, served over HTTP, with the given grants; `anonymous` hides who it is. */
async function hostWith(options: {
  tokens?: { token: string; tenant: string; principal: string }[];
  data?: string;
  anonymous?: boolean;
}): Promise<{ host: LocalHost; url: string }> {
  const host = await LocalHost.open({ data: options.data ?? ":memory:", log: () => undefined, ...(options.tokens ? { tokens: options.tokens } : {}) });
  opened.push(host);
  if (options.anonymous === true) {
    // A host that publishes nothing about itself (as upstream's reference host): known by its origin.
    const handle = host.handle.bind(host);
    host.handle = async (request: HostRequest): Promise<HostResponse> => {
      const response = await handle(request);
      const headers = { ...response.headers };
      delete headers[IDENTITY_HEADER.hostId];
      delete headers[IDENTITY_HEADER.tenant];
      return { ...response, headers };
    };
  }
  return { host, url: (await host.listen("127.0.0.1", 0)).url };
}

describe("a state bound to a served host", () => {
  it("is refused by every command against the embedded host, before any read or write, naming both hosts", async () => {
    const remote = await served();
    const p = project();
    const applied = await takoform(p, ["apply", "--config", "stack.json", "--auto-approve"], remote.url);
    expect(applied.code, applied.stderr).toBe(0);
    const bound = await pull(p);
    expect(bound.host).toMatchObject({
      origin: remote.url,
      hostId: expect.stringMatching(/^takoform-local-[0-9a-f]{32}$/),
      space: "default",
      tenant: "dev",
      credential: null,
    });
    expect(timeline(remote.mutations).sort()).toEqual(["PUT EdgeKVNamespace bound-a 201", "PUT EdgeKVNamespace bound-b 201"]);

    // The repro: destroy without TAKOFORM_ENDPOINT ran against the embedded host, said
    // every resource "has been deleted", exited 0 and forgot them. Now every command is refused.
    for (const args of [
      ["destroy", "--config", "stack.json", "--auto-approve"],
      ["apply", "--config", "stack.json", "--auto-approve"],
      ["refresh", "--config", "stack.json"],
      ["plan", "--config", "stack.json"],
      ["plan", "--config", "stack.json", "--destroy"],
      ["import", "--config", "stack.json", `${KV}.a`, "bound-a"],
    ]) {
      const refused = await takoform(p, args, null);
      // `plan` shows its diagnostics with the plan, on stdout; the others on stderr.
      const shown = args[0] === "plan" ? refused.stdout : refused.stderr;
      expect(refused.code, `${args[0]}: ${refused.stdout}${refused.stderr}`).toBe(1);
      expect(shown).toContain("Error: This state belongs to another host");
      expect(shown).toContain(`State was written against ${remote.url} (host id ${bound.host!.hostId}), space "default", tenant "dev"`);
      expect(shown).toMatch(EMBEDDED_HOST_ID);
      expect(shown).toContain(": another host.");
      expect(shown).toContain(`set TAKOFORM_ENDPOINT=${remote.url}`);
      expect(shown).toContain("takoform state rebind");
      expect(refused.stdout).not.toContain("has been deleted");
      expect(refused.stdout).not.toMatch(/No changes|Destroy complete|Apply complete/);
    }
    // Nothing moved: state as it was, both objects on the served host, no further request there.
    const after = await pull(p);
    expect(after.serial).toBe(bound.serial);
    expect(after.resources.map((r) => [r.address, r.uid])).toEqual(bound.resources.map((r) => [r.address, r.uid]));
    expect(remote.mutations).toHaveLength(2);
    expect(remote.host.controls.resourceCount()).toBe(2);

    // A rebind to the embedded host finds neither object there, and changes nothing.
    const rebind = await takoform(p, ["state", "rebind", "--config", "stack.json"], null);
    expect(rebind.code).toBe(1);
    expect(rebind.stderr).toContain("Error: 2 of 2 recorded objects are not on this host as state records them");
    expect(rebind.stderr).toContain(`${KV}.a: not found (default/EdgeKVNamespace/bound-a)`);
    expect(rebind.stderr).toContain(`State is unchanged: it stays bound to ${remote.url}`);
    expect((await pull(p)).host).toEqual(bound.host);

    // Against the right host the destroy deletes both.
    const destroyed = await takoform(p, ["destroy", "--config", "stack.json", "--auto-approve"], remote.url);
    expect(destroyed.code, destroyed.stderr).toBe(0);
    expect(destroyed.stdout).toContain("Destroy complete! Resources: 2 destroyed.");
    expect(timeline(remote.mutations.slice(2)).sort()).toEqual(["DELETE EdgeKVNamespace bound-a 204", "DELETE EdgeKVNamespace bound-b 204"]);
    expect(remote.host.controls.resourceCount()).toBe(0);
  }, 120_000);

  it("refuses a saved plan made against another host", async () => {
    const remote = await served();
    const p = project();
    const saved = await takoform(p, ["plan", "--config", "stack.json", "--out", "tfplan"], remote.url);
    expect(saved.code, saved.stderr).toBe(0);
    const refused = await takoform(p, ["apply", "tfplan"], null);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("Error: The saved plan was made against another host");
    expect(refused.stderr).toMatch(EMBEDDED_HOST_ID);
    expect((await pull(p)).resources).toEqual([]);
    const applied = await takoform(p, ["apply", "tfplan"], remote.url);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain("Apply complete! Resources: 2 added, 0 changed, 0 destroyed.");
  }, 90_000);
});

describe("the embedded host", () => {
  it("is one host per data directory: served from there it is the same host, another data directory is another", async () => {
    const p = project();
    const applied = await takoform(p, ["apply", "--config", "stack.json", "--auto-approve"], null);
    expect(applied.code, applied.stderr).toBe(0);
    const bound = (await pull(p)).host!;
    expect(bound).toMatchObject({ origin: "embedded", hostId: expect.stringMatching(/^takoform-local-/), space: "default", tenant: "dev", credential: null });

    // The project's own data directory served over HTTP: the same host, the same objects.
    const same = await hostWith({ data: p.path(".takoform", "host") });
    const unchanged = await takoform(p, ["plan", "--config", "stack.json", "--detailed-exitcode"], same.url);
    expect(unchanged.code, unchanged.stderr).toBe(0);
    expect(unchanged.stdout).toContain("No changes.");

    // Another data directory is another host, with another id.
    const elsewhere = new Scratch();
    scratches.push(elsewhere);
    const other = await hostWith({ data: elsewhere.path("host") });
    const refused = await takoform(p, ["plan", "--config", "stack.json"], other.url);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(`State was written against the embedded local host (host id ${bound.hostId})`);
    expect(refused.stdout).toMatch(
      new RegExp(`This plan runs against ${other.url.replace(/[.]/g, "\\.")} \\(host id takoform-local-(?!${bound.hostId!.slice(15)})[0-9a-f]{32}\\)`),
    );
    expect(refused.stdout).toContain("unset TAKOFORM_ENDPOINT and the provider's endpoint, so the project's embedded host is used");
  }, 90_000);
});

describe("the tenant and the credential", () => {
  const grants = [
    { token: "alpha-1-ci-credential", tenant: "alpha", principal: "ci" },
    { token: "alpha-2-laptop-credential", tenant: "alpha", principal: "laptop" },
    { token: "beta-1-ci-credential", tenant: "beta", principal: "ci" },
  ];

  it("a host that tells the tenant: another credential of the same tenant is the same host, another tenant is not", async () => {
    const { url } = await hostWith({ tokens: grants });
    const p = project();
    expect((await takoform(p, ["apply", "--config", "stack.json", "--auto-approve"], url, "alpha-1-ci-credential")).code).toBe(0);
    expect((await pull(p)).host).toMatchObject({ tenant: "alpha", credential: null });
    const sameTenant = await takoform(p, ["plan", "--config", "stack.json", "--detailed-exitcode"], url, "alpha-2-laptop-credential");
    expect(sameTenant.code, sameTenant.stderr).toBe(0);
    const otherTenant = await takoform(p, ["destroy", "--config", "stack.json", "--auto-approve"], url, "beta-1-ci-credential");
    expect(otherTenant.code).toBe(1);
    expect(otherTenant.stderr).toContain(`tenant "alpha"`);
    expect(otherTenant.stderr).toContain(`space "default", tenant "beta": another tenant.`);
    expect((await pull(p)).resources).toHaveLength(2);
  }, 90_000);

  it("a host that tells nothing: known by its origin and the credential; rebind verifies the uids before it moves the binding", async () => {
    const { host, url } = await hostWith({ tokens: grants, anonymous: true });
    const p = project();
    expect((await takoform(p, ["apply", "--config", "stack.json", "--auto-approve"], url, "alpha-1-ci-credential")).code).toBe(0);
    const bound = (await pull(p)).host!;
    expect(bound).toMatchObject({ origin: url, hostId: null, tenant: null, credential: expect.stringMatching(/^hmac-sha256:[0-9a-f]{64}$/) });
    expect(JSON.stringify(await pull(p))).not.toContain("alpha-1-ci-credential");

    // Another credential may be another tenant, whose reads would all miss: refused.
    const other = await takoform(p, ["plan", "--config", "stack.json"], url, "alpha-2-laptop-credential");
    expect(other.code).toBe(1);
    expect(other.stdout).toContain("tenant not told by the host (known by its credential)");
    expect(other.stdout).toContain("another credential, whose tenant the host does not tell (it may be another tenant)");
    // With a credential of another tenant nothing recorded is found: rebind refuses.
    const foreign = await takoform(p, ["state", "rebind", "--config", "stack.json"], url, "beta-1-ci-credential");
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toContain("2 of 2 recorded objects are not on this host as state records them");
    // The same tenant's second credential finds both objects with their uids: re-bound.
    const rebound = await takoform(p, ["state", "rebind", "--config", "stack.json"], url, "alpha-2-laptop-credential");
    expect(rebound.code, rebound.stderr).toBe(0);
    expect(rebound.stdout).toContain("Verified 2 recorded objects on this host (same uids).");
    expect(rebound.stdout).toContain(`State is now bound to ${url}, space "default", tenant not told by the host (known by its credential)`);
    expect((await pull(p)).host!.credential).not.toBe(bound.credential);
    const planned = await takoform(p, ["plan", "--config", "stack.json", "--detailed-exitcode"], url, "alpha-2-laptop-credential");
    expect(planned.code, planned.stderr).toBe(0);
    // A rebind to the host state already names changes nothing.
    const again = await takoform(p, ["state", "rebind", "--config", "stack.json"], url, "alpha-2-laptop-credential");
    expect(again.stdout).toContain("State is already bound to");

    // --force re-binds though objects are missing, and says which.
    host.controls.deleteOutOfBand({ tenant: "alpha", space: "default", apiVersion: "edge.takoform-cdk.dev/v1beta1", kind: "EdgeKVNamespace", name: "bound-b" });
    const { url: elsewhere } = await hostWith({ tokens: grants, anonymous: true });
    const forced = await takoform(p, ["state", "rebind", "--config", "stack.json", "--force"], elsewhere, "alpha-1-ci-credential");
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain("Warning: Re-bound with --force: 2 recorded objects were not found here as recorded");
    expect((await pull(p)).host).toMatchObject({ origin: elsewhere });
  }, 120_000);
});

describe("interrupted writes and old state", () => {
  it("rebind is refused while a write is in flight; the next apply takes the dead run's lock over at once and finishes it", async () => {
    const remote = await served();
    const p = project();
    const killed = await runCli(["apply", "--config", "stack.json", "--auto-approve"], {
      cwd: p.dir,
      env: { TAKOFORM_ENDPOINT: remote.url, TAKOFORM_TOKEN: TOKEN, TAKOFORM_TEST_CRASH_AFTER_INTENTS: "1" },
    });
    expect(killed.signal).toBe("SIGKILL");
    const interrupted = await pull(p);
    expect(interrupted.resources.filter((r) => r.intent !== null).length).toBeGreaterThanOrEqual(1);

    const refused = await takoform(p, ["state", "rebind", "--config", "stack.json", "--force"], null);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("Warning: Took over the state lock of a run that is no longer running");
    expect(refused.stderr).toMatch(/Error: State holds \d+ writes? an interrupted apply never finished/);
    expect(refused.stderr).toContain(`Each was sent to ${remote.url}`);
    expect((await pull(p)).host).toEqual(interrupted.host);

    const finished = await takoform(p, ["apply", "--config", "stack.json", "--auto-approve"], remote.url);
    expect(finished.code, finished.stderr).toBe(0);
    expect(finished.stdout).toContain("write(s) an interrupted apply had left unfinished were resolved first");
    expect((await pull(p)).resources.map((r) => r.uid)).toEqual([
      remote.host.controls.resource({ tenant: "dev", space: "default", apiVersion: "edge.takoform-cdk.dev/v1beta1", kind: "EdgeKVNamespace", name: "bound-a" })!
        .uid,
      remote.host.controls.resource({ tenant: "dev", space: "default", apiVersion: "edge.takoform-cdk.dev/v1beta1", kind: "EdgeKVNamespace", name: "bound-b" })!
        .uid,
    ]);
  }, 120_000);

  it("state written before bindings existed binds to the host of its first state-writing command, and says so", async () => {
    const remote = await served();
    const p = project();
    expect((await takoform(p, ["apply", "--config", "stack.json", "--auto-approve"], remote.url)).code).toBe(0);
    // Exactly what the previous layout wrote: no binding table, no PID namespace, no object indexes.
    const db = new Database(p.path(".takoform", "state.db"));
    db.exec(
      "DROP TABLE host_binding; DROP INDEX resources_by_uid; DROP INDEX resources_by_object; ALTER TABLE lock DROP COLUMN pid_namespace; ALTER TABLE info DROP COLUMN stack;",
    );
    db.pragma("user_version = 1");
    db.close();
    expect((await pull(p)).host).toBeNull();

    const planned = await takoform(p, ["plan", "--config", "stack.json", "--detailed-exitcode"], remote.url);
    expect(planned.code, planned.stderr).toBe(0);
    expect((await pull(p)).host).toBeNull(); // a plan writes nothing, the binding included
    const applied = await takoform(p, ["apply", "--config", "stack.json", "--auto-approve"], remote.url);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stderr).toContain("Warning: State had no host binding; it is now bound to this host");
    expect(applied.stdout).toContain("No changes.");
    expect((await pull(p)).host).toMatchObject({ origin: remote.url, tenant: "dev" });
    const refused = await takoform(p, ["destroy", "--config", "stack.json", "--auto-approve"], null);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("This state belongs to another host");
    expect(remote.host.controls.resourceCount()).toBe(2);
  }, 90_000);
});

describe("state rebind", () => {
  it("answers --help", async () => {
    const result = await runCli(["state", "rebind", "--help"], { cwd: join(process.cwd()) });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Usage: takoform state rebind [options]");
    expect(result.stdout).toContain("--force");
  });
});
