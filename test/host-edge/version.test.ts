// WorkerVersion and WorkerBundle rules over real HTTP: the environment namespace, the runtime
// handler vocabulary, declared handlers actually exported by the bundle's main module (read with
// a parser, the resolvable export shapes and the unresolvable ones), the bundle manifest checks,
// and the support profiles that advertise the runtime ABI.

import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diskForms } from "../host/fixtures.ts";
import { Edge, FULL_MODULE, idempotencyKey, modes, TOKENS } from "./edge.ts";

describe.each(modes())("versions and bundles — $label", (mode) => {
  let edge: Edge;
  beforeAll(async () => {
    edge = await Edge.open(mode);
    await edge.create("ModuleWorker", "vw", {});
    await edge.create("WorkerBundle", "vw-full", { manifestDigest: await edge.bundleDigest(FULL_MODULE) });
    await edge.create("EdgeKVNamespace", "vw-kv", {});
    await edge.create("AtLeastOnceQueue", "vw-queue", { messageRetentionSeconds: 3600 });
  });
  afterAll(async () => edge.close());

  const base = (extra: Record<string, unknown> = {}, handlers = ["fetch"]) => edge.versionSpec({ bundle: "vw-full", worker: "vw", handlers, extra });

  it("binding-name-collision-rejected", async () => {
    const kv = (name: string) => [{ name, resource: edge.to("EdgeKVNamespace", "vw-kv") }];
    const collisions: [Record<string, unknown>, string, RegExp][] = [
      [{ vars: { CACHE: "on" }, kvBindings: kv("CACHE") }, "/spec/kvBindings/0/name", /"CACHE" is already declared at \/vars\/CACHE/],
      [{ vars: { TOKEN: 1 }, requiredSensitiveVars: ["TOKEN"] }, "/spec/requiredSensitiveVars/0", /"TOKEN" is already declared at \/vars\/TOKEN/],
      [
        { kvBindings: kv("SHARED"), queueProducerBindings: [{ name: "SHARED", resource: edge.to("AtLeastOnceQueue", "vw-queue") }] },
        "/spec/queueProducerBindings/0/name",
        /"SHARED" is already declared at \/kvBindings\/0\/name/,
      ],
    ];
    for (const [extra, field, message] of collisions) {
      const spec = base(extra);
      // validate: the spec is valid; the collision the write will meet is a warning.
      const v = await edge.validate("WorkerVersion", "vw-collide", spec);
      expect(v.json.valid).toBe(true);
      expect(v.json.diagnostics).toContainEqual({ severity: "warning", field, message: expect.stringMatching(message) });
      // prepare accepts the schema-valid spec (reference §2.6, §11 Q20): the namespace is a rule
      // of apply and import, as upstream's runner expects.
      const prepared = await edge.prepare("WorkerVersion", "vw-collide", spec);
      expect(prepared.status, prepared.text).toBe(200);
      // The runner's apply — prepare, then PUT with that review — is refused, storing nothing.
      await edge.refuses(() => edge.createRaw("WorkerVersion", "vw-collide", spec), "invalid_argument", [message]);
      await edge.readAbsent("WorkerVersion", "vw-collide");
      await edge.refuses(() => edge.importRaw("WorkerVersion", "vw-collide", spec, "native-vw-collide"), "invalid_argument", [message]);
      // apply refuses it even when it carries a review minted for a valid spec.
      const ref = edge.ref("WorkerVersion");
      const review = (await edge.prepare("WorkerVersion", "vw-collide", base())).json.review.prepareDigest;
      await edge.refuses(
        () =>
          edge.wire.put(
            ref,
            "vw-collide",
            { ...edge.wire.body(ref, "vw-collide", spec), review: { prepareDigest: review } },
            { headers: { "If-None-Match": "*" } },
          ),
        "invalid_argument",
        [message],
      );
    }
    const ok = await edge.create("WorkerVersion", "vw-distinct", base({ vars: { MODE: "x" }, requiredSensitiveVars: ["TOKEN"], kvBindings: kv("CACHE") }));
    expect(ok.spec.kvBindings[0].name).toBe("CACHE");
  });

  it("undeclared-runtime-handler-rejected", async () => {
    const spec = base({}, ["fetch", "alarm"]);
    const v = await edge.validate("WorkerVersion", "vw-alarm", spec);
    expect(v.status).toBe(200);
    expect(v.json.valid).toBe(false);
    expect(v.json.diagnostics[0].field).toMatch(/^\/spec\/handlers/);
    await edge.refuses(() => edge.prepare("WorkerVersion", "vw-alarm", spec), "invalid_argument", [/\/spec\/handlers\/1/]);
    await edge.refuses(() => edge.importRaw("WorkerVersion", "vw-alarm", spec, "native-vw-alarm"), "invalid_argument", [/\/spec\/handlers\/1/]);
    const all = await edge.create("WorkerVersion", "vw-all", base({}, ["fetch", "scheduled", "queue"]));
    expect(all.spec.handlers).toEqual(["fetch", "scheduled", "queue"]);
  });

  it("declared-handler-not-exported-rejected", async () => {
    const fetchOnly = 'export default { async fetch() { return new Response("x"); } };\n';
    await edge.create("WorkerBundle", "vw-fetch-only", { manifestDigest: await edge.bundleDigest(fetchOnly) });
    const spec = edge.versionSpec({ bundle: "vw-fetch-only", worker: "vw", handlers: ["fetch", "queue"] });
    await edge.refuses(() => edge.createRaw("WorkerVersion", "vw-missing", spec), "invalid_argument", [
      /declares handler "queue"/,
      /main module "index.js"/,
      /WorkerBundle "vw-fetch-only"/,
      /exposes fetch/,
    ]);
    await edge.refuses(() => edge.importRaw("WorkerVersion", "vw-missing", spec, "native-vw-missing"), "invalid_argument", [/"queue"/]);
    await edge.create("WorkerVersion", "vw-missing", edge.versionSpec({ bundle: "vw-fetch-only", worker: "vw", handlers: ["fetch"] }));
  });

  // Module shapes the host resolves statically, and what each exports.
  const resolvable: [string, string, string[]][] = [
    ["methods", "export default { fetch() {}, async scheduled() {} };\n", ["fetch", "scheduled"]],
    ["named values", "const handler = async () => new Response('v');\nexport default { fetch: handler, queue: function () {} };\n", ["fetch", "queue"]],
    ["a const bound to a literal", "const app = { async queue(batch) {}, fetch: (r) => new Response('a') };\nexport default app;\n", ["fetch", "queue"]],
    ["an export specifier", "const app = { scheduled() {} };\nexport { app as default };\n", ["scheduled"]],
    [
      "a spread of another literal",
      "const base = { async queue() {} };\nconst more = { ...base, fetch() {} };\nexport default { ...more, scheduled: more.fetch };\n",
      ["fetch", "queue", "scheduled"],
    ],
    ["computed string keys", "const h = () => {};\nexport default { ['fetch']: h, [`scheduled`]: h };\n", ["fetch", "scheduled"]],
    [
      "declarations and const aliases",
      "function handle() {}\nclass Consumer {}\nconst a = () => {};\nconst b = a;\nconst KEY = 'scheduled';\nexport default { fetch: handle, queue: Consumer, [KEY]: b };\n",
      ["fetch", "queue", "scheduled"],
    ],
    [
      "a method call that cannot reach the object",
      "const app = { fetch(r) { return app.route(r); }, route(r) { return this.name; }, name: 'x' };\nexport default app;\n",
      ["fetch"],
    ],
  ];
  for (const [label, source, exported] of resolvable) {
    it(`declared handlers are read from the default export: ${label}`, async () => {
      const slug = label.replace(/[^a-z]+/g, "-");
      await edge.create("WorkerBundle", `vw-r-${slug}`, { manifestDigest: await edge.bundleDigest(source) });
      const created = await edge.create("WorkerVersion", `vw-r-${slug}`, edge.versionSpec({ bundle: `vw-r-${slug}`, worker: "vw", handlers: exported }));
      expect(created.spec.handlers).toEqual(exported);
      const absent = ["fetch", "scheduled", "queue"].find((h) => !exported.includes(h));
      if (absent !== undefined) {
        await edge.refuses(
          () => edge.createRaw("WorkerVersion", `vw-r-${slug}-x`, edge.versionSpec({ bundle: `vw-r-${slug}`, worker: "vw", handlers: [absent] })),
          "invalid_argument",
          [new RegExp(`"${absent}"`), new RegExp(`exposes ${[...exported].sort().join(", ")}`)],
        );
      }
    });
  }

  // Shapes the host cannot resolve without running the module: they export nothing it can see.
  const unresolvable: [string, string, RegExp][] = [
    ["a call result", "function makeApp() { return { fetch() {} }; }\nexport default makeApp();\n", /the result of a call/],
    ["a class instance", "class App { fetch() {} }\nexport default new App();\n", /constructed instance/],
    ["an imported binding", "import app from './app.js';\nexport default app;\n", /binding app/],
    ["a function", "export default function () {}\n", /is a function/],
    ["a re-export", "export { default } from './other.js';\n", /re-exported/],
    ["a let binding the module writes", "let app = { fetch() {} };\napp = {};\nexport default app;\n", /binding app/],
    ["a getter", "export default { get fetch() { return () => {}; } };\n", /exposes no handler/],
    ["a const read before its declaration", "export default app;\nconst app = { fetch() {} };\n", /read before its declaration/],
    ["a syntax error", "export default { fetch() { ;\n", /does not parse/],
    ["no default export", "export const fetch = () => {};\n", /no default export/],
  ];
  for (const [label, source, why] of unresolvable) {
    it(`a default export the parser cannot resolve exports nothing: ${label}`, async () => {
      const slug = label.replace(/[^a-z]+/g, "-");
      await edge.create("WorkerBundle", `vw-u-${slug}`, { manifestDigest: await edge.bundleDigest(source) });
      await edge.refuses(
        () => edge.createRaw("WorkerVersion", `vw-u-${slug}`, edge.versionSpec({ bundle: `vw-u-${slug}`, worker: "vw", handlers: ["fetch"] })),
        "invalid_argument",
        [/"fetch"/, why],
      );
    });
  }

  // Members whose value does not statically resolve to something callable, or that the module may
  // change after declaring them: the declared handler is refused as not exported (the runtime
  // requires a callable property). `kept` is what each module still exports.
  const notCallable: [string, string, string[]][] = [
    // The modules the review found wrongly accepted, verbatim.
    ["a const bound to a number", "const notAFunction = 42; export default { fetch: notAFunction }", []],
    ["a const bound to a string", "const s='x'; export default {fetch: s}", []],
    ["a deleted member", "const app={fetch(){}}; delete app.fetch; export default app", []],
    ["a member assigned a number", "const app={fetch(){}}; app.fetch = 42; export default app", []],
    ["an imported name", "import {h} from './other.js'; export default {fetch:h}", []],
    ["a let binding", "let h=1; export default {fetch:h}", []],
    ["an undeclared name", "export default {fetch: doesNotExist}", []],
    ["an unresolvable spread after the member", "export default { fetch(){}, ...makeOverrides() }", []],
    // Variants: what else is refused, and what the same module still exports.
    ["a deleted member beside another", "const app = { fetch() {}, queue() {} };\ndelete app.fetch;\nexport default app;\n", ["queue"]],
    ["a member assigned beside another", "const app = { fetch() {}, queue() {} };\napp.fetch = 42;\nexport default app;\n", ["queue"]],
    ["a member assigned by a string key", "const app = { fetch() {}, queue() {} };\napp['fetch'] = 42;\nexport default app;\n", ["queue"]],
    [
      "a member assigned through a const alias",
      "const app = { fetch() {}, queue() {} };\nconst same = app;\nsame.fetch = 42;\nexport { app as default };\n",
      ["queue"],
    ],
    ["an object passed to Object.assign", "const app = { fetch() {}, queue() {} };\nObject.assign(app, { fetch: 1 });\nexport default app;\n", []],
    ["an object passed to any call", "const app = { fetch() {}, queue() {} };\nregister(app);\nexport default app;\n", []],
    ["a method that writes through this", "const app = { fetch() {}, queue() {}, init() { this.fetch = 1; } };\napp.init();\nexport default app;\n", []],
    ["an imported name beside a method", "import { h } from './other.js';\nexport default { fetch: h, queue() {} };\n", ["queue"]],
    ["a reassigned function declaration", "function h() {}\nh = 42;\nexport default { fetch: h };\n", []],
    ["a const read before its declaration", "export default { fetch: h };\nconst h = () => {};\n", []],
    ["a member of an unknown object", "const h = {};\nexport default { fetch: h.fetch };\n", []],
    ["an unresolvable spread between members", "export default { fetch() {}, ...makeOverrides(), queue() {} };\n", ["queue"]],
    ["a spread of a mutated literal", "const base = { fetch() {} };\nbase.fetch = 42;\nexport default { ...base, queue() {} };\n", ["queue"]],
  ];
  for (const [label, source, kept] of notCallable) {
    it(`a member that is not statically callable is not exported: ${label}`, async () => {
      const slug = label.replace(/[^a-z]+/g, "-");
      await edge.create("WorkerBundle", `vw-n-${slug}`, { manifestDigest: await edge.bundleDigest(source) });
      const spec = edge.versionSpec({ bundle: `vw-n-${slug}`, worker: "vw", handlers: ["fetch"] });
      await edge.refuses(() => edge.createRaw("WorkerVersion", `vw-n-${slug}`, spec), "invalid_argument", [
        /declares handler "fetch"/,
        /does not export/,
        new RegExp(`exposes ${kept.length === 0 ? "no handler" : kept.join(", ")}`),
      ]);
      await edge.refuses(() => edge.importRaw("WorkerVersion", `vw-n-${slug}`, spec, `native-vw-n-${slug}`), "invalid_argument", [/"fetch"/]);
      if (kept.length > 0) {
        const created = await edge.create("WorkerVersion", `vw-n-${slug}`, edge.versionSpec({ bundle: `vw-n-${slug}`, worker: "vw", handlers: kept }));
        expect(created.spec.handlers).toEqual(kept);
      }
    });
  }

  it("WorkerBundle: the manifest resolves in the caller's tenant, is decodable, and is a WorkerBundle manifest (artifact-then-bundle-apply)", async () => {
    const never = `sha256:${createHash("sha256").update("never committed").digest("hex")}`;
    await edge.refuses(() => edge.createRaw("WorkerBundle", "vb-missing", { manifestDigest: never }), "artifact_missing", [
      new RegExp(never),
      /not committed in this tenant/,
    ]);
    await edge.refuses(() => edge.importRaw("WorkerBundle", "vb-missing", { manifestDigest: never }, "native-vb-missing"), "artifact_missing");
    // A manifest only another tenant holds is missing here, indistinguishably.
    const foreign = edge.client.as(TOKENS.foreign);
    const theirs = await edge.bundleDigest("export default { fetch() {} }; // theirs only\n", foreign);
    const refusal = await edge.refuses(() => edge.createRaw("WorkerBundle", "vb-foreign", { manifestDigest: theirs }), "artifact_missing", [
      /not committed in this tenant/,
    ]);
    expect(refusal.message.replace(theirs, "D")).toBe(
      `WorkerBundle "vb-foreign": manifest D is not committed in this tenant; upload and commit it, then apply`,
    );
    // A committed manifest of another kind is not a WorkerBundle.
    const bytes = Buffer.from("<h1>hi</h1>");
    const blob = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
    const manifest = {
      apiVersion: "artifacts.takoform.com/v1alpha1",
      kind: "StaticAssetBundle",
      files: [{ path: "index.html", mediaType: "text/html", size: bytes.byteLength, digest: blob }],
    };
    const start = await edge.client.request("POST", `${edge.mode.family.api}/artifacts/uploads`, {
      body: { manifest },
      headers: { "Idempotency-Key": idempotencyKey() },
    });
    expect([200, 201]).toContain(start.status);
    if ((start.json.missingBlobs as string[]).includes(blob)) {
      const put = await edge.client.request("PUT", `${edge.mode.family.api}/artifacts/uploads/${start.json.uploadId}/blobs/${blob}`, {
        body: bytes,
        headers: { "Content-Type": "application/octet-stream" },
      });
      expect([201, 204]).toContain(put.status);
    }
    const commit = await edge.client.request("POST", `${edge.mode.family.api}/artifacts/uploads/${start.json.uploadId}/commit`, {
      headers: { "Idempotency-Key": idempotencyKey() },
    });
    const assets = await edge.wire.settled(commit, "commit").catch(() => commit.json);
    const digest = (assets?.manifestDigest ?? commit.json?.manifestDigest) as string;
    expect(digest).toMatch(/^sha256:/);
    await edge.refuses(() => edge.createRaw("WorkerBundle", "vb-assets", { manifestDigest: digest }), "artifact_invalid", [
      /StaticAssetBundle manifest/,
      /needs a WorkerBundle manifest/,
    ]);
    await edge.refuses(() => edge.importRaw("WorkerBundle", "vb-assets", { manifestDigest: digest }, "native-vb-assets"), "artifact_invalid");
    // The committed WorkerBundle manifest applies.
    const ok = await edge.create("WorkerBundle", "vb-ok", { manifestDigest: await edge.bundleDigest(FULL_MODULE) });
    expect(ok.metadata.generation).toBe("1");
  });

  it("WorkerVersion and WorkerBundle support profiles: handlers are the runtime contract's vocabulary, limits the lane's artifact ceilings", async () => {
    const version = await edge.client.request("GET", `${edge.mode.family.api}/support/forms/${edge.group}/WorkerVersion/0.1.0`);
    expect(version.status).toBe(200);
    expect(version.json.supportedEnums.handlers).toEqual(["fetch", "scheduled", "queue"]);
    expect(version.json.limits).toEqual({ maximumBundleBytes: 10485760 });
    expect(JSON.stringify(version.json)).not.toMatch(/compatibilityDate|compatibilityFlags/);
    const bundle = await edge.client.request("GET", `${edge.mode.family.api}/support/forms/${edge.group}/WorkerBundle/0.1.0`);
    // The first lane publishes the byte ceiling only; v1beta1 also the entry count (reference v1beta1 §7.4).
    expect(bundle.json.limits).toEqual(
      mode.family.lane === "v1alpha3" ? { maximumBundleBytes: 10485760 } : { maximumBundleBytes: 10485760, maximumBundleFiles: 4096 },
    );
    const all = await edge.client.request("GET", `${edge.mode.family.api}/support/forms`);
    const listed = (all.json.profiles as any[]).find((p) => p.formRef.apiVersion === edge.group && p.formRef.kind === "WorkerVersion");
    expect(listed).toEqual(version.json);
  });

  it("edge-interface-contracts-advertised", async () => {
    // Each Edge resource Interface is advertised at exactly the digest the installed Forms provide.
    const provided = new Map<string, string>();
    for (const form of diskForms(mode.family)) {
      if (form.ref.apiVersion !== edge.group) continue;
      for (const i of form.document.providedInterfaces ?? []) provided.set(`${i.name}@${i.version}`, i.schemaDigest);
    }
    for (const name of ["edge.kv", "edge.objects", "edge.queue", "edge.sql", "worker.runtime"]) {
      const res = await edge.client.request("GET", `${edge.mode.family.api}/support/interfaces/${name}/1.0.0`);
      expect(res.status, name).toBe(200);
      expect(res.json.interfaceRef.schemaDigest).toBe(provided.get(`${name}@1.0.0`));
    }
  });
});
