// loadModule through the loader adapter (takoform.runtime-abi-loader@v1), with this project's own
// bundles: the exported set is read from the bytes, and each failure is one of the closed codes.
// The adapter exists only in conformance mode: a normal host answers it as an unknown route.

import { describe, expect, it } from "vitest";
import { DEV_TOKEN } from "../../src/host/index.ts";
import { startRuntimeHost, useRuntimeHost } from "./harness.ts";

const JS = "application/javascript+module";

interface Module {
  name: string;
  mediaType: string;
  text: string;
}

describe("the loader adapter", () => {
  const ctx = useRuntimeHost({ conformance: true });
  const load = async (mainModule: string, declaredHandlers: string[], modules: Module[]): Promise<unknown> => {
    const response = await fetch(`${ctx.rt.url}/_takoform/runtime/load-module`, {
      method: "POST",
      headers: { authorization: `Bearer ${DEV_TOKEN.token}` },
      body: JSON.stringify({
        mainModule,
        declaredHandlers,
        modules: modules.map((m) => ({ name: m.name, mediaType: m.mediaType, content: Buffer.from(m.text).toString("base64") })),
      }),
    });
    expect(response.status).toBe(200);
    return response.json();
  };
  const all = `export default { fetch() {}, async scheduled() {}, queue: async () => {} };`;

  it("reports what the bytes export, whatever the version declares", async () => {
    expect(await load("index.js", ["fetch"], [{ name: "index.js", mediaType: JS, text: all }])).toEqual({ exportedHandlers: ["fetch", "scheduled", "queue"] });
    expect(await load("index.js", [], [{ name: "index.js", mediaType: JS, text: `export default { fetch: 1, get queue() { return () => {}; } };` }])).toEqual({
      exportedHandlers: [],
    });
    // Exports decided at run time count too: the runtime evaluates the module.
    expect(
      await load(
        "index.js",
        ["fetch"],
        [{ name: "index.js", mediaType: JS, text: `const app = {}; app["fe" + "tch"] = () => new Response("ok"); export default app;` }],
      ),
    ).toEqual({ exportedHandlers: ["fetch"] });
  });

  it("answers each failure with its closed code", async () => {
    const index: Module = { name: "index.js", mediaType: JS, text: all };
    expect(await load("index.js", ["fetch"], [index, { name: "page.html", mediaType: "text/html", text: "<p>" }])).toEqual({
      error: { code: "unsupported_media_type" },
    });
    expect(await load("worker.js", ["fetch"], [index])).toEqual({ error: { code: "module_not_found" } });
    expect(await load("index.js", ["fetch"], [{ name: "index.js", mediaType: JS, text: "export default {" }])).toEqual({
      error: { code: "module_syntax_error" },
    });
    expect(await load("index.js", ["fetch", "queue"], [{ name: "index.js", mediaType: JS, text: `export default { fetch() {} };` }])).toEqual({
      error: { code: "handler_not_exported" },
    });
    expect(
      await load("index.js", ["fetch"], [{ name: "index.js", mediaType: JS, text: `import x from "./missing.js"; export default { fetch() {} };` }]),
    ).toEqual({ error: { code: "module_not_found" } });
    expect(await load("index.js", ["fetch"], [{ name: "index.js", mediaType: JS, text: `import fs from "node:fs"; export default { fetch() {} };` }])).toEqual({
      error: { code: "module_not_found" },
    });
    // A source map is carried, never loaded: importing one, or naming one as main, is unsupported_media_type.
    const map: Module = { name: "index.js.map", mediaType: "application/source-map+json", text: "{}" };
    expect(
      await load("index.js", ["fetch"], [{ name: "index.js", mediaType: JS, text: `import m from "./index.js.map"; export default { fetch() {} };` }, map]),
    ).toEqual({ error: { code: "unsupported_media_type" } });
    expect(await load("index.js.map", ["fetch"], [index, map])).toEqual({ error: { code: "unsupported_media_type" } });
    expect(await load("index.js", ["fetch"], [index, map])).toEqual({ exportedHandlers: ["fetch", "scheduled", "queue"] });
  });
});

describe("without conformance mode", () => {
  it("the loader adapter is not there", async () => {
    const rt = await startRuntimeHost();
    try {
      const response = await fetch(`${rt.url}/_takoform/runtime/load-module`, {
        method: "POST",
        headers: { authorization: `Bearer ${DEV_TOKEN.token}` },
        body: "{}",
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code: "invalid_argument", hostCode: "unknown_route" } });
    } finally {
      await rt.close();
    }
  });
});
