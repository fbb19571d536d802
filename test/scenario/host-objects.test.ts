// One host object, one record (docs/state.md §1), through the command against a served host whose
// resource mutations are recorded: two configured resources that address one object are refused
// at plan; a name only known at apply is refused by the state store before its create is sent;
// importing an object another record manages is refused, by the command and by an import block.

import { afterEach, describe, expect, it } from "vitest";
import { WorkerBundle } from "../../src/index.ts";
import { openLocalStateReadOnly } from "../../src/state/index.ts";
import type { ResourceRecord } from "../../src/state/types.ts";
import { EDGE_GROUP, moduleSource, runCli, Scratch, startHost, synthStack, timeline, type CliResult, type TestHost } from "./harness.ts";

const KV = "takoform_edge_kv_namespace";

let host: TestHost | undefined;
let scratch: Scratch | undefined;
afterEach(async () => {
  await host?.close();
  scratch?.cleanup();
});

async function start(document?: unknown): Promise<void> {
  host = await startHost();
  scratch = new Scratch();
  if (document !== undefined) scratch.write("stack.json", JSON.stringify(document));
}

function takoform(args: string[]): Promise<CliResult> {
  return runCli(args, { cwd: scratch!.dir, env: { TAKOFORM_ENDPOINT: host!.url, TAKOFORM_TOKEN: "takoform-dev-token" } });
}

async function records(): Promise<ResourceRecord[]> {
  const reader = openLocalStateReadOnly(scratch!.path(".takoform", "state.db"));
  try {
    return await reader.list();
  } finally {
    await reader.close();
  }
}

describe("two addresses, one object", () => {
  it("refuses at plan two resources with the same name, Form and space, naming both; nothing is created", async () => {
    await start({ resource: { [KV]: { first: { name: "shared" }, second: { name: "shared" }, other: { name: "shared", space: "elsewhere" } } } });
    const planned = await takoform(["plan", "--config", "stack.json"]);
    expect(planned.code).toBe(1);
    expect(planned.stdout).toContain(`Error: ${KV}.first and ${KV}.second are the same host object`);
    expect(planned.stdout).toContain(`Both address EdgeKVNamespace "shared" (${EDGE_GROUP}) in space "default".`);
    expect(planned.stdout).toContain(`with ${KV}.second`);
    expect(planned.stdout).toContain(`remove one of ${KV}.first and ${KV}.second`);
    // The same name in another space is another object.
    expect(planned.stdout).not.toContain(`${KV}.other are the same`);
    const applied = await takoform(["apply", "--config", "stack.json", "--auto-approve"]);
    expect(applied.code).toBe(1);
    expect(applied.stdout).not.toContain("Creation complete");
    expect(host!.mutations).toEqual([]);
  }, 60_000);

  it("refuses two derived revision names that come out the same (same content, same owner); different owners are fine", async () => {
    await start();
    scratch!.write("dist/index.js", moduleSource(1));
    const modules = [{ name: "index.js", contentFile: scratch!.path("dist/index.js"), contentType: "application/javascript+module" as const }];
    const same = await synthStack(scratch!, (stack) => {
      new WorkerBundle(stack, "one", { revisionOwner: "app", mainModule: "index.js", modules });
      new WorkerBundle(stack, "two", { revisionOwner: "app", mainModule: "index.js", modules });
    });
    const planned = await takoform(["plan", "--config", same.file]);
    expect(planned.code).toBe(1);
    expect(planned.stdout).toMatch(/Error: takoform_worker_bundle\.one and takoform_worker_bundle\.two are the same host object/);
    expect(planned.stdout).toMatch(/Both address WorkerBundle "bundle-[0-9a-f]{12}-[0-9a-f]{12}"/);
    const owners = await synthStack(scratch!, (stack) => {
      new WorkerBundle(stack, "one", { revisionOwner: "app", mainModule: "index.js", modules });
      new WorkerBundle(stack, "two", { revisionOwner: "other", mainModule: "index.js", modules });
    });
    const fine = await takoform(["plan", "--config", owners.file, "--detailed-exitcode"]);
    expect(fine.code, fine.stdout).toBe(2);
  }, 60_000);

  it("a name only known at apply, held by another record: refused before the create reaches the host", async () => {
    // `source` mints its name at apply (name_prefix); `copy` takes the same name by reference.
    await start({ resource: { [KV]: { source: { name_prefix: "minted-" }, copy: { name: `\${${KV}.source.name}` } } } });
    const planned = await takoform(["plan", "--config", "stack.json", "--detailed-exitcode"]);
    expect(planned.code, planned.stdout).toBe(2);
    const applied = await takoform(["apply", "--config", "stack.json", "--auto-approve"]);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain(`Error: ${KV}.copy addresses the host object ${KV}.source already manages`);
    expect(applied.stderr).toMatch(
      new RegExp(
        `The object default/${EDGE_GROUP.replaceAll(".", "\\.")}/EdgeKVNamespace/minted-[a-z0-9]+ \\(space/group/kind/name\\) is recorded under takoform_edge_kv_namespace\\.source`,
      ),
    );
    expect(applied.stderr).toContain("this write was refused before anything was sent to the host");
    expect(applied.stderr).toContain(`If ${KV}.copy is ${KV}.source renamed, declare the move instead, so the object is kept`);
    expect(timeline(host!.mutations)).toEqual([expect.stringMatching(/^PUT EdgeKVNamespace minted-[a-z0-9]+ 201$/)]);
    expect((await records()).map((r) => r.address)).toEqual([`${KV}.source`]);
  }, 60_000);

  it("two creates of one object whose name is only known at apply: one is created, the other refused (never both 'complete' with one uid)", async () => {
    // Both take the source's uid (a valid name) as their name, unknown until the source exists.
    await start({ resource: { [KV]: { source: { name: "origin" }, left: { name: `\${${KV}.source.uid}` }, right: { name: `\${${KV}.source.uid}` } } } });
    const applied = await takoform(["apply", "--config", "stack.json", "--auto-approve"]);
    expect(applied.code).toBe(1);
    const complete = applied.stdout.match(/takoform_edge_kv_namespace\.(left|right): Creation complete/g) ?? [];
    expect(complete).toHaveLength(1);
    const [winner, loser] = complete[0]!.includes(".left:") ? ["left", "right"] : ["right", "left"];
    expect(applied.stderr).toContain(`Error: ${KV}.${loser} addresses the host object ${KV}.${winner} already manages`);
    const state = await records();
    const uid = state.find((r) => r.address === `${KV}.source`)!.uid!;
    expect(timeline(host!.mutations)).toEqual(["PUT EdgeKVNamespace origin 201", `PUT EdgeKVNamespace ${uid} 201`]);
    expect(state.map((r) => r.address)).toEqual([`${KV}.${winner}`, `${KV}.source`].sort());
  }, 60_000);
});

