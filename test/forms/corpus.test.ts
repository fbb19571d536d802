// Reproduces the published upstream lanes: every digest the candidate sets state, the derived
// relation table, and every fixture verdict. Runs only when TAKOFORM_CORPUS names the corpus.

import { describe, it, expect, vi } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { main } from "../../src/cli/main.ts";
import { parseStrictJson } from "../../src/forms/strict-json.ts";

const CORPUS = process.env.TAKOFORM_CORPUS ?? "";
type Doc = { [key: string]: any };

async function runJson(...argv: string[]): Promise<{ code: number; result: Doc; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
  try {
    const code = await main(argv);
    return { code, result: JSON.parse(stdout) as Doc, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

const read = (path: string): Doc => parseStrictJson(readFileSync(path)) as Doc;

// [source kind, pointer, target kind, required, binding, contract]; a contract is
// "pin:<Kind>" (x-takoform-target-formrefs naming that Form) or "iface:<name>".
type Row = [string, string, string, boolean, string | null, string];
const COMMON: Row[] = [
  ["QueueConsumer", "/deadLetterQueue", "AtLeastOnceQueue", false, null, "iface:edge.queue"],
  ["QueueConsumer", "/queue", "AtLeastOnceQueue", true, null, "iface:edge.queue"],
  ["QueueConsumer", "/worker", "ModuleWorker", true, null, "iface:worker.runtime"],
  ["WorkerCronTrigger", "/worker", "ModuleWorker", true, null, "iface:worker.runtime"],
  ["WorkerCustomDomain", "/worker", "ModuleWorker", true, null, "iface:worker.runtime"],
  ["WorkerDeployment", "/versions/*/workerVersion", "WorkerVersion", true, null, "pin:WorkerVersion"],
  ["WorkerDeployment", "/worker", "ModuleWorker", true, null, "pin:ModuleWorker"],
  ["WorkerEndpoint", "/worker", "ModuleWorker", true, null, "iface:worker.runtime"],
  ["WorkerVersion", "/bucketBindings/*/resource", "ObjectBucket", false, "module-worker.object-bucket", "iface:edge.objects"],
  ["WorkerVersion", "/bundle", "WorkerBundle", true, null, "pin:WorkerBundle"],
  ["WorkerVersion", "/kvBindings/*/resource", "EdgeKVNamespace", false, "module-worker.edge-kv", "iface:edge.kv"],
  ["WorkerVersion", "/queueProducerBindings/*/resource", "AtLeastOnceQueue", false, "module-worker.queue-producer", "iface:edge.queue"],
  ["WorkerVersion", "/serviceBindings/*/resource", "ModuleWorker", false, "module-worker.service", "iface:worker.service"],
  ["WorkerVersion", "/sqliteBindings/*/resource", "SQLiteDatabase", false, "module-worker.sqlite", "iface:edge.sql"],
  ["WorkerVersion", "/worker", "ModuleWorker", true, null, "iface:worker.runtime"],
];
const BETA_ONLY: Row[] = [
  ["SQLiteMigrationApplication", "/database", "SQLiteDatabase", true, null, "pin:SQLiteDatabase"],
  ["SQLiteMigrationApplication", "/migrationSet", "SQLiteMigrationSet", true, null, "pin:SQLiteMigrationSet"],
  ["WorkerVersion", "/assets/bundle", "StaticAssetBundle", false, null, "pin:StaticAssetBundle"],
];
const UPDATE_CAPABLE = ["WorkerDeployment", "WorkerCronTrigger", "AtLeastOnceQueue", "QueueConsumer"];

const LANES = [
  { lane: "takoform-v1alpha3", group: "v1alpha1", conformance: "portable-host-v3", forms: 12, relations: COMMON, verdicts: 71 },
  { lane: "takoform-v1beta1", group: "v1beta1", conformance: "portable-host-v1beta1", forms: 15, relations: [...COMMON, ...BETA_ONLY], verdicts: 86 },
];

describe.skipIf(!CORPUS)("upstream corpus lanes", () => {
  for (const spec of LANES) {
    const root = join(CORPUS, spec.lane);
    const formSet = () => read(join(root, `forms/candidates/edge/${spec.group}/candidate-set.json`));
    const interfaceSet = () => read(join(root, "interfaces/candidates/v1alpha1/candidate-set.json"));
    const bindingSet = () => read(join(root, "bindings/candidates/v1alpha1/candidate-set.json"));

    describe(spec.lane, () => {
      it("forms inspect reproduces every schemaDigest and packageDigest of the candidate set", async () => {
        const { code, result, stderr } = await runJson("forms", "inspect", root, "--json");
        expect(stderr).toBe("");
        expect(code).toBe(0);
        const candidates = formSet().forms as Doc[];
        expect(candidates).toHaveLength(spec.forms);
        for (const candidate of candidates) {
          const found = result.definitions.find((d: Doc) => d.path === `${candidate.path}/definition.json`);
          expect(found, candidate.path).toBeDefined();
          expect(found.formRef).toEqual(candidate.formRef);
          expect(found.packageDigest).toBe(candidate.packageDigest);
          expect(found.role).toBe(candidate.role);
          expect(found.lifecycleCapabilities.includes("update")).toBe(UPDATE_CAPABLE.includes(candidate.kind));
        }
        // Every Form is a candidate, except the synthetic second ModuleWorker found by shape.
        expect(result.definitions).toHaveLength(spec.forms + 1);
      });

      it("finds the synthetic second ModuleWorker by shape, with the contract's schemaDigest", async () => {
        const { result } = await runJson("forms", "inspect", root, "--json");
        const contract = read(join(root, `conformance/${spec.conformance}/contract.json`));
        const synthetic = contract.runnerInput.syntheticSecondDefinitionVersion;
        const found = result.definitions.find((d: Doc) => d.path === `conformance/${spec.conformance}/${synthetic.path}`);
        expect(found.formRef).toEqual(synthetic.formRef);
        expect(found.formRef.definitionVersion).toBe("0.2.0");
        expect(found.packageDigest).toBeNull();
        expect(found.relations).toEqual([]);
      });

      it("reproduces every Interface and Binding digest", async () => {
        const { result } = await runJson("forms", "inspect", root, "--json");
        const byName = (list: Doc[]) => Object.fromEntries(list.map((e: Doc) => [e.ref.name, e.ref]));
        const interfaces = byName(result.interfaces);
        const expectedInterfaces = interfaceSet().interfaces as Doc[];
        expect(result.interfaces).toHaveLength(expectedInterfaces.length);
        for (const entry of expectedInterfaces) {
          expect(interfaces[entry.name]).toEqual({
            apiVersion: "interfaces.takoform.com/v1alpha1",
            name: entry.name,
            version: entry.version,
            schemaDigest: entry.schemaDigest,
          });
        }
        const bindings = byName(result.bindings);
        const expectedBindings = bindingSet().bindings as Doc[];
        expect(result.bindings).toHaveLength(expectedBindings.length);
        for (const entry of expectedBindings) {
          expect(bindings[entry.name]).toEqual({
            apiVersion: "bindings.takoform.com/v1alpha1",
            name: entry.name,
            version: entry.version,
            schemaDigest: entry.schemaDigest,
          });
        }
      });

      it(`derives exactly ${spec.relations.length} relations, matching the reference table`, async () => {
        const { result } = await runJson("forms", "inspect", root, "--json");
        const formRefs = Object.fromEntries((formSet().forms as Doc[]).map((f) => [f.kind, f.formRef]));
        const interfaces = Object.fromEntries(
          (interfaceSet().interfaces as Doc[]).map((i) => [
            i.name,
            { apiVersion: "interfaces.takoform.com/v1alpha1", name: i.name, version: i.version, schemaDigest: i.schemaDigest },
          ]),
        );
        const group = `edge.forms.takoform.com/${spec.group}`;
        const derived = (result.definitions as Doc[])
          .flatMap((d) => d.relations.map((r: Doc) => ({ kind: d.formRef.kind, ...r })))
          .sort((a, b) => (a.kind + a.pointer < b.kind + b.pointer ? -1 : 1));
        const expected = [...spec.relations]
          .sort((a, b) => (a[0] + a[1] < b[0] + b[1] ? -1 : 1))
          .map(([kind, pointer, target, required, binding, contract]) => {
            const [how, name] = contract.split(":") as [string, string];
            return {
              kind,
              pointer,
              target: { apiVersion: group, kind: target },
              required,
              binding,
              targetFormRefs: how === "pin" ? [formRefs[name]] : null,
              requiredInterface: how === "iface" ? interfaces[name] : null,
            };
          });
        expect(derived).toEqual(expected);
      });

      it(`forms check agrees with every fixture: ${spec.verdicts} verdicts, all ok`, async () => {
        const { code, result, stderr } = await runJson("forms", "check", root, "--json");
        expect(stderr).toBe("");
        expect(code).toBe(0);
        expect(result.fixtures).toHaveLength(spec.verdicts);
        expect(result.passed).toBe(spec.verdicts);
        expect(result.failed).toBe(0);
        expect(result.fixtures.filter((f: Doc) => f.expected === "valid")).toHaveLength(spec.forms);
      });
    });
  }
});
