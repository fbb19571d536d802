// Issue 23 item 4, through the command against the local host over HTTP: everything the apply
// would refuse about the configuration alone is refused at plan, with nothing written. Each case
// is a stack broken one way, and the timeline is the same for all of them:
//
//   takoform plan                 → exit 1, the case's diagnostic (summary, address, code)
//   takoform apply --auto-approve → exit 1, the same diagnostics, no plan summary, no step run
//   the host                      → no write and no prepare answered, no object stored
//   the project                   → byte for byte as before: no state file, no .takoform/
//                                   backend.json, no embedded host data — the configuration is
//                                   checked before anything is opened (docs/engine.md)
//
// The same holds on the embedded host (nothing under .takoform/host, not even its data file) and
// for a project that has applied before (its state, backend record and host data untouched: no
// lock was taken, so the state file was not written at all).
//
// Scenario 5: a bundle module without content_file planned "6 to add", and the apply failed
// with "Missing module content_file" after two objects were created. Scenario 6: a NUL in
// backend.local.path made the local backend write `state`.

import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCountingHost, type CountingHost } from "../support/host-writes.ts";
import { BUNDLE, DEPLOYMENT, ENDPOINT, KV, QUEUE, VERSION, WORKER } from "../support/malformed-stacks/base.ts";
import type { JsonObject } from "../support/malformed-stacks/document.ts";
import { moduleSource, runCli, Scratch, type CliResult } from "./harness.ts";

const TOKEN = "takoform-dev-token";
const MODULE = { name: "index.js", content_type: "application/javascript+module", content_file: "dist/index.js" };

/** Six resources, as WorkerApp writes a worker and the scenario 5 planned them: "6 to add". */
function workerStack(): JsonObject {
  return {
    resource: {
      [KV]: { kv: { name: "pc-kv" } },
      [WORKER]: { w: { name: "pc-w" } },
      [BUNDLE]: { b: { revision_owner: "pc-w", main_module: "index.js", modules: [{ ...MODULE }], lifecycle: { create_before_destroy: true } } },
      [VERSION]: {
        v: {
          revision_owner: "pc-w",
          worker: `\${${WORKER}.w.name}`,
          bundle: `\${${BUNDLE}.b.name}`,
          handlers: ["fetch"],
          kv_bindings: [{ name: "KV", target_name: `\${${KV}.kv.name}` }],
          lifecycle: { create_before_destroy: true },
        },
      },
      [DEPLOYMENT]: { d: { name: "pc-d", worker: `\${${WORKER}.w.name}`, versions: [{ worker_version: `\${${VERSION}.v.name}`, weight: 10000 }] } },
      [ENDPOINT]: { e: { name: "pc-e", worker: `\${${WORKER}.w.name}`, depends_on: [`${DEPLOYMENT}.d`] } },
    },
  };
}

/** A resource body of the worker stack, to break. */
function body(stack: JsonObject, type: string, name: string): JsonObject {
  return ((stack["resource"] as JsonObject)[type] as JsonObject)[name] as JsonObject;
}

function broken(edit: (stack: JsonObject) => void): JsonObject {
  const stack = workerStack();
  edit(stack);
  return stack;
}

interface Case {
  name: string;
  stack: JsonObject;
  /** Each expected error: its summary, the resource it is at (if any), its code, and text its detail must hold. */
  errors: { summary: string; address?: string; code: string; detail?: string }[];
  env?: Record<string, string>;
}

