// The local backend as cdktf's LocalBackend writes it: `path` is the state file, `workspace_dir`
// holds the other workspaces, and the LocalBackend cdktf adds to a stack that names none keeps the
// project's own .takoform/state.db. A stack that moves its state elsewhere is refused until
// `state migrate` moves it.

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLocalStateReadOnly } from "../../src/state/index.ts";
import { runCli, startHost, type TestHost } from "./harness.ts";

const KV = "takoform_edge_kv_namespace";

describe("the local backend", () => {
  let host: TestHost;
  let dir: string;
  beforeAll(async () => {
    host = await startHost();
    dir = mkdtempSync(join(tmpdir(), "takoform-local-backend-"));
  });
  afterAll(async () => {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const env = () => ({ TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: "takoform-dev-token" });
  const stack = (backend: unknown, name: string) =>
    JSON.stringify({ ...(backend !== undefined ? { terraform: { backend } } : {}), resource: { [KV]: { [name]: { name: `local-${name}` } } } });
  const addresses = async (path: string) => {
    const reader = openLocalStateReadOnly(path);
    try {
      return (await reader.list()).map((r) => r.address);
    } finally {
      await reader.close();
    }
  };

  it("keeps state at the LocalBackend's path, and other workspaces under its workspace_dir", async () => {
    const backend = { local: { path: "state/prod.db", workspace_dir: "envs" } };
    writeFileSync(join(dir, "stack.json"), stack(backend, "prod"));
    const applied = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: dir, env: env() });
    expect(applied.code, applied.stderr).toBe(0);
    expect(await addresses(join(dir, "state", "prod.db"))).toEqual([`${KV}.prod`]);
    expect(existsSync(join(dir, ".takoform", "state.db"))).toBe(false);

    writeFileSync(join(dir, "qa.json"), stack(backend, "qa"));
    const qa = await runCli(["apply", "--config", "qa.json", "--auto-approve"], { cwd: dir, env: { ...env(), TAKOFORM_WORKSPACE: "qa" } });
    expect(qa.code, qa.stderr).toBe(0);
    expect(await addresses(join(dir, "envs", "qa", "state.db"))).toEqual([`${KV}.qa`]);
    expect(await addresses(join(dir, "state", "prod.db"))).toEqual([`${KV}.prod`]);
    const listed = await runCli(["state", "list", "--config", "stack.json"], { cwd: dir });
    expect(listed.stdout.trim()).toBe(`${KV}.prod`);

    // cdktf's implicit LocalBackend (terraform.<stack>.tfstate) means the project's default file:
    // a different place from state/prod.db, so the command is refused until the state is moved.
    writeFileSync(
      join(dir, "stack.json"),
      JSON.stringify({ "//": { metadata: { stackName: "demo" } }, ...JSON.parse(stack({ local: { path: join(dir, "terraform.demo.tfstate") } }, "prod")) }),
    );
    const refused = await runCli(["plan", "--config", "stack.json"], { cwd: dir, env: env() });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'Stack "demo"\'s state was last used through the local state file state/prod.db; the stack now names the local state file .takoform/state.db',
    );
    const moved = await runCli(["state", "migrate", "--config", "stack.json"], { cwd: dir });
    expect(moved.code, moved.stderr).toBe(0);
    expect(await addresses(join(dir, ".takoform", "state.db"))).toEqual([`${KV}.prod`]);
    expect(existsSync(join(dir, "terraform.demo.tfstate"))).toBe(false);
    const planned = await runCli(["plan", "--config", "stack.json", "--detailed-exitcode"], { cwd: dir, env: env() });
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);

    // Settings that still put this workspace's state in the same file are no change of backend.
    writeFileSync(
      join(dir, "stack.json"),
      JSON.stringify({
        "//": { metadata: { stackName: "demo" } },
        ...JSON.parse(stack({ local: { path: join(dir, "terraform.demo.tfstate"), workspace_dir: "envs" } }, "prod")),
      }),
    );
    const same = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: dir, env: env() });
    expect(same.code, same.stdout + same.stderr).toBe(0);
    expect(same.stdout).toContain("No changes.");
    expect(JSON.parse(readFileSync(join(dir, ".takoform", "backend.json"), "utf8")).backend).toEqual({ type: "local", path: "default", workspace_dir: "envs" });
  }, 120_000);
});
