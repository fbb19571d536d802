// `takoform forms inspect|check DIR [--json]`: list every definition under a directory with its
// exact identity, package digest and derived relations; or check every definition and run the
// conformance fixtures its package lists. A refused definition is a diagnostic (on stderr, or
// in the JSON document's "diagnostics" with --json) and makes the exit code 1.

import { statSync } from "node:fs";
import { CliUsageError, parseArgs, type Command } from "../command.ts";
import { diagnosticsToJson, Console } from "../console.ts";
import { readForms, type FormsReport } from "../../automation/forms-api.ts";

type Relation = FormsReport["definitions"][number]["relations"][number];
type FixtureVerdict = NonNullable<FormsReport["fixtures"]>[number];

const USAGE = `Usage: takoform forms <inspect|check> DIR [--json]

  inspect DIR   List every Form, Interface and Binding Definition under DIR (found by shape),
                with exact identities, package digests and derived relations.
  check DIR     Check every definition under DIR and run every conformance fixture its
                package lists: positive fixtures must validate, negative ones must fail.

Options:
  --json        Print the result as JSON on stdout, definition problems as its "diagnostics".
  -h, --help    Show this help.

Definition problems are diagnostics (on stderr without --json); any problem or failed fixture
exits 1.`;

const INSPECT_USAGE = `Usage: takoform forms inspect DIR [--json]

List every definition under DIR. --json prints
{"definitions":[{path, formRef, packageDigest, role, lifecycleCapabilities, relations}],
 "interfaces":[{path, ref}], "bindings":[{path, ref}], "diagnostics":[…]}; paths are relative to DIR.`;

const CHECK_USAGE = `Usage: takoform forms check DIR [--json]

Check every definition under DIR, then run its conformance fixtures. --json prints
{"fixtures":[{form, fixture, expected, actual, ok}], "passed": N, "failed": N, "diagnostics":[…]}.`;

const out = (text: string): void => {
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
};

export const command: Command = {
  async run(argv: string[]): Promise<number> {
    const [sub, ...rest] = argv;
    if (sub === undefined || sub === "--help" || sub === "-h" || sub === "help") {
      out(USAGE);
      return sub === undefined ? 1 : 0;
    }
    if (sub !== "inspect" && sub !== "check") throw new CliUsageError(`unknown subcommand "${sub}" (expected inspect or check)`);
    const args = parseArgs(rest, { switches: ["--json", "--help"], aliases: { "-h": "--help" } });
    if (args.switches.has("--help")) {
      out(sub === "inspect" ? INSPECT_USAGE : CHECK_USAGE);
      return 0;
    }
    if (args.positionals.length !== 1) throw new CliUsageError(`forms ${sub} needs exactly one DIR`);
    const dir = args.positionals[0]!;
    let isDirectory = false;
    try {
      isDirectory = statSync(dir).isDirectory();
    } catch {
      isDirectory = false;
    }
    if (!isDirectory) throw new CliUsageError(`${dir} is not a directory`);

    const io = new Console(args);
    const catalog = readForms(dir, { fixtures: sub === "check" });
    const diagnostics = [...catalog.diagnostics];
    if (!io.json) io.diagnostics(diagnostics);
    if (sub === "inspect") {
      if (io.json)
        io.emitJson({ command: "forms inspect", ok: diagnostics.length === 0, ...inspectJson(catalog), diagnostics: diagnosticsToJson(diagnostics) });
      else out(inspectText(catalog));
      return diagnostics.length > 0 ? 1 : 0;
    }
    const verdicts = catalog.fixtures ?? [];
    const failed = verdicts.filter((v) => !v.ok).length;
    const ok = diagnostics.length === 0 && failed === 0;
    if (io.json) io.emitJson({ command: "forms check", ok, ...checkJson(verdicts), diagnostics: diagnosticsToJson(diagnostics) });
    else out(checkText(verdicts, catalog));
    return ok ? 0 : 1;
  },
};

function relationJson(r: Relation) {
  return {
    pointer: r.pointer,
    target: { apiVersion: r.target.apiVersion, kind: r.target.kind },
    required: r.required,
    binding: r.binding,
    targetFormRefs: r.targetFormRefs,
    requiredInterface: r.requiredInterface,
  };
}