const CASES: Case[] = [
  {
    name: "a bundle module without content_file (scenario 5)",
    stack: broken((s) => {
      body(s, BUNDLE, "b")["modules"] = [{ ...MODULE }, { name: "lib.js", content_type: "application/javascript+module" }];
    }),
    errors: [{ summary: "Missing module content_file", address: `${BUNDLE}.b`, code: "takoform.provider/artifact-authoring-invalid", detail: "modules[1]" }],
  },
  {
    name: "a bundle with neither files nor a manifest digest",
    stack: broken((s) => {
      const b = body(s, BUNDLE, "b");
      delete b["main_module"];
      delete b["modules"];
    }),
    errors: [{ summary: "No bundle authored", address: `${BUNDLE}.b`, code: "takoform.provider/artifact-authoring-invalid" }],
  },
  {
    name: "a content_file that is a directory",
    stack: broken((s) => {
      (body(s, BUNDLE, "b")["modules"] as JsonObject[])[0]!["content_file"] = "dist";
    }),
    errors: [{ summary: "Module file not readable", address: `${BUNDLE}.b`, code: "takoform.provider/local-file-unreadable", detail: "is not a regular file" }],
  },
  {
    name: "a control character in a content_file",
    stack: broken((s) => {
      (body(s, BUNDLE, "b")["modules"] as JsonObject[])[0]!["content_file"] = "dist/in\u001bdex.js";
    }),
    errors: [
      {
        summary: "Module file path holds a control character",
        address: `${BUNDLE}.b`,
        code: "takoform.provider/local-file-unreadable",
        detail: "modules[0].content_file holds the control character U+001B at character 8",
      },
    ],
  },
  {
    name: "a value out of range",
    stack: broken((s) => {
      (s["resource"] as JsonObject)[QUEUE] = { q: { name: "pc-q", message_retention_seconds: 5 } };
    }),
    errors: [
      {
        summary: "Invalid attribute value",
        address: `${QUEUE}.q`,
        code: "takoform.provider/attribute-value-invalid",
        detail: "message_retention_seconds must be between 60 and 1209600; it is 5",
      },
    ],
  },
  {
    name: "a default space that is not a SpaceID",
    stack: workerStack(),
    env: { TAKOFORM_SPACE: "team/a" },
    errors: [{ summary: "Invalid or missing SpaceID", address: `${KV}.kv`, code: "takoform.provider/attribute-value-invalid" }],
  },
  {
    name: "a revision with no owner and no name",
    stack: broken((s) => {
      delete body(s, BUNDLE, "b")["revision_owner"];
    }),
    errors: [
      {
        summary: "Deriving this WorkerBundle name needs to know whose revision it is.",
        address: `${BUNDLE}.b`,
        code: "takoform.provider/revision-owner-missing",
      },
    ],
  },
  {
    name: "a revision with a pinned name beside its owner",
    stack: broken((s) => {
      body(s, VERSION, "v")["name"] = "pc-v1";
    }),
    errors: [
      {
        summary: "A pinned WorkerVersion name leaves `revision_owner` with nothing to decide.",
        address: `${VERSION}.v`,
        code: "takoform.provider/revision-owner-ignored",
      },
    ],
  },
  {
    name: "a control character in a resource name",
    stack: broken((s) => {
      const kvs = (s["resource"] as JsonObject)[KV] as JsonObject;
      kvs["k\u0007v"] = { name: "pc-kv2" };
    }),
    errors: [
      {
        summary: `resource.${KV}["k\\u0007v"] is not a valid resource name`,
        code: "takoform.config/invalid-structure",
        detail: "holds the control character U+0007 at character 2",
      },
    ],
  },
  {
    name: "a control character in an output's or a variable's name",
    stack: broken((s) => {
      s["output"] = { "o\u0001ut": { value: "x" } };
      s["variable"] = { "v\u007far": { type: "string", default: "x" } };
    }),
    errors: [
      {
        summary: 'output "o\\u0001ut" is invalid',
        code: "takoform.config/invalid-structure",
        detail: "Its name holds the control character U+0001 at character 2",
      },
      {
        summary: 'variable "v\\u007far": invalid declaration',
        code: "takoform.config/invalid-variable",
        detail: "Its name holds the control character U+007F at character 2",
      },
    ],
  },
  {
    name: "a NUL in backend.local.path (scenario 6)",
    stack: broken((s) => {
      s["terraform"] = { backend: { local: { path: "state\u0000.db" } } };
    }),
    errors: [
      {
        summary: "The local backend's path holds a control character",
        code: "takoform.config/backend-invalid",
        detail: "terraform.backend.local.path holds the control character U+0000 at character 6",
      },
    ],
  },
  {
    name: "a control character in a piece of a pg conn_str",
    stack: broken((s) => {
      s["terraform"] = { backend: { pg: { conn_str: "postgres://deploy:s3cret@127.0.0.1:1/in\u0001fra" } } };
    }),
    errors: [
      {
        summary: "The state backend is not configured correctly",
        code: "takoform.engine/backend-unavailable",
        detail: "conn_str has the control character U+0001 at character 3 in its database name",
      },
    ],
  },
  {
    name: "a control character in PG_SCHEMA_NAME",
    stack: broken((s) => {
      s["terraform"] = { backend: { pg: { conn_str: "postgres://deploy@127.0.0.1:1/infra" } } };
    }),
    env: { PG_SCHEMA_NAME: "st\u0001ate" },
    errors: [
      {
        summary: "The state backend is not configured correctly",
        code: "takoform.engine/backend-unavailable",
        detail: "PG_SCHEMA_NAME holds the control character U+0001 at character 3",
      },
    ],
  },
];

