// The two parsers behind the Edge rules, called directly for the cases the published schemas
// already refuse before the host's own rule is reached over the wire (a host keeps refusing them
// when an installed schema is laxer), and for the export-resolution corner cases.

import { describe, expect, it } from "vitest";
import { cronProblem } from "../../src/host/rules/edge/cron.ts";
import { canonicalHostname } from "../../src/host/rules/edge/hostname.ts";
import { resolveExports } from "../../src/host/rules/edge/module-exports.ts";

const bytes = (s: string) => new TextEncoder().encode(s);
const handlers = (s: string) => {
  const r = resolveExports(bytes(s));
  return { resolved: r.resolved, handlers: [...r.handlers].sort(), reason: r.resolved ? undefined : r.reason };
};

describe("cron parser", () => {
  it("refuses what the published pattern also refuses", () => {
    expect(cronProblem("5/2 * * * *")).toMatch(/minute term "5\/2" puts a step on a single value/);
    expect(cronProblem("* * * *")).toMatch(/exactly 5 fields/);
    expect(cronProblem("*  * * * *")).toMatch(/minute field is empty|exactly 5 fields/);
    expect(cronProblem("1,,2 * * * *")).toMatch(/empty term/);
    expect(cronProblem("MON * * * *")).toMatch(/not \*, a number or a range/);
    expect(cronProblem("-1 * * * *")).toMatch(/not \*, a number or a range/);
    expect(cronProblem("1-2-3 * * * *")).toMatch(/not \*, a number or a range/);
    expect(cronProblem("*/100 * * * *")).toMatch(/step/);
  });

  it("accepts the portable forms", () => {
    for (const ok of ["*/5 * * * *", "0 * * * *", "0 9-17 * * 1-5", "0-59/59 0-23/23 1-31/30 1-12/11 0-6/6", "05 07 * * *"]) expect(cronProblem(ok), ok).toBeUndefined();
  });
});

describe("hostname canonicalization", () => {
  it("removes one trailing dot and lowercases ASCII only", () => {
    expect(canonicalHostname("API.Example.COM.")).toBe("api.example.com");
    expect(canonicalHostname("api.example.com..")).toBe("api.example.com.");
    expect(canonicalHostname("BÜCHER.example")).toBe("bÜcher.example");
  });
});

describe("default-export resolution", () => {
  it("a later member overrides an earlier one; __proto__ defines no member", () => {
    expect(handlers("export default { fetch() {}, fetch: null, queue: undefined, __proto__: { scheduled() {} } };")).toMatchObject({ resolved: true, handlers: [] });
    expect(handlers("const a = { fetch: 1 };\nexport default { ...a, fetch() {} };")).toMatchObject({ handlers: ["fetch"] });
  });

  it("follows consts through names, with cycles and unresolvable spreads contributing nothing", () => {
    expect(handlers("const a = { fetch() {} };\nconst b = a;\nexport default b;")).toMatchObject({ resolved: true, handlers: ["fetch"] });
    expect(handlers("const a = b;\nconst b = a;\nexport default a;")).toMatchObject({ resolved: false });
    expect(handlers("import x from './x.js';\nexport default { ...x, queue() {} };")).toMatchObject({ resolved: true, handlers: ["queue"] });
    expect(handlers("export default { [name]: () => {}, [`s${1}`]: () => {}, fetch() {} };")).toMatchObject({ handlers: ["fetch"] });
  });

  it("a member value counts only when it may be a function", () => {
    expect(handlers("export default { fetch: 'x', scheduled: [], queue: {} };")).toMatchObject({ resolved: true, handlers: [] });
    expect(handlers("const h = {};\nexport default { fetch: h.fetch, scheduled: async function () {}, queue: (b) => b };")).toMatchObject({ handlers: ["fetch", "queue", "scheduled"] });
    expect(handlers("export default { fetch: make(), scheduled: new Handler() };")).toMatchObject({ resolved: true, handlers: [] });
  });

  it("bytes that are not UTF-8 or not a module export nothing", () => {
    expect(resolveExports(new Uint8Array([0xff, 0xfe, 0x00])).resolved).toBe(false);
    expect(handlers("with (x) {}\nexport default {};")).toMatchObject({ resolved: false, reason: expect.stringMatching(/does not parse/) });
  });
});

describe("parsing cost", () => {
  it("is linear in the number of declarations (a large bundle parses in bounded time), and redeclarations are still refused", () => {
    // 100k top-level declarations: acorn's stock name lists would make this quadratic (tens of seconds).
    const body = Array.from({ length: 50_000 }, (_, i) => `function f${i}(a) { return a + ${i}; }\nconst c${i} = ${i};`).join("\n");
    // CPU time of this process (under 1 s here), so a loaded machine cannot fail the bound.
    const started = process.cpuUsage();
    const result = resolveExports(bytes(`${body}\nexport default { fetch: f1, queue() {} };\n`));
    const used = process.cpuUsage(started);
    expect((used.user + used.system) / 1000).toBeLessThan(8000);
    expect(result).toMatchObject({ resolved: true });
    expect([...result.handlers].sort()).toEqual(["fetch", "queue"]);
    expect(handlers("const a = 1;\nlet a = 2;\nexport default { fetch() {} };")).toMatchObject({ resolved: false, reason: expect.stringMatching(/already been declared/) });
    expect(handlers("export { missing as default };")).toMatchObject({ resolved: false, reason: expect.stringMatching(/not defined/) });
  });
});
