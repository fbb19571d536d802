// One diagnostics path for --json (issue 28 item 6): every command that takes --json prints its
// problems as one JSON document on stdout, `{command, ok: false, diagnostics}`, with the exit
// status it has without --json, and nothing of the problem as text. Each case provokes one
// problem the way a script meets it: no state yet, an address or output that is not there, a
// mistyped flag or command, a directory that is no project.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, Scratch } from "../scenario/harness.ts";

let scratch: Scratch;
const outside = mkdtempSync(join(tmpdir(), "takoform-json-outside-"));
beforeAll(() => {
  scratch = new Scratch();
  scratch.write("stack.json", JSON.stringify({ resource: { takoform_edge_kv_namespace: { kv: { name: "json-kv" } } } }));
});
afterAll(() => {
  scratch.cleanup();
  rmSync(outside, { recursive: true, force: true });
});

const CONFIG = ["--config", "stack.json"];

/** [the command line, where it runs, the code its first diagnostic carries] */
const CASES: [string[], "project" | "outside", string][] = [
  [["state", "list", ...CONFIG], "project", "takoform.cli/no-state"],
  [["state", "show", ...CONFIG, "takoform_edge_kv_namespace.kv"], "project", "takoform.cli/no-state"],
  [["state", "pull", ...CONFIG], "project", "takoform.cli/no-state"],
  [["state", "rm", ...CONFIG, "takoform_edge_kv_namespace.kv"], "project", "takoform.cli/no-state"],
  [["state", "mv", ...CONFIG, "takoform_edge_kv_namespace.kv", "takoform_edge_kv_namespace.kv2"], "project", "takoform.cli/no-state"],
  [["state", "rebind", ...CONFIG], "project", "takoform.cli/no-state"],
  [["state", "upgrade-lane", ...CONFIG], "project", "takoform.cli/no-state"],
  [["output", ...CONFIG, "nope"], "project", "takoform.cli/output-not-found"],
  [["plan", ...CONFIG, "--no-such-flag"], "project", "takoform.cli/usage"],
  [["state", "show", ...CONFIG], "project", "takoform.cli/usage"],
  [["aply"], "project", "takoform.cli/unknown-command"],
  [["plan", "--config", "missing.json"], "project", "takoform.config/file-not-found"],
  [["state", "list"], "outside", "takoform.config/project-not-found"],
  [["output"], "outside", "takoform.config/project-not-found"],
];

describe("--json problems are JSON diagnostics", () => {
  for (const [args, where, code] of CASES) {
    it(`takoform ${args.join(" ")} (${where})`, async () => {
      const cwd = where === "project" ? scratch.dir : outside;
      const env = { TAKOFORM_ENDPOINT: undefined, TAKOFORM_TOKEN: undefined };
      const plain = await runCli(args, { cwd, env });
      const json = await runCli([...args, "--json"], { cwd, env });
      expect(json.code, json.stderr).toBe(plain.code);
      expect(json.code).toBe(1);
      const document = JSON.parse(json.stdout) as { command: string; ok: boolean; diagnostics: { severity: string; code: string; summary: string }[] };
      expect(document.ok).toBe(false);
      // The command that failed: the subcommand's own name once it runs, the dispatcher's before.
      expect(document.command).toBe(
        code === "takoform.cli/usage" || code === "takoform.cli/unknown-command" || args[0] !== "state" ? args[0] : `state ${args[1]}`,
      );
      expect(document.diagnostics[0]).toMatchObject({ severity: "error", code });
      // The problem is said once, in the document: the text rendering stays off stderr.
      expect(json.stderr).not.toContain(document.diagnostics[0]!.summary);
      expect(plain.stderr).toContain(document.diagnostics[0]!.summary.replace(/^takoform [^:]+: /, ""));
    });
  }
});
