// The published surface is chosen on purpose (docs/api.md): each entry point's API report is
// checked in under api/, and this test fails when the compiled declarations (dist/, built by the
// global setup) publish anything the report does not say — a name added, removed or changed in
// the same commit without `npm run api`. It also holds the surface to at most 150 names, each
// with a doc comment. API Extractor runs in this process, once per entry (about 15 s in all).

import { describe, expect, it } from "vitest";

interface ApiScript {
  API_ENTRIES: Record<string, string>;
  MAX_NAMES: number;
  extractEntry(name: string, update: boolean): { matched: boolean; problems: string[] };
  surfaceNames(): Record<string, { names: string[]; undocumented: string[] }>;
}
// A JavaScript module without declarations: imported by a computed specifier, typed here.
const script = "../../scripts/api.mjs";
const api = (await import(script)) as ApiScript;

describe("API reports (api/*.api.md)", () => {
  it("lists one report per published entry point", () => {
    expect(Object.keys(api.API_ENTRIES)).toEqual(["index", "automation", "testing", "host", "forms"]);
  });

  for (const name of Object.keys(api.API_ENTRIES)) {
    it(`api/${name}.api.md is what the declarations publish`, () => {
      const { matched, problems } = api.extractEntry(name, false);
      expect(problems, "API Extractor's problems").toEqual([]);
      expect(matched, `api/${name}.api.md is out of date: the published surface changed. Run \`npm run api\` and commit the report with the change.`).toBe(
        true,
      );
    });
  }
});

describe("exported names", () => {
  const entries = api.surfaceNames();

  it(`are at most ${api.MAX_NAMES} across the entry points`, () => {
    const total = Object.values(entries).reduce((n, e) => n + e.names.length, 0);
    expect(total).toBeGreaterThan(0);
    expect(total).toBeLessThanOrEqual(api.MAX_NAMES);
  });

  it("each carry a doc comment", () => {
    const undocumented = Object.fromEntries(Object.entries(entries).map(([name, e]) => [name, e.undocumented]));
    expect(undocumented).toEqual({ index: [], automation: [], testing: [], host: [], forms: [] });
  });
});
