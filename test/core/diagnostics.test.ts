// The one diagnostics path (issue 15 item 1): the collection runs append to, the one table of
// codes every layer declares its own in, and the renderers in core.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  declaredCodes,
  defineCodes,
  diagnosticsToJson,
  diagnosticToJson,
  Diagnostics,
  isDeclaredCode,
  renderDetail,
  renderDiagnostics,
  type Diagnostic,
} from "../../src/core/index.ts";
import { importGraph } from "../architecture/imports.ts";
// Each layer's table is declared when its module loads.
import { ENGINE_CODES } from "../../src/engine/index.ts";
import { CONFIG_CODES } from "../../src/engine/config/index.ts";
import { HOST_CODE_REPAIRS, PROVIDER_CODES } from "../../src/provider/index.ts";
import { DEFINITION_ERROR_CODES } from "../../src/forms/index.ts";
import { GENERATE_ERROR_CODES } from "../../src/generate/index.ts";
import { CLI_CODES, cliCode } from "../../src/cli/codes.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

const finding = (summary: string, extra: Partial<Diagnostic> = {}): Diagnostic => ({ severity: "error", summary, ...extra });

describe("Diagnostics", () => {
  it("keeps one of each finding, ungrouped first and then by group, whatever order they came in", () => {
    const a = finding("a", { address: "x.b" });
    const b = finding("b", { address: "x.a" });
    const global = { ...finding("global"), severity: "warning" as const };
    const forward = new Diagnostics()
      .append(a, "x.b")
      .append([b, { ...b }], "x.a")
      .append(global)
      .append(global);
    const backward = new Diagnostics()
      .append(global)
      .append([b], "x.a")
      .append([a, { ...a }], "x.b");
    expect(forward.toArray()).toEqual([global, b, a]);
    expect(backward.toArray()).toEqual([global, b, a]);
    expect(forward.hasErrors()).toBe(true);
    expect(new Diagnostics().append(global).hasErrors()).toBe(false);
  });

  it("swaps what an earlier pass filed under a group for a new pass's findings", () => {
    const first = [finding("old")];
    const list = new Diagnostics().append(first, "r");
    list.replace("r", first, [finding("new")]);
    expect(list.toArray().map((d) => d.summary)).toEqual(["new"]);
    list.replace("r", list.toArray(), []);
    expect(list.hasErrors()).toBe(false);
  });
});

describe("identical findings on many resources collapse into one (issue 14 item 6)", () => {
  const denied = (i: number): Diagnostic =>
    finding("Failed to create EdgeKVNamespace", {
      address: `kv.k${i}`,
      resourceType: "kv",
      name: `k${i}`,
      code: "takoform.provider/x",
      cause: `PUT /resources/k${i}: refused`,
      repair: "Ask for access.",
    });

  it("prints one diagnostic with a count, the first three addresses and the first cause; different findings stay apart", () => {
    const other = finding("Another problem", { address: "kv.k1", repair: "Ask for access." });
    const list = new Diagnostics()
      .append([denied(0), denied(1), denied(2), denied(3), denied(4)])
      .append(other)
      .append(finding("no resource"));
    expect(list.collapsed().map((g) => g.members.length)).toEqual([5, 1, 1]);
    const text = renderDiagnostics(list.toArray());
    expect(text).toHaveLength(3);
    expect(text[0]).toContain("with kv.k0, kv.k1, kv.k2 and 2 more (5 resources),");
    expect(text[0]).toContain("Cause: (kv.k0) PUT /resources/k0: refused");
    expect(text[0]).not.toContain("Resource:");
    expect(text[0]).not.toContain("k4");
    expect(text[1]).toContain("with kv.k1,");
  });

  it("JSON keeps every diagnostic and marks each member of a group with the index of the printed one and the count", () => {
    const json = diagnosticsToJson([finding("alone"), denied(0), denied(1), denied(2)]);
    expect(json).toHaveLength(4);
    expect(json[0]!["group"]).toBeUndefined();
    expect(json.slice(1).map((d) => [d["address"], d["group"]])).toEqual([
      ["kv.k0", { first: 1, count: 3 }],
      ["kv.k1", { first: 1, count: 3 }],
      ["kv.k2", { first: 1, count: 3 }],
    ]);
  });
});

describe("the one table of codes", () => {
  it("holds every layer's codes under its own prefix", () => {
    const declared = new Set(declaredCodes());
    const expected = [
      ...ENGINE_CODES.map((n) => `takoform.engine/${n}`),
      ...CONFIG_CODES.map((n) => `takoform.config/${n}`),
      ...PROVIDER_CODES.map((n) => `takoform.provider/${n}`),
      ...DEFINITION_ERROR_CODES.map((n) => `takoform.forms/${n}`),
      ...GENERATE_ERROR_CODES.map((n) => `takoform.generate/${n}`),
      "takoform.generate/stale-output",
      // Codes that used to be defined outside any table.
      "takoform.engine/cycle-unsettled",
      "takoform.engine/cycle-member-unavailable",
    ];
    for (const code of expected) expect(declared.has(code), code).toBe(true);
    expect(isDeclaredCode("takoform.engine/no-such-code")).toBe(false);
  });

  it("leaves the CLI's prefix to the CLI, whose closed list (src/cli/codes.ts) names each code once", () => {
    expect(declaredCodes().filter((code) => code.startsWith("takoform.cli/"))).toEqual([]);
    expect(new Set(CLI_CODES).size).toBe(CLI_CODES.length);
    expect(cliCode("usage")).toBe(["takoform", "cli/usage"].join("."));
  });

  it("refuses a second, different table under a prefix already taken", () => {
    expect(() => defineCodes("engine", ["cycle"])).toThrow(/declared twice/);
    // The same table again (a module evaluated twice) is the same table.
    expect(defineCodes("engine", ENGINE_CODES).code("cycle")).toBe("takoform.engine/cycle");
  });

  it("is the only place a code is written: no source file spells one out", () => {
    const offenders: string[] = [];
    for (const file of importGraph(ROOT).files) {
      // Comments may name a code as an example; code may not.
      const code = readFileSync(`${ROOT}/${file}`, "utf8")
        .split("\n")
        .filter((line) => !/^\s*(\/\/|\/?\*)/.test(line));
      for (const line of code) for (const match of line.matchAll(/["'`]takoform\.[a-z]+\/[a-z][a-z0-9-]*["'`]/g)) offenders.push(`${file}: ${match[0]}`);
    }
    expect(offenders).toEqual([]);
  });
});

describe("the renderers in core", () => {
  it("give a host answer the repair the provider contributed, in text and JSON alike", () => {
    const d = finding("refused", { host: { code: "uid_mismatch", status: 409, retryable: false, protocolInvalid: false, accepted: false } });
    expect(renderDetail(d).split("\n").at(-1)).toBe(HOST_CODE_REPAIRS.uid_mismatch);
    expect(diagnosticToJson(d)["repair"]).toBe(HOST_CODE_REPAIRS.uid_mismatch);
  });

  it("show a file and the pointer into it as one location", () => {
    const d = finding("duplicate member name", { file: "forms/a.json", pointer: "/a", code: "takoform.forms/json-invalid" });
    expect(renderDetail(d)).toBe("File: forms/a.json#/a\nCode: takoform.forms/json-invalid\nRetryable: no");
    expect(renderDetail({ ...d, file: undefined })).toBe("Pointer: /a\nCode: takoform.forms/json-invalid\nRetryable: no");
    expect(diagnosticToJson(d)).toMatchObject({ file: "forms/a.json", pointer: "/a" });
  });
});
