import { describe, it, expect } from "vitest";
import { readFileSync } from "node:fs";
import { surfaceOf, surfaceViolations, type SchemaSurface } from "../../src/generate/index.ts";
import { bundledModel } from "../codec/support.ts";

const baseline = JSON.parse(readFileSync(new URL("./schema-baseline.json", import.meta.url), "utf8")) as SchemaSurface;
const current = () => surfaceOf(bundledModel().lines.map((l) => l.schema));

describe("schema evolution", () => {
  it("row 70: against the committed floor, the surface never removes a type or attribute, retypes, becomes Required, stops being Computed or Sensitive, or adds a Required attribute", () => {
    expect(surfaceViolations(baseline, current())).toEqual([]);
    expect(Object.keys(baseline)).toHaveLength(16);
  });

  it("row 75: the surface renders deterministically", () => {
    expect(JSON.stringify(current())).toBe(JSON.stringify(current()));
    expect(JSON.stringify(surfaceOf([...bundledModel().lines].reverse().map((l) => l.schema)))).toBe(JSON.stringify(current()));
  });

  it("the rule catches each kind of break, and lets additions through", () => {
    const base: SchemaSurface = {
      takoform_widget: {
        name: { mode: "optional-computed", type: "string", sensitive: false },
        size: { mode: "optional", type: "integer", sensitive: false },
        uid: { mode: "computed", type: "string", sensitive: false },
        items: { mode: "optional", type: "list(object{a:string})", sensitive: false },
        "items[].a": { mode: "required", type: "string", sensitive: false },
      },
      takoform_gone: {},
    };
    const now: SchemaSurface = {
      takoform_widget: {
        name: { mode: "optional", type: "string", sensitive: false },
        size: { mode: "required", type: "string", sensitive: false },
        items: { mode: "optional", type: "list(object{a:string})", sensitive: false },
        "items[].a": { mode: "required", type: "string", sensitive: false },
        "items[].b": { mode: "required", type: "string", sensitive: false },
        extra: { mode: "required", type: "string", sensitive: false },
        fine: { mode: "optional", type: "string", sensitive: false },
        block: { mode: "optional", type: "list(object{c:string})", sensitive: false },
        "block[].c": { mode: "required", type: "string", sensitive: false },
      },
      takoform_new: { anything: { mode: "required", type: "string", sensitive: false } },
    };
    expect(surfaceViolations(base, now).sort()).toEqual([
      "takoform_gone: the resource type was removed",
      "takoform_widget.extra: a new Required attribute",
      "takoform_widget.items[].b: a new Required attribute",
      "takoform_widget.name: stopped being Computed",
      "takoform_widget.size: became Required",
      "takoform_widget.size: retyped from integer to string",
      "takoform_widget.uid: the attribute was removed",
    ]);
    expect(surfaceViolations(base, { ...now, takoform_gone: {} }).filter((v) => v.startsWith("takoform_gone"))).toEqual([]);
  });
});
