// examples/worker-site, run as a user runs it: the `takoform` command deploys a worker with its
// static assets and its SQLite migrations to the embedded host in one apply, and each kind of
// change is a new revision created beside the old one (decision 0029; reference v1beta1 §7,
// §10.3):
//
//   apply                   9 added: the database, the worker, its bundle, asset bundle, version,
//                           migration set and application, deployment and endpoint
//   public/app.css changed  2 added, 1 changed, 2 destroyed: a new asset bundle and version, the
//                           deployment moved to it, the old two deleted
//   0002_….sql added        2 added, 0 changed, 2 destroyed: a new migration set and application,
//                           the old two deleted; the deployment only waits for it
//   plan                    empty (--detailed-exitcode 0)
//   dev                     serves it: the worker's API writes to the migrated table (its count
//                           shows 0002's seed row, so each migration ran once); every other path
//                           is the worker's 404 answered by the assets — index.html for `/` and,
//                           SPA mode, for a path the bundle lacks; app.css as changed
//   destroy                 9 destroyed
//
// The example is copied to a scratch project; its node_modules links to this package's.

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { exampleProject } from "../support/node-modules.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "bin", "takoform.js");
const project = mkdtempSync(join(tmpdir(), "takoform-worker-site-"));
const bare = { TAKOFORM_ENDPOINT: "", TAKOFORM_TOKEN: "", TAKOFORM_LANE: "", NO_COLOR: "1" };

function takoform(...args: string[]): { status: number | null; stdout: string; out: string } {
  const run = spawnSync(process.execPath, [BIN, ...args, "-C", project], { encoding: "utf8", env: { ...process.env, ...bare }, timeout: 120_000 });
  return { status: run.status, stdout: run.stdout, out: `${run.stdout}\n${run.stderr}` };
}

interface Pulled {
  host: { lane: string };
  resources: { address: string; type: string; attributes: Record<string, unknown> }[];
}

/** The name of each live resource by type (deposed objects are gone after a completed apply). */
function names(): Record<string, string> {
  const pulled = takoform("state", "pull");
  expect(pulled.status, pulled.out).toBe(0);
  const state = JSON.parse(pulled.stdout) as Pulled;
  expect(state.host.lane).toBe("forms.takoform.com/v1beta1");
  return Object.fromEntries(state.resources.map((r) => [r.type, String(r.attributes["name"])]));
}

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  rmSync(project, { recursive: true, force: true });
});

/** Starts `takoform dev` on the project; resolves with the worker's path-form address. */
async function startDev(): Promise<{ child: ChildProcess; path: string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [BIN, "dev", "-C", project, "--listen", "127.0.0.1:0"], {
    env: { ...process.env, ...bare },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const m = /^worker default\/site:\n {2}http:\/\/\S+\n {2}(http:\/\/\S+)\n/m.exec(out);
    if (m !== null) return { child, path: m[1]!, exited };
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`dev printed no worker address:\n${out}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function get(url: string): Promise<string> {
  const response = await fetch(url);
  return `${response.status} ${await response.text()}`;
}

describe("examples/worker-site", () => {
  it("deploys a worker with its assets and its schema in one apply; a change of either is new revisions beside the old; the plan after is empty; dev serves its API and its site", async () => {
    exampleProject("worker-site", project, "worker-site");

    const first = takoform("apply", "--auto-approve");
    expect(first.status, first.out).toBe(0);
    expect(first.out).toContain("Apply complete! Resources: 9 added, 0 changed, 0 destroyed.");
    const one = names();
    expect(one["takoform_static_asset_bundle"]).toMatch(/^static-asset-bundle-[0-9a-f]{12}-[0-9a-f]{12}$/);
    expect(one["takoform_sqlite_migration_set"]).toMatch(/^sqlite-migration-set-[0-9a-f]{12}-[0-9a-f]{12}$/);
    expect(one["takoform_sqlite_migration_application"]).toMatch(/^site-migrations-[0-9a-f]{8}$/);

    writeFileSync(join(project, "public", "app.css"), "body { font-family: serif; }\n");
    const assets = takoform("apply", "--auto-approve");
    expect(assets.status, assets.out).toBe(0);
    expect(assets.out).toContain("Apply complete! Resources: 2 added, 1 changed, 2 destroyed.");
    const two = names();
    expect(two["takoform_static_asset_bundle"]).not.toBe(one["takoform_static_asset_bundle"]);
    expect(two["takoform_worker_version"]).not.toBe(one["takoform_worker_version"]);
    // The owner half of a revision name is the app's; only the content half moved.
    expect(two["takoform_static_asset_bundle"]!.slice(-12)).toBe(one["takoform_static_asset_bundle"]!.slice(-12));
    expect(two["takoform_sqlite_migration_set"]).toBe(one["takoform_sqlite_migration_set"]);

    writeFileSync(join(project, "migrations", "0002_seed.sql"), "INSERT INTO visits (at) VALUES ('seed');\n");
    const schema = takoform("apply", "--auto-approve");
    expect(schema.status, schema.out).toBe(0);
    expect(schema.out).toContain("Apply complete! Resources: 2 added, 0 changed, 2 destroyed.");
    const three = names();
    expect(three["takoform_sqlite_migration_set"]).not.toBe(two["takoform_sqlite_migration_set"]);
    expect(three["takoform_sqlite_migration_application"]).not.toBe(two["takoform_sqlite_migration_application"]);
    expect(three["takoform_worker_version"]).toBe(two["takoform_worker_version"]);

    const plan = takoform("plan", "--detailed-exitcode");
    expect(plan.status, plan.out).toBe(0);

    const dev = await startDev();
    try {
      const index = readFileSync(join(project, "public", "index.html"), "utf8");
      expect(await get(`${dev.path}api/visits`)).toBe("200 visits: 2\n");
      expect(await get(`${dev.path}api/visits`)).toBe("200 visits: 3\n");
      expect(await get(dev.path)).toBe(`200 ${index}`);
      expect(await get(`${dev.path}app.css`)).toBe("200 body { font-family: serif; }\n");
      expect(await get(`${dev.path}some/client/route`)).toBe(`200 ${index}`);
    } finally {
      dev.child.kill("SIGTERM");
    }
    expect(await dev.exited).toBe(0);

    const destroy = takoform("destroy", "--auto-approve");
    expect(destroy.status, destroy.out).toBe(0);
    expect(destroy.out).toContain("9 destroyed");
  }, 300_000);
});
