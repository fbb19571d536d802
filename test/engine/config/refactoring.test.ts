// `moved` and `removed` blocks as the loader reads them, and the rules between them that need no
// state (Terraform's ValidateMoves and the removed block's checks), each refusal naming its block.

import { describe, expect, it } from "vitest";
import type { Diagnostic } from "../../../src/core/index.ts";
import { loadStackConfig } from "../../../src/engine/config/index.ts";

const B = "takoform_edge_object_bucket";

function load(extra: Record<string, unknown>, resources: Record<string, unknown> = { kept: { name: "kept" } }) {
  return loadStackConfig(JSON.stringify({ resource: { [B]: resources }, ...extra }));
}

function refused(extra: Record<string, unknown>, resources?: Record<string, unknown>): Diagnostic[] {
  const loaded = load(extra, resources);
  expect(loaded.config).toBeNull();
  const errors = loaded.diagnostics.filter((d) => d.severity === "error");
  for (const e of errors) expect(e.repair, e.summary).toBeTruthy();
  return errors;
}

describe("moved blocks", () => {
  it("reads what cdktf writes (plain addresses) and Terraform's ${…} spelling, in order", () => {
    const loaded = load({
      moved: [
        { from: `${B}.a`, to: `${B}.kept` },
        { from: `\${${B}.b}`, to: `\${${B}.a}` },
      ],
    });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.config!.moved).toEqual([
      { from: `${B}.a`, to: `${B}.kept`, index: 0 },
      { from: `${B}.b`, to: `${B}.a`, index: 1 },
    ]);
    expect(loaded.config!.removed).toEqual([]);
  });

  it("refuses addresses that are not TYPE.NAME, saying why", () => {
    const errors = refused({
      moved: [
        { from: `${B}.a[0]`, to: `${B}.kept` },
        { from: "module.m.x.y", to: `${B}.kept2` },
        { from: `${B}.c`, to: 3 },
        { from: `${B}.d`, to: `${B}.e`, extra: true },
      ],
    });
    expect(errors.map((e) => [e.code, e.summary])).toEqual([
      ["takoform.config/invalid-moved", "moved[0]: `from` must be a resource address"],
      ["takoform.config/invalid-moved", "moved[1]: `from` must be a resource address"],
      ["takoform.config/invalid-moved", "moved[2]: `to` must be a resource address"],
      ["takoform.config/invalid-moved", 'moved[3]: unsupported argument "extra"'],
    ]);
    expect(errors[0]!.detail).toContain("names an instance key");
    expect(errors[1]!.detail).toContain("names a module");
  });

  it("refuses a redundant move, a move across types, a source still declared, and ambiguous moves", () => {
    const errors = refused(
      {
        moved: [
          { from: `${B}.same`, to: `${B}.same` },
          { from: `${B}.old`, to: "takoform_edge_kv_namespace.old" },
          { from: `${B}.kept`, to: `${B}.elsewhere` },
          { from: `${B}.x`, to: `${B}.y1` },
          { from: `${B}.x`, to: `${B}.y2` },
          { from: `${B}.p`, to: `${B}.q` },
          { from: `${B}.r`, to: `${B}.q` },
        ],
      },
      { kept: { name: "kept" }, q: { name: "q" } },
    );
    expect(errors.map((e) => e.summary)).toEqual([
      `Redundant move statement: moved[0] (${B}.same → ${B}.same)`,
      `Resource type mismatch: moved[1] (${B}.old → takoform_edge_kv_namespace.old)`,
      `Moved object still exists: moved[2] (${B}.kept → ${B}.elsewhere)`,
      `Ambiguous move statements: moved[4] (${B}.x → ${B}.y2)`,
      `Ambiguous move statements: moved[6] (${B}.r → ${B}.q)`,
    ]);
    expect(errors[2]!.detail).toContain(`but that resource is still declared: ${B}.kept.`);
    expect(errors[3]!.detail).toContain(`moved[3] (${B}.x → ${B}.y1) declared that ${B}.x moved to ${B}.y1`);
  });

  it("accepts a chain and an identical repeat; refuses a cycle, naming its blocks", () => {
    const chain = load({
      moved: [
        { from: `${B}.a`, to: `${B}.b` },
        { from: `${B}.b`, to: `${B}.kept` },
        { from: `${B}.a`, to: `${B}.b` },
      ],
    });
    expect(chain.diagnostics).toEqual([]);
    const [cycle] = refused({
      moved: [
        { from: `${B}.a`, to: `${B}.b` },
        { from: `${B}.b`, to: `${B}.c` },
        { from: `${B}.c`, to: `${B}.a` },
        { from: `${B}.z`, to: `${B}.kept` },
      ],
    });
    expect(cycle!.summary).toBe("Cyclic dependency in move statements");
    expect(cycle!.detail).toContain(`moved[0] (${B}.a → ${B}.b), moved[1] (${B}.b → ${B}.c), moved[2] (${B}.c → ${B}.a)`);
  });
});

describe("removed blocks", () => {
  it("reads destroy from lifecycle as an object or a list of one; destroy defaults to true", () => {
    const loaded = load({
      removed: [{ from: `${B}.a`, lifecycle: { destroy: false } }, { from: `${B}.b`, lifecycle: [{ destroy: false }] }, { from: `${B}.c` }],
    });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.config!.removed).toEqual([
      { from: `${B}.a`, destroy: false, index: 0 },
      { from: `${B}.b`, destroy: false, index: 1 },
      { from: `${B}.c`, destroy: true, index: 2 },
    ]);
  });

  it("refuses a declared address, provisioners, a bad destroy, and an address also moved or removed twice", () => {
    const errors = refused({
      removed: [
        { from: `${B}.kept`, lifecycle: { destroy: false } },
        { from: `${B}.a`, provisioner: [{ "local-exec": { command: "x" } }] },
        { from: `${B}.b`, lifecycle: { destroy: "no" } },
        { from: `${B}.c`, lifecycle: { destroy: false } },
        { from: `${B}.d` },
        { from: `${B}.d` },
      ],
      moved: [{ from: `${B}.c`, to: `${B}.e` }],
    });
    expect(errors.map((e) => e.summary)).toEqual([
      'removed[1]: unsupported argument "provisioner"',
      "removed[2]: `lifecycle.destroy` must be true or false",
      "Removed resource still exists: removed[0]",
      "Conflicting refactoring blocks: removed[3]",
      "Conflicting refactoring blocks: removed[5]",
    ]);
  });
});