describe("importing an object another record manages", () => {
  it("is refused by `takoform import`, by uid or name, and by an import block at plan", async () => {
    await start({ resource: { [KV]: { managed: { name: "held" } } } });
    expect((await takoform(["apply", "--config", "stack.json", "--auto-approve"])).code).toBe(0);
    const uid = (await records())[0]!.uid!;
    scratch!.write("stack.json", JSON.stringify({ resource: { [KV]: { managed: { name: "held" }, again: { name: "held" } } } }));

    const imported = await takoform(["import", "--config", "stack.json", `${KV}.again`, "held"]);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain(`Error: ${KV}.managed already manages the object ${KV}.again would import`);
    expect(imported.stderr).toContain(`EdgeKVNamespace "held" (${EDGE_GROUP}) in space "default" (uid ${uid}) is recorded in state under ${KV}.managed`);
    // A rename is a move, never a forget and an import.
    expect(imported.stderr).toContain(
      `If ${KV}.again is ${KV}.managed renamed, move the record instead of importing: \`takoform state mv ${KV}.managed ${KV}.again\``,
    );
    expect(imported.stderr).not.toContain("state rm");
    expect((await records()).map((r) => r.address)).toEqual([`${KV}.managed`]);

    scratch!.write(
      "blocks.json",
      JSON.stringify({ resource: { [KV]: { managed: { name: "held" }, again: { name: "held" } } }, import: [{ to: `${KV}.again`, id: "default/held" }] }),
    );
    const planned = await takoform(["plan", "--config", "blocks.json"]);
    expect(planned.code).toBe(1);
    expect(planned.stdout).toContain(`Error: ${KV}.managed already manages the object ${KV}.again would import`);
    expect(host!.mutations).toHaveLength(1);
  }, 60_000);
});
