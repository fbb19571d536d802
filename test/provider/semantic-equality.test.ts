// Semantic equality (docs/provider.md §2): a JSON-text attribute in another spelling and a set in
// another order plan no change against prior, so an import followed by the matching config — or a
// reordered config of an existing immutable revision — is empty instead of a refused replacement.

import { describe, expect, it } from "vitest";
import { encodeSpec } from "../../src/provider/codec/encode.ts";
import { deriveRevisionName } from "../../src/provider/revision/names.ts";
import { semanticallyEqual } from "../../src/provider/semantic.ts";
import { bundledCodecTable } from "../../src/registry/bundled.ts";
import { converge, EDGE, errorsOf, mustRead, servingStack, show, useRig, workerStack } from "./harness.ts";

const VERSION = "takoform_worker_version";

describe("semanticallyEqual", () => {
  it("JSON text by its normalized document, sets by their elements, anything else exactly", () => {
    const json = { kind: "json" } as const;
    expect(semanticallyEqual(json, '{"B":2,"A":"x&y<z>"}', '{"A":"x\\u0026y\\u003cz\\u003e","B":2}')).toBe(true);
    expect(semanticallyEqual(json, '{"A":{"d":1,"c":[1,2]}}', '{ "A" : { "c" : [1, 2], "d" : 1.0 } }')).toBe(true);
    expect(semanticallyEqual(json, '{"A":[1,2]}', '{"A":[2,1]}')).toBe(false);
    expect(semanticallyEqual(json, '{"A":1}', '{"A":"1"}')).toBe(false);
    expect(semanticallyEqual(json, "{not json", "{not json")).toBe(true);
    expect(semanticallyEqual(json, "{not json", "{}")).toBe(false);
    const set = { kind: "set", element: { kind: "string" } } as const;
    expect(semanticallyEqual(set, ["scheduled", "fetch"], ["fetch", "scheduled"])).toBe(true);
    expect(semanticallyEqual(set, ["fetch", "fetch"], ["fetch"])).toBe(true);
    expect(semanticallyEqual(set, ["fetch"], ["fetch", "scheduled"])).toBe(false);
    const list = { kind: "list", element: { kind: "string" } } as const;
    expect(semanticallyEqual(list, ["a", "b"], ["b", "a"])).toBe(false);
  });

  it("the derived revision name does not depend on key order or set order in config", () => {
    const codec = bundledCodecTable().defaultCreate({ apiVersion: EDGE, kind: "WorkerVersion" }).codec;
    const base = { worker: "counter", bundle: "b", secret_names: null, required_sensitive_vars: null, bindings: null };
    const attrs = (vars: string, handlers: string[]) => {
      const out: Record<string, unknown> = { ...base, vars_json: vars, handlers };
      for (const f of codec.fields) if (!(f.attribute in out)) out[f.attribute] = null;
      return out as never;
    };
    const a = encodeSpec(codec, attrs('{"A":"x&y","B":{"d":1,"c":2}}', ["fetch", "scheduled"]));
    const b = encodeSpec(codec, attrs('{"B":{"c":2,"d":1},"A":"x\\u0026y"}', ["scheduled", "fetch", "fetch"]));
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
    expect(deriveRevisionName(codec, "counter", b.spec)).toBe(deriveRevisionName(codec, "counter", a.spec));
  });
});

describe("plans against host-normalized state", () => {
  const r = useRig({ async: "never" });

  it("import then plan with vars holding & < > and unsorted keys plans no change", async () => {
    const vars = JSON.stringify({ Z_LAST: "1", API_URL: "https://api.example/x?a=1&b=<2>" });
    const stack = await workerStack(r, "counter", { vars_json: vars });
    const name = stack.version.attributes["name"] as string;
    const imported = await mustRead(r, (await r.provider.importState(VERSION, name)).state!);
    expect(imported.attributes["vars_json"]).not.toBe(vars); // the host's spelling
    const before = r.mutations().length;
    const out = await converge(
      r,
      VERSION,
      { name, worker: "counter", bundle: stack.bundle.attributes["name"], handlers: ["fetch"], vars_json: vars },
      imported,
    );
    expect(errorsOf(out.diagnostics), show(out.diagnostics)).toEqual([]);
    expect(out.action).toBe("no-op");
    expect(out.plan.requiresReplace).toEqual([]);
    expect(out.plan.planned!["vars_json"]).toBe(imported.attributes["vars_json"]);
    expect(r.mutations().length).toBe(before);
    // With an owner instead of a pinned name: the same derived name, only the owner recorded.
    const owned = await converge(
      r,
      VERSION,
      { revision_owner: "counter", worker: "counter", bundle: stack.bundle.attributes["name"], handlers: ["fetch"], vars_json: vars },
      imported,
    );
    expect(errorsOf(owned.diagnostics), show(owned.diagnostics)).toEqual([]);
    expect(owned.plan.requiresReplace).toEqual([]);
    expect(owned.plan.planned!["name"]).toBe(name);
    expect(r.mutations().length).toBe(before);
  });

  it("import then plan with handlers in another order than the host's plans no change", async () => {
    const stack = await servingStack(r, ["scheduled", "fetch"]);
    const name = stack.version.attributes["name"] as string;
    const imported = await mustRead(r, (await r.provider.importState(VERSION, name)).state!);
    expect(imported.attributes["handlers"]).toEqual(["fetch", "scheduled"]);
    const before = r.mutations().length;
    const out = await converge(r, VERSION, { name, worker: "counter", bundle: stack.bundle.attributes["name"], handlers: ["scheduled", "fetch"] }, imported);
    expect(errorsOf(out.diagnostics), show(out.diagnostics)).toEqual([]);
    expect(out.action).toBe("no-op");
    expect(r.mutations().length).toBe(before);
  });

  it("reordered vars_json keys on an existing version plan as a no-op", async () => {
    const stack = await workerStack(r, "counter", { vars_json: '{"A":1,"B":2}' });
    const config = { revision_owner: "counter", worker: "counter", bundle: stack.bundle.attributes["name"], handlers: ["fetch"], vars_json: '{"B":2,"A":1}' };
    const plan = await r.provider.plan({ type: VERSION, address: `${VERSION}.test`, prior: stack.version, config });
    expect(errorsOf(plan.diagnostics), show(plan.diagnostics)).toEqual([]);
    expect(plan.requiresReplace).toEqual([]);
    expect(plan.planned).toEqual(stack.version.attributes);
    // A real change still plans a replacement under a new derived name.
    const changed = await r.provider.plan({
      type: VERSION,
      address: `${VERSION}.test`,
      prior: stack.version,
      config: { ...config, vars_json: '{"B":3,"A":1}' },
    });
    expect(changed.requiresReplace).toContainEqual(["vars_json"]);
    expect(changed.planned!["name"]).not.toBe(stack.version.attributes["name"]);
  });
});
