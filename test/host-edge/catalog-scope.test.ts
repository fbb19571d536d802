// Where the Edge rules apply, decided by the installed catalog:
//   - by EXACT group and kind: a same-named kind of another group gets none of them;
//   - the runtime ABI is the one worker.runtime contract every installed Form providing it
//     agrees on; with none, or two different ones, every WorkerVersion is refused (fail closed)
//     and the support profile advertises no handler vocabulary.

import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BUNDLED_PACKAGES } from "../../src/host/index.ts";
import { API } from "../host/harness.ts";
import { BUNDLED } from "../host/family.ts";
import { Edge, FULL_MODULE, readyOf } from "./edge.ts";

const LAB = "lab.takoform-cdk.dev/v1alpha1";
const dir = mkdtempSync(join(tmpdir(), "takoform-edge-scope-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(path: string, doc: object): string {
  mkdirSync(join(dir, path), { recursive: true });
  writeFileSync(join(dir, path, "definition.json"), JSON.stringify(doc, null, 2));
  return join(dir, path);
}

const schema = (properties: object, required: string[] = []) => ({
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  additionalProperties: false,
  properties,
  ...(required.length > 0 ? { required } : {}),
});

const CAPS = ["create", "read", "update", "delete", "import", "observe"];

describe("the rules attach by exact group and kind", () => {
  const root = join(dir, "lab");
  write("lab/worker", {
    apiVersion: LAB,
    kind: "ModuleWorker",
    definitionVersion: "0.1.0",
    title: "Lab worker",
    role: "identity",
    desiredSchema: schema({}),
    lifecycleCapabilities: ["create", "read", "delete", "import", "observe"],
  });
  write("lab/deployment", {
    apiVersion: LAB,
    kind: "WorkerDeployment",
    definitionVersion: "0.1.0",
    title: "Lab deployment",
    role: "deployment",
    desiredSchema: schema(
      {
        versions: {
          type: "array",
          items: { type: "object", additionalProperties: false, properties: { weight: { type: "integer", minimum: 1 } }, required: ["weight"] },
        },
      },
      ["versions"],
    ),
    lifecycleCapabilities: CAPS,
  });
  write("lab/domain", {
    apiVersion: LAB,
    kind: "WorkerCustomDomain",
    definitionVersion: "0.1.0",
    title: "Lab domain",
    role: "attachment",
    desiredSchema: schema({ hostname: { type: "string" } }, ["hostname"]),
    lifecycleCapabilities: CAPS,
  });

  it("same-named kinds of another group get none of the Edge rules", async () => {
    const edge = await Edge.open({ label: "lab", family: { ...BUNDLED, group: LAB, options: { bundled: true, forms: [root] } }, async: false });
    try {
      expect(edge.host.problems).toEqual([]);
      // No readiness rendering: a lab ModuleWorker without any deployment is simply Available.
      expect(readyOf(await edge.create("ModuleWorker", "w", {}))).toMatchObject({ status: "True", reason: "Available" });
      // No weight rule.
      const d = await edge.create("WorkerDeployment", "d", { versions: [{ weight: 1 }, { weight: 2 }] });
      expect(d.spec.versions).toHaveLength(2);
      // No hostname canonicalization, no claim, no handler gate.
      const a = await edge.create("WorkerCustomDomain", "a", { hostname: "API.Example.COM." });
      expect(a.spec.hostname).toBe("API.Example.COM.");
      await edge.create("WorkerCustomDomain", "b", { hostname: "API.Example.COM." });
      // The bundled Edge line on the same host still gets them.
      const edgeWorker = await edge.wire.created(edge.ref("ModuleWorker", "0.1.0", BUNDLED.group), "w", {});
      expect(readyOf(edgeWorker)).toMatchObject({ status: "False", reason: "Provisioning" });
    } finally {
      await edge.close();
    }
  });
});

describe("the runtime ABI is decided by the installed worker.runtime providers", () => {
  const bundledRuntime = JSON.parse(readFileSync(join(BUNDLED_PACKAGES, "lanes/v1alpha3/interfaces/v1alpha1/worker.runtime/definition.json"), "utf8"));

  async function versionRefusedEverywhere(edge: Edge, why: RegExp): Promise<void> {
    await edge.create("ModuleWorker", "rt", {});
    const spec = edge.versionSpec({ bundle: "rt-bundle", worker: "rt", handlers: ["fetch"] });
    const v = await edge.validate("WorkerVersion", "rt-version", spec);
    expect(v.status).toBe(200);
    expect(v.json.valid).toBe(false);
    expect(v.json.diagnostics[0]).toMatchObject({ field: "/spec/handlers", message: expect.stringMatching(why) });
    await edge.refuses(() => edge.prepare("WorkerVersion", "rt-version", spec), "invalid_argument", [why]);
    await edge.refuses(() => edge.importRaw("WorkerVersion", "rt-version", spec, "native-rt"), "invalid_argument", [why]);
    const profile = await edge.client.request("GET", `${API}/support/forms/${edge.group}/WorkerVersion/0.1.0`);
    expect(profile.status).toBe(200);
    expect(profile.json.supportedEnums?.handlers).toBeUndefined();
  }

  it("two different worker.runtime contracts fail closed", async () => {
    const other = write("two/interface", { ...bundledRuntime, title: "A different runtime contract" });
    const { digestCanonical } = await import("../../src/forms/digest.ts");
    const digest = digestCanonical({ ...bundledRuntime, title: "A different runtime contract" });
    const provider = write("two/provider", {
      apiVersion: LAB,
      kind: "RuntimeHost",
      definitionVersion: "0.1.0",
      title: "Another runtime provider",
      role: "identity",
      desiredSchema: schema({}),
      lifecycleCapabilities: ["create", "read", "delete", "import", "observe"],
      providedInterfaces: [{ apiVersion: "interfaces.takoform.com/v1alpha1", name: "worker.runtime", version: "1.0.0", schemaDigest: digest }],
    });
    const edge = await Edge.open({ label: "two", family: { ...BUNDLED, options: { bundled: true, forms: [other, provider] } }, async: false });
    try {
      expect(edge.host.problems).toEqual([]);
      await versionRefusedEverywhere(edge, /2 different worker\.runtime contracts/);
    } finally {
      await edge.close();
    }
  });

  it("no worker.runtime provider fails closed", async () => {
    const edgeForms = join(BUNDLED_PACKAGES, "forms/edge/v1alpha1");
    const edge = await Edge.open({
      label: "none",
      family: {
        ...BUNDLED,
        options: {
          bundled: false,
          forms: [
            join(edgeForms, "worker-version"),
            join(edgeForms, "worker-bundle"),
            join(edgeForms, "module-worker-0.2.0"),
            join(BUNDLED_PACKAGES, "interfaces"),
            join(BUNDLED_PACKAGES, "lanes/v1alpha3"),
          ],
        },
      },
      async: false,
    });
    try {
      const refs = (await edge.client.request("GET", `${API}/support/forms`)).json.profiles.map((p: any) => `${p.formRef.kind}@${p.formRef.definitionVersion}`);
      expect(refs.sort()).toEqual(["ModuleWorker@0.2.0", "WorkerBundle@0.1.0", "WorkerVersion@0.1.0"]);
      await edge.create("WorkerBundle", "rt-bundle", { manifestDigest: await edge.bundleDigest(FULL_MODULE) });
      const spec = edge.versionSpec({ bundle: "rt-bundle", worker: "rt", handlers: ["fetch"] });
      await edge.wire.created(edge.ref("ModuleWorker", "0.2.0"), "rt", {});
      const v = await edge.validate("WorkerVersion", "rt-version", spec);
      expect(v.json.valid).toBe(false);
      expect(v.json.diagnostics[0].message).toMatch(/no installed Form provides worker\.runtime/);
      await edge.refuses(() => edge.prepare("WorkerVersion", "rt-version", spec), "invalid_argument", [/no installed Form provides worker\.runtime/]);
      const profile = await edge.client.request("GET", `${API}/support/forms/${edge.group}/WorkerVersion/0.1.0`);
      expect(profile.json.supportedEnums?.handlers).toBeUndefined();
    } finally {
      await edge.close();
    }
  });
});