interface PrintedError {
  summary: string;
  /** The resources it is at, as the `with` line names them (one, or several collapsed), else "". */
  at: string;
  code: string;
}

/** The printed errors, each as its summary, `with` line and code: what plan and apply must agree on. */
function printedErrors(result: CliResult): PrintedError[] {
  const text = `${result.stdout}\n${result.stderr}`;
  return text
    .split(/^Error: /m)
    .slice(1)
    .map((block) => ({
      summary: block.split("\n", 1)[0]!,
      at: /^ {2}with (.+)$/m.exec(block)?.[1] ?? "",
      code: /^ {2}Code: (.+)$/m.exec(block)?.[1] ?? "",
    }));
}

/** Every file under `dir`: its bytes' digest and when it was last written. A run that writes nothing leaves this as it was. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) {
        out[`${relative(dir, path)}/`] = String(statSync(path).mtimeMs);
        walk(path);
      } else out[relative(dir, path)] = `${createHash("sha256").update(readFileSync(path)).digest("hex")} ${statSync(path).mtimeMs}`;
    }
  };
  walk(dir);
  return out;
}

function atAddress(at: string, address: string): boolean {
  return at.split(/, | \(/).includes(address);
}

describe("what the apply would refuse about the configuration is refused at plan, with nothing written", () => {
  let host: CountingHost;
  beforeAll(async () => {
    host = await startCountingHost();
  });
  afterAll(async () => {
    await host?.close();
  });

  for (const c of CASES) {
    it(c.name, async () => {
      const scratch = new Scratch();
      try {
        mkdirSync(scratch.path("dist"));
        writeFileSync(scratch.path("dist", "index.js"), moduleSource(1));
        scratch.write("stack.json", JSON.stringify(c.stack, null, 2));
        const env = { TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: TOKEN, ...c.env };
        const writes = host.writes.length;
        const prepares = host.prepares.length;
        const before = tree(scratch.dir);
        expect(Object.keys(before).sort()).toEqual(["dist/", "dist/index.js", "stack.json"]);

        const plan = await runCli(["plan", "--config", "stack.json"], { cwd: scratch.dir, env });
        const apply = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: scratch.dir, env });
        for (const [command, result] of [
          ["plan", plan],
          ["apply", apply],
        ] as const) {
          const printed = `${result.stdout}\n${result.stderr}`;
          expect(result.code, `${command}: ${printed}`).toBe(1);
          expect(printed, command).not.toMatch(/\n\s+at .+:\d+:\d+|RangeError|TypeError|ReferenceError/);
          expect(printed, command).not.toMatch(/^Plan: \d+ to add/m);
          expect(printed, command).not.toContain("s3cret");
          expect(printed, command).not.toMatch(/Creating\.\.\.|Apply complete|Apply failed/);
          const shown = printedErrors(result);
          for (const e of c.errors) {
            const found = shown.some(
              (d) => d.summary === e.summary && d.code === e.code && (e.address === undefined ? d.at === "" : atAddress(d.at, e.address)),
            );
            expect(found, `${command}: no "${e.summary}" at ${e.address ?? "no resource"} with code "${e.code}" in:\n${printed}`).toBe(true);
            if (e.detail !== undefined) expect(printed, command).toContain(e.detail);
          }
        }
        // The same diagnostics, in the same order: plan and apply run one set of checks.
        expect(printedErrors(apply)).toEqual(printedErrors(plan));

        expect(host.writes.slice(writes)).toEqual([]);
        expect(host.prepares.length - prepares).toBe(0);
        expect(host.host.controls.resourceCount()).toBe(0);
        expect(tree(scratch.dir)).toEqual(before);
      } finally {
        scratch.cleanup();
      }
    });
  }
});

describe("on the embedded host, a run refused at plan writes nothing to the project", () => {
  const BROKEN = broken((s) => {
    body(s, BUNDLE, "b")["modules"] = [{ ...MODULE }, { name: "lib.js", content_type: "application/javascript+module" }];
  });
  // The embedded host: no endpoint, whatever the environment running the tests says.
  const env = { TAKOFORM_ENDPOINT: undefined, TAKOFORM_TOKEN: undefined, TAKOFORM_SPACE: undefined };

  async function refusedTwice(scratch: Scratch): Promise<void> {
    for (const args of [
      ["plan", "--config", "stack.json"],
      ["plan", "--config", "stack.json", "--out", "tfplan"],
      ["apply", "--config", "stack.json", "--auto-approve"],
    ]) {
      const result = await runCli(args, { cwd: scratch.dir, env });
      const printed = `${result.stdout}\n${result.stderr}`;
      expect(result.code, `${args.join(" ")}: ${printed}`).toBe(1);
      expect(
        printedErrors(result).map((e) => [e.summary, e.code]),
        args.join(" "),
      ).toEqual([["Missing module content_file", "takoform.provider/artifact-authoring-invalid"]]);
      expect(printed).not.toMatch(/Creating\.\.\.|Apply complete|Apply failed/);
    }
  }

  it("a new project (the issue's scenario 5): no .takoform at all — no state, no backend record, no host data", async () => {
    const scratch = new Scratch();
    try {
      mkdirSync(scratch.path("dist"));
      writeFileSync(scratch.path("dist", "index.js"), moduleSource(1));
      scratch.write("stack.json", JSON.stringify(BROKEN, null, 2));
      const before = tree(scratch.dir);
      await refusedTwice(scratch);
      expect(tree(scratch.dir)).toEqual(before);
    } finally {
      scratch.cleanup();
    }
  }, 60_000);

  it("a project that applied before: its state, backend record and host data are not written, not even by a lock", async () => {
    const scratch = new Scratch();
    try {
      mkdirSync(scratch.path("dist"));
      writeFileSync(scratch.path("dist", "index.js"), moduleSource(1));
      scratch.write("stack.json", JSON.stringify(workerStack(), null, 2));
      const applied = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: scratch.dir, env });
      expect(applied.code, applied.stderr).toBe(0);
      scratch.write("stack.json", JSON.stringify(BROKEN, null, 2));
      const before = tree(scratch.dir);
      expect(Object.keys(before)).toEqual(expect.arrayContaining([".takoform/backend.json", ".takoform/state.db", ".takoform/host/"]));
      await refusedTwice(scratch);
      expect(tree(scratch.dir)).toEqual(before);
    } finally {
      scratch.cleanup();
    }
  }, 60_000);
});
