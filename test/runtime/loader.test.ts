// loadModule through the loader adapter (takoform.runtime-abi-loader@v1), with this project's own
// bundles sent exactly as upstream's runner sends them (loader-request.ts): the exported set is
// read from the bytes, and each failure is one of the closed codes, answered in the shapes of
// upstream's fake runtime. The adapter exists only in conformance mode: a normal host answers it
// as an unknown route.

import { describe, expect, it } from "vitest";
import { RUNTIME_ABI_LOADER_PROTOCOL } from "../../src/core/index.ts";
import { DEV_TOKEN } from "../../src/host/index.ts";
import { startRuntimeHost, useRuntimeHost } from "./harness.ts";
import { exported, loadRefused, postLoad, upstreamLoadBody, type LoadAnswer } from "./loader-request.ts";

const JS = "application/javascript+module";

interface Module {
  name: string;
  mediaType: string;
  text: string;
}

// Every load starts an isolate (a process), about 0.25 s each on an idle machine: the two tests
// that load a dozen bundles get room for a loaded one.
describe("the loader adapter", () => {
  const ctx = useRuntimeHost({ conformance: true });
  const post = (body: string): Promise<LoadAnswer> => postLoad(`${ctx.rt.url}/_takoform/runtime/load-module`, DEV_TOKEN.token, body);
  /** The answer's body, after checking its status and type go with it (200 loaded, 422 refused). */
  const load = async (mainModule: string, declaredHandlers: string[] | null, modules: Module[]): Promise<unknown> => {
    const answer = await post(
      upstreamLoadBody(
        mainModule,
        declaredHandlers,
        modules.map((m) => ({ ...m, bytes: new TextEncoder().encode(m.text) })),
      ),
    );
    expect(answer.contentType).toBe("application/json");
    expect(answer.status).toBe((answer.body as { error?: unknown }).error === undefined ? 200 : 422);
    return answer.body;
  };
  const all = `export default { fetch() {}, async scheduled() {}, queue: async () => {} };`;

  it("reports what the bytes export, whatever the version declares", async () => {
    expect(await load("index.js", ["fetch"], [{ name: "index.js", mediaType: JS, text: all }])).toEqual(exported(["fetch", "scheduled", "queue"]));
    expect(await load("index.js", [], [{ name: "index.js", mediaType: JS, text: `export default { fetch: 1, get queue() { return () => {}; } };` }])).toEqual(
      exported([]),
    );
    // A nil slice, as Go encodes it, declares nothing.
    expect(await load("index.js", null, [{ name: "index.js", mediaType: JS, text: all }])).toEqual(exported(["fetch", "scheduled", "queue"]));
    // Exports decided at run time count too: the runtime evaluates the module.
    expect(
      await load(
        "index.js",
        ["fetch"],
        [{ name: "index.js", mediaType: JS, text: `const app = {}; app["fe" + "tch"] = () => new Response("ok"); export default app;` }],
      ),
    ).toEqual(exported(["fetch"]));
  }, 120_000);

  it("answers each failure with its closed code", async () => {
    const index: Module = { name: "index.js", mediaType: JS, text: all };
    expect(await load("index.js", ["fetch"], [index, { name: "page.html", mediaType: "text/html", text: "<p>" }])).toEqual(
      loadRefused("unsupported_media_type"),
    );
    expect(await load("worker.js", ["fetch"], [index])).toEqual(loadRefused("module_not_found"));
    expect(await load("index.js", ["fetch"], [{ name: "index.js", mediaType: JS, text: "export default {" }])).toEqual(loadRefused("module_syntax_error"));
    expect(await load("index.js", ["fetch", "queue"], [{ name: "index.js", mediaType: JS, text: `export default { fetch() {} };` }])).toEqual(
      loadRefused("handler_not_exported"),
    );
    expect(
      await load("index.js", ["fetch"], [{ name: "index.js", mediaType: JS, text: `import x from "./missing.js"; export default { fetch() {} };` }]),
    ).toEqual(loadRefused("module_not_found"));
    expect(await load("index.js", ["fetch"], [{ name: "index.js", mediaType: JS, text: `import fs from "node:fs"; export default { fetch() {} };` }])).toEqual(
      loadRefused("module_not_found"),
    );
    // A source map is carried, never loaded: importing one, or naming one as main, is unsupported_media_type.
    const map: Module = { name: "index.js.map", mediaType: "application/source-map+json", text: "{}" };
    expect(
      await load("index.js", ["fetch"], [{ name: "index.js", mediaType: JS, text: `import m from "./index.js.map"; export default { fetch() {} };` }, map]),
    ).toEqual(loadRefused("unsupported_media_type"));
    expect(await load("index.js.map", ["fetch"], [index, map])).toEqual(loadRefused("unsupported_media_type"));
    expect(await load("index.js", ["fetch"], [index, map])).toEqual(exported(["fetch", "scheduled", "queue"]));
    // A declared name outside the handler vocabulary is one the bytes cannot export.
    expect(await load("index.js", ["fetch", "tail"], [index])).toEqual(loadRefused("handler_not_exported"));
  }, 120_000);

  it("refuses content that is not padded base64 as module_syntax_error, as upstream's loader does", async () => {
    const body = upstreamLoadBody("index.js", ["fetch"], [{ name: "index.js", mediaType: JS, bytes: new Uint8Array() }]).replace(
      '"contentBase64":""',
      '"contentBase64":"ZXhwb3J0IGRlZmF1bHQge30"',
    );
    const answer = await post(body);
    expect(answer).toEqual({ status: 422, contentType: "application/json", body: loadRefused("module_syntax_error") });
    expect((answer.body as { error: { message: string } }).error.message).toBe("module index.js content is not padded base64 (RFC 4648 §4)");
  });

  it("answers a body that is not a request of the protocol with the Host API's invalid_argument, naming what is wrong", async () => {
    const index = { name: "index.js", mediaType: JS, bytes: new TextEncoder().encode(all) };
    const cases: [string, string][] = [
      ["not json", "the body must be a JSON object"],
      [
        upstreamLoadBody("index.js", ["fetch"], [index]).replace(`"protocol":"${RUNTIME_ABI_LOADER_PROTOCOL}",`, ""),
        `protocol must be "${RUNTIME_ABI_LOADER_PROTOCOL}"`,
      ],
      [
        upstreamLoadBody("index.js", ["fetch"], [index]).replace(RUNTIME_ABI_LOADER_PROTOCOL, "takoform.runtime-abi-loader@v2"),
        `protocol must be "${RUNTIME_ABI_LOADER_PROTOCOL}"`,
      ],
      // This project's earlier spelling (`content`) is not the protocol's.
      [
        upstreamLoadBody("index.js", ["fetch"], [index]).replace('"contentBase64"', '"content"'),
        "modules[0] needs name, mediaType and contentBase64 (strings)",
      ],
      [
        upstreamLoadBody("index.js", ["fetch"], [index]).replace('"declaredHandlers":["fetch"]', '"declaredHandlers":"fetch"'),
        "declaredHandlers must be a list of strings",
      ],
    ];
    for (const [body, message] of cases) {
      const answer = await post(body);
      expect(answer.status, body).toBe(400);
      expect(answer.body, body).toMatchObject({ error: { code: "invalid_argument", message: `${RUNTIME_ABI_LOADER_PROTOCOL}: ${message}` } });
    }
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