function inspectJson(catalog: FormsReport) {
  return {
    definitions: catalog.definitions.map((form) => ({
      path: form.path,
      formRef: {
        apiVersion: form.formRef.apiVersion,
        kind: form.formRef.kind,
        definitionVersion: form.formRef.definitionVersion,
        schemaDigest: form.formRef.schemaDigest,
      },
      packageDigest: form.packageDigest,
      role: form.role,
      lifecycleCapabilities: [...form.lifecycleCapabilities],
      relations: form.relations.map(relationJson),
    })),
    interfaces: catalog.interfaces.map((i) => ({ path: i.path, ref: i.ref })),
    bindings: catalog.bindings.map((b) => ({ path: b.path, ref: b.ref })),
  };
}

function checkJson(verdicts: readonly FixtureVerdict[]) {
  const passed = verdicts.filter((v) => v.ok).length;
  return {
    fixtures: verdicts.map((v) => ({ form: v.form, fixture: v.fixture, expected: v.expected, actual: v.actual, ok: v.ok })),
    passed,
    failed: verdicts.length - passed,
  };
}

function short(digest: string | null): string {
  return digest === null ? "-" : `${digest.slice(0, 19)}…`;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ");
  return [line(header), ...rows.map(line)].join("\n");
}

function relationText(r: Relation): string {
  const contract =
    r.requiredInterface !== null
      ? `requires ${r.requiredInterface.name}@${r.requiredInterface.version} ${short(r.requiredInterface.schemaDigest)}`
      : `pins ${(r.targetFormRefs ?? []).map((ref) => `${ref.kind}@${ref.definitionVersion} ${short(ref.schemaDigest)}`).join(", ")}`;
  const binding = r.binding === null ? "" : `  binding ${r.binding}`;
  return `    ${r.pointer} → ${r.target.apiVersion} ${r.target.kind}  ${r.required ? "required" : "optional"}  ${contract}${binding}`;
}

function inspectText(catalog: FormsReport): string {
  const parts: string[] = [];
  parts.push(`Form Definitions (${catalog.definitions.length})`);
  parts.push(
    table(
      ["PATH", "FORM", "ROLE", "UPDATE", "SCHEMA DIGEST", "PACKAGE DIGEST"],
      catalog.definitions.map((f) => [
        f.path,
        `${f.formRef.apiVersion} ${f.formRef.kind}@${f.formRef.definitionVersion}`,
        f.role,
        f.declaresUpdate ? "yes" : "no",
        short(f.formRef.schemaDigest),
        short(f.packageDigest),
      ]),
    ),
  );
  const withRelations = catalog.definitions.filter((f) => f.relations.length > 0);
  const relationCount = catalog.definitions.reduce((n, f) => n + f.relations.length, 0);
  parts.push("", `Relations (${relationCount})`);
  for (const form of withRelations) {
    parts.push(`  ${form.formRef.kind}@${form.formRef.definitionVersion} (${form.path})`);
    for (const relation of form.relations) parts.push(relationText(relation));
  }
  parts.push("", `Interface Definitions (${catalog.interfaces.length})`);
  parts.push(
    table(
      ["PATH", "INTERFACE", "SCHEMA DIGEST"],
      catalog.interfaces.map((i) => [i.path, `${i.ref.name}@${i.ref.version}`, short(i.ref.schemaDigest)]),
    ),
  );
  parts.push("", `Binding Definitions (${catalog.bindings.length})`);
  parts.push(
    table(
      ["PATH", "BINDING", "SCHEMA DIGEST"],
      catalog.bindings.map((b) => [b.path, `${b.ref.name}@${b.ref.version}`, short(b.ref.schemaDigest)]),
    ),
  );
  if (catalog.diagnostics.length > 0) parts.push("", `${catalog.diagnostics.length} problem(s); see the diagnostics on stderr`);
  return parts.join("\n");
}

function checkText(verdicts: readonly FixtureVerdict[], catalog: FormsReport): string {
  const lines: string[] = [];
  for (const v of verdicts) {
    const status = v.ok ? "ok  " : "FAIL";
    const detail = v.ok ? v.actual : v.error !== undefined ? `error: ${v.error}` : `expected ${v.expected}, got ${v.actual}`;
    lines.push(`${status}  ${v.form}  ${v.fixture}  ${detail}`);
    if (!v.ok) for (const violation of v.violations ?? []) lines.push(`        ${violation.pointer || "/"} ${violation.keyword}: ${violation.message}`);
  }
  const passed = verdicts.filter((v) => v.ok).length;
  lines.push(
    `${verdicts.length} fixture(s) in ${catalog.definitions.length} Form(s): ${passed} passed, ${verdicts.length - passed} failed; ${catalog.diagnostics.length} definition problem(s)`,
  );
  return lines.join("\n");
}
