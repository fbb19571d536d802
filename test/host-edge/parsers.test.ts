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
    for (const ok of ["*/5 * * * *", "0 * * * *", "0 9-17 * * 1-5", "0-59/59 0-23/23 1-31/30 1-12/11 0-6/6", "05 07 * * *"])
      expect(cronProblem(ok), ok).toBeUndefined();
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
    expect(handlers("export default { fetch() {}, fetch: null, queue: undefined, __proto__: { scheduled() {} } };")).toMatchObject({
      resolved: true,
      handlers: [],
    });
    expect(handlers("const a = { fetch: 1 };\nexport default { ...a, fetch() {} };")).toMatchObject({ handlers: ["fetch"] });
  });

  it("follows consts through names, with cycles and unresolvable spreads contributing nothing", () => {
    expect(handlers("const a = { fetch() {} };\nconst b = a;\nexport default b;")).toMatchObject({ resolved: true, handlers: ["fetch"] });
    expect(handlers("const a = b;\nconst b = a;\nexport default a;")).toMatchObject({ resolved: false });
    expect(handlers("import x from './x.js';\nexport default { ...x, queue() {} };")).toMatchObject({ resolved: true, handlers: ["queue"] });
    expect(handlers("export default { [name]: () => {}, [`s${1}`]: () => {}, fetch() {} };")).toMatchObject({ handlers: ["fetch"] });
  });

  it("a member value counts only when it statically resolves to something callable", () => {
    expect(handlers("export default { fetch: 'x', scheduled: [], queue: {} };")).toMatchObject({ resolved: true, handlers: [] });
    // A member of an object the host cannot resolve is unknown, not "maybe a function".
    expect(handlers("const h = {};\nexport default { fetch: h.fetch, scheduled: async function () {}, queue: (b) => b };")).toMatchObject({
      handlers: ["queue", "scheduled"],
    });
    expect(handlers("const h = { fetch() {} };\nexport default { fetch: h.fetch, scheduled: h['fetch'], queue: h.queue };")).toMatchObject({
      handlers: ["fetch", "scheduled"],
    });
    expect(handlers("export default { fetch: make(), scheduled: new Handler() };")).toMatchObject({ resolved: true, handlers: [] });
    expect(handlers("export default { fetch: function () {}.bind(null), queue: class {}, scheduled: undefined };")).toMatchObject({ handlers: ["queue"] });
    // Getters and setters are unknown: the host does not run a getter to see what it returns.
    expect(handlers("const f = () => {};\nexport default { get fetch() { return f; }, set queue(v) {} };")).toMatchObject({ resolved: true, handlers: [] });
  });

  it("names resolve only through top-level function and class declarations, consts, and a let or var bound once and never written", () => {
    const cases: [string, string[]][] = [
      ["const notAFunction = 42;\nexport default { fetch: notAFunction };", []],
      ["const s = 'x';\nexport default { fetch: s };", []],
      ["import { h } from './other.js';\nexport default { fetch: h };", []],
      ["import h from './other.js';\nexport default { fetch: h };", []],
      ["let h = () => {};\nexport default { fetch: h };", ["fetch"]],
      ["var h = () => {};\nexport default { fetch: h };", ["fetch"]],
      ["let h = () => {};\nh = 1;\nexport default { fetch: h };", []],
      ["var h = () => {};\nfunction f() { h++; }\nexport default { fetch: h };", []],
      ["var h = () => {};\nvar h = 1;\nexport default { fetch: h };", []],
      ["var h;\nh = () => {};\nexport default { fetch: h };", []],
      ["export default { fetch: doesNotExist, queue: globalThis.queue };", []],
      ["function h() {}\nclass C {}\nexport default { fetch: h, queue: C };", ["fetch", "queue"]],
      ["export default { fetch: h };\nfunction h() {}", ["fetch"]],
      ["export default { fetch: C };\nclass C {}", []],
      ["export default { fetch: h };\nconst h = () => {};", []],
      ["function h() {}\nh = 1;\nexport default { fetch: h };", []],
      ["function h() {}\nfunction later() { [h] = [1]; }\nexport default { fetch: h };", []],
      ["class C {}\nC++;\nexport default { fetch: C };", []],
      ["const a = () => {};\nconst b = a;\nconst c = b;\nexport default { fetch: c };", ["fetch"]],
      ["const a = () => {};\nconst b = a, c = b;\nexport default { fetch: c };", ["fetch"]],
      ["const K = 'fetch';\nconst L = K;\nexport default { [L]: () => {} };", ["fetch"]],
      ["const h = () => {};\nfunction f() { eval('h = 1'); }\nexport default { fetch: h, queue() {} };", ["queue"]],
    ];
    for (const [source, exported] of cases) expect(handlers(source), source).toMatchObject({ resolved: true, handlers: exported });
  });

  it("bundler output: esbuild's `var src_default = { … }; export { src_default as default }` is read like a const", () => {
    expect(
      handlers(
        "var src_default = {\n  async fetch(request, env) { return new Response('ok'); },\n  scheduled() {}\n};\nexport {\n  src_default as default\n};",
      ),
    ).toMatchObject({ resolved: true, handlers: ["fetch", "scheduled"] });
    expect(handlers("async function handle(r) { return r; }\nvar src_default = { fetch: handle };\nexport { src_default as default };")).toMatchObject({
      resolved: true,
      handlers: ["fetch"],
    });
    expect(handlers("var app = { fetch() {} };\ndelete app.fetch;\nexport default app;")).toMatchObject({ handlers: [] });
    expect(handlers("var app = { fetch() {} };\nconst b = app;\napp = {};\nexport default b;")).toMatchObject({ resolved: false, handlers: [] });
    expect(handlers("const app = { fetch() {} };\nlet other = app;\nother = {};\nconst b = other;\nexport default b;")).toMatchObject({
      resolved: false,
      handlers: [],
    });
    expect(handlers("const app = { fetch() {} };\nvar other = app;\nexport default other;")).toMatchObject({ resolved: true, handlers: ["fetch"] });
  });

  it("a const alias chain is followed up to 64 steps", () => {
    const chain = (n: number) =>
      `const a0 = () => {};\n${Array.from({ length: n }, (_, i) => `const a${i + 1} = a${i};`).join("\n")}\nexport default { fetch: a${n} };`;
    expect(handlers(chain(64)).handlers).toEqual(["fetch"]);
    expect(handlers(chain(65)).handlers).toEqual([]);
    const objects = (n: number) => `const a0 = { fetch() {} };\n${Array.from({ length: n }, (_, i) => `const a${i + 1} = a${i};`).join("\n")}\n`;
    expect(handlers(`${objects(64)}export default a64;`).handlers).toEqual(["fetch"]);
    expect(handlers(`${objects(65)}export default a65;`)).toMatchObject({ resolved: false, reason: expect.stringMatching(/more than 64 const aliases/) });
    // An alias past the bound is not tracked, so using it is an escape of the object it aliases.
    expect(handlers(`${objects(65)}a65.fetch = 1;\nexport default a0;`).handlers).toEqual([]);
  });

  it("an unresolvable spread or computed key makes every earlier member unknown", () => {
    expect(handlers("export default { fetch() {}, ...makeOverrides() };")).toMatchObject({ resolved: true, handlers: [] });
    expect(handlers("export default { fetch() {}, ...makeOverrides(), queue() {} };")).toMatchObject({ handlers: ["queue"] });
    expect(handlers("export default { fetch() {}, [key]: 1, queue() {} };")).toMatchObject({ handlers: ["queue"] });
    expect(handlers("const base = { queue() {} };\nexport default { fetch() {}, ...base, ...null };")).toMatchObject({ handlers: ["fetch", "queue"] });
    expect(handlers("const base = { fetch: 1 };\nexport default { fetch() {}, ...base };")).toMatchObject({ handlers: [] });
  });

  it("a const literal loses a member the module writes or deletes, and all of them when it escapes", () => {
    const app = "const app = { fetch() {}, queue() {} };\n";
    const cases: [string, string[]][] = [
      ["delete app.fetch;", ["queue"]],
      ["app.fetch = 42;", ["queue"]],
      ['app["fetch"] = 42;', ["queue"]],
      ["app.fetch ??= 1;", ["queue"]],
      ["app.fetch++;", ["queue"]],
      ["[app.fetch] = [1];", ["queue"]],
      ["({ x: app.fetch } = {});", ["queue"]],
      ["for (app.fetch of []);", ["queue"]],
      ["delete app?.fetch;", ["queue"]],
      ["function later() { app.fetch = 1; }", ["queue"]],
      ["function shadow(app) { app.fetch = 1; }", ["queue"]],
      ["const same = app;\nsame.fetch = 1;", ["queue"]],
      ["app[key] = 1;", []],
      ["Object.assign(app, {});", []],
      ["Object.defineProperty(app, 'fetch', { value: 1 });", []],
      ["register(app);", []],
      ["let other = app;\nother.fetch = 1;", ["queue"]],
      ["let other = app;\nregister(other);", []],
      ["function f() { let other = app; }", []],
      ["const list = [app];", []],
      ["const { fetch } = app;", []],
      ["app.fetch.x = 1;\nconsole.log(app.queue, typeof app, app === null);", ["fetch", "queue"]],
    ];
    for (const [use, exported] of cases) {
      expect(handlers(`${app}${use}\nexport default app;`), use).toMatchObject({ resolved: true, handlers: exported });
      expect(handlers(`${app}export { app as default };\n${use}`), use).toMatchObject({ resolved: true, handlers: exported });
    }
    // The same holds for a literal read through a spread or a member.
    expect(handlers(`${app}app.fetch = 1;\nexport default { ...app };`)).toMatchObject({ handlers: ["queue"] });
    expect(handlers(`${app}delete app.fetch;\nexport default { fetch: app.fetch, queue: app.queue };`)).toMatchObject({ handlers: ["queue"] });
  });

  it("a method call hands the object to the method as this", () => {
    const cases: [string, string[]][] = [
      ["const app = { fetch(r) { return app.route(r); }, route() { return this.name; } };", ["fetch", "route"]],
      ["const app = { fetch() {}, route: () => 1 };\napp.route();", ["fetch", "route"]],
      ["const app = { fetch() {}, init() { this.fetch = 1; } };\napp.init();", []],
      ["const app = { fetch() {}, init() { delete this.fetch; } };\napp.init();", []],
      ["const app = { fetch() {}, init() { Object.assign(this, {}); } };\napp.init();", []],
      ["const app = { fetch() {}, init() { const self = this; self.fetch = 1; } };\napp.init();", []],
      ["const app = { fetch() {}, init() { (() => { this.fetch = 1; })(); } };\napp.init();", []],
      ["const app = { fetch() {}, init() { this.other(); } };\napp.init();", []],
      ["const app = { fetch() {}, init() { super.fetch = 1; } };\napp.init();", []],
      ["import init from './init.js';\nconst app = { fetch() {}, init };\napp.init();", []],
      ["const app = { fetch() {}, get x() { this.fetch = 1; } };\napp.x;", []],
      ["const app = { fetch() {}, get x() { return 1; } };\napp.x;", ["fetch"]],
      ["const app = { fetch() {}, __proto__: proto };\napp.x;", []],
    ];
    for (const [source, exported] of cases) expect(handlers(`${source}\nexport default app;`), source).toMatchObject({ resolved: true, handlers: exported });
  });

  it("a default export read before its declaration, or in a module that calls eval, is unreadable", () => {
    expect(handlers("export default app;\nconst app = { fetch() {} };")).toMatchObject({
      resolved: false,
      reason: expect.stringMatching(/read before its declaration/),
    });
    expect(handlers("const app = { fetch() {} };\nfunction f(s) { return eval(s); }\nexport default app;")).toMatchObject({
      resolved: false,
      reason: expect.stringMatching(/eval/),
    });
    expect(handlers("const app = { fetch() {} };\nexport default app;")).toMatchObject({ resolved: true, handlers: ["fetch"] });
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
    expect(handlers("const a = 1;\nlet a = 2;\nexport default { fetch() {} };")).toMatchObject({
      resolved: false,
      reason: expect.stringMatching(/already been declared/),
    });
    expect(handlers("export { missing as default };")).toMatchObject({ resolved: false, reason: expect.stringMatching(/not defined/) });
  });
});
