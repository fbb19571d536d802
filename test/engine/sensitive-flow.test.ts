// Secrets that travel: a sensitive variable reaches an attribute of another resource through a
// reference, and is hidden, sealed and encrypted there exactly as where the variable is used.
// A sealed intent opens only with the same values, at the same address, unaltered. And a
// resource that changes while the one it takes a secret from does not is applied with the
// secret itself (recovered from configuration), never with the seal state keeps.

import { afterAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { intentSecrets, isSealedIntent, openIntent, sealIntent } from "../../src/secrets/index.ts";
import { sealedIntentDiagnostic, sensitiveLookup } from "../../src/engine/apply/sealed-intent.ts";
import { engineCode } from "../../src/engine/codes.ts";
import { resolveVariables } from "../../src/engine/config/variables/resolve.ts";
import { createPlan } from "../../src/engine/plan/build.ts";
import { renderPlan } from "../../src/views/human.ts";
import { planToJson } from "../../src/views/json.ts";
import { readSnapshot, runApply } from "../../src/engine/run.ts";
import { SensitiveFlow } from "../../src/engine/sensitivity.ts";
import type { WriteIntent } from "../../src/provider/types.ts";
import { Scratch, stackOf, useEngine, withScratch } from "../scenario/harness.ts";

const SVC = "takoform_mesh_service";
const SECRET = "s3cr3t-7f41aa09.js";

describe("SensitiveFlow", () => {
  const scratch = new Scratch();
  afterAll(() => scratch.cleanup());

  it("follows references, contributions and outputs, and never marks identity attributes", async () => {
    const stack = await stackOf(scratch, {
      variable: { secret: { type: "string", sensitive: true }, plain: { type: "string", default: "p" } },
      resource: {
        [SVC]: {
          a: { name: "a", entrypoint: "${var.secret}" },
          b: { name: "b-${var.secret}", entrypoint: `x-\${${SVC}.a.entrypoint}` },
          c: { name: `\${${SVC}.b.name}`, entrypoint: `\${${SVC}.b.entrypoint}` },
          d: { name: "d", entrypoint: `\${${SVC}.a.name}` },
          e: { name: "e", entrypoint: "${var.plain}" },
          // A loop closed by contributions still ends, and carries the secret round it.
          l1: {
            name: "l1",
            entrypoint: "e.js",
            service_bindings: [{ name: "${var.secret}", service: "x", version: null }],
            "//": { takoform: { contributions: [{ from: `${SVC}.l2`, values: { service_bindings: `\${${SVC}.l2.service_bindings}` } }] } },
          },
          l2: {
            name: "l2",
            entrypoint: "f.js",
            "//": { takoform: { contributions: [{ from: `${SVC}.l1`, values: { service_bindings: `\${${SVC}.l1.service_bindings}` } }] } },
          },
        },
      },
      output: { leak: { value: `\${${SVC}.c.entrypoint}` }, fine: { value: `\${${SVC}.e.entrypoint}` } },
    });
    const flow = SensitiveFlow.of(stack, resolveVariables(stack.variables, { values: { secret: SECRET } }));
    expect(flow.paths(`${SVC}.a`)).toEqual([["entrypoint"]]);
    expect(flow.paths(`${SVC}.b`)).toEqual([["entrypoint"]]); // its name uses the secret, but a name is never one
    expect(flow.paths(`${SVC}.c`)).toEqual([["entrypoint"]]);
    expect(flow.paths(`${SVC}.d`)).toEqual([]);
    expect(flow.paths(`${SVC}.e`)).toEqual([]);
    expect(flow.paths(`${SVC}.l1`)).toEqual([["service_bindings"]]);
    expect(flow.paths(`${SVC}.l2`)).toEqual([["service_bindings"]]);
    expect(flow.variables(`${SVC}.c`)).toEqual(["secret"]);
    expect(flow.output("leak")).toEqual(["secret"]);
    expect(flow.output("fine")).toEqual([]);
    const none = SensitiveFlow.of(stack, resolveVariables(stack.variables, { values: { secret: SECRET } }));
    expect(none).not.toBe(flow); // another resolution of the variables is another flow
  });
});

describe("sealed write intents", () => {
  const variables = (value: string | undefined) =>
    resolveVariables(
      new Map([
        [
          "secret",
          { name: "secret", type: { kind: "string" }, typeText: "string", sensitive: true, nullable: true, ...(value === undefined ? { default: null } : {}) },
        ],
      ]),
      value === undefined ? {} : { values: { secret: value } },
    );
  const write: WriteIntent = {
    operation: "create",
    type: SVC,
    space: "default",
    name: "svc",
    ref: { apiVersion: "mesh.takoform-cdk.dev/v1alpha1", kind: "MeshService", definitionVersion: "0.1.0", schemaDigest: `sha256:${"a".repeat(64)}` },
    uid: "",
    idempotencyKey: "takoform-0123",
    request: {
      method: "PUT",
      path: "/apis/x/svc",
      headers: { "Idempotency-Key": "takoform-0123", "Content-Type": "application/json" },
      body: JSON.stringify({ spec: { entrypoint: SECRET } }),
    },
    attributes: { entrypoint: SECRET, revision_owner: "o" },
  };
  const address = `${SVC}.svc`;

  it("store no secret and open only with the same values, at the same address, unaltered", () => {
    const right = sensitiveLookup(variables(SECRET));
    const { secrets } = intentSecrets(["secret"], right);
    const stored = sealIntent(write, address, "lineage-1", secrets);
    expect(isSealedIntent(stored)).toBe(true);
    const text = JSON.stringify(stored);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("takoform-0123");
    expect(stored.request).toEqual({ method: "PUT", path: "/apis/x/svc", headers: {} });
    expect(openIntent(stored, address, "lineage-1", right)).toEqual({ write });

    // What the engine makes of a refusal: the diagnostic naming the variables to supply.
    const refused = (result: ReturnType<typeof openIntent>, at = address) => ("refused" in result ? sealedIntentDiagnostic(result.refused, stored, at) : null);
    const wrong = refused(openIntent(stored, address, "lineage-1", sensitiveLookup(variables("other"))));
    expect(wrong).toMatchObject({ severity: "error", code: engineCode("in-flight-sealed"), address });
    expect(wrong!.summary).toContain('The values of "secret" differ');
    expect(wrong!.repair).toContain("TAKOFORM_VAR_secret");
    expect(JSON.stringify(wrong)).not.toContain("other");
    const missing = refused(openIntent(stored, address, "lineage-1", sensitiveLookup(resolveVariables(new Map(), {}))));
    expect(missing!.summary).toBe(`Resuming the interrupted write of ${address} needs the sensitive variable "secret"`);
    expect(refused(openIntent(stored, `${SVC}.elsewhere`, "lineage-1", right), `${SVC}.elsewhere`)!.summary).toContain("differ");
    expect(refused(openIntent(stored, address, "lineage-2", right))!.summary).toContain("differ");
    expect(refused(openIntent({ ...stored, uid: "u-other" } as WriteIntent, address, "lineage-1", right))!.summary).toContain("differ");

    // No secret inputs: stored as it is, and opened as it is.
    expect(sealIntent(write, address, "lineage-1", [])).toBe(write);
    expect(openIntent(write, address, "lineage-1", sensitiveLookup(resolveVariables(new Map(), {})))).toEqual({ write });
  });
});

describe("secrets through references, end to end", () => {
  const ctx = useEngine();

  it("are hidden and sealed in the referring resource, and an update of it sends the secret, not its seal", () =>
    withScratch(async (local, store) => {
      const document = (bindings: unknown[]) => ({
        variable: { entry: { type: "string", sensitive: true } },
        resource: {
          [SVC]: {
            src: { name: "flow-src", entrypoint: "${var.entry}" },
            dst: { name: "flow-dst", entrypoint: `\${${SVC}.src.entrypoint}`, service_bindings: bindings },
          },
        },
      });
      const first = await stackOf(local, document([]));
      const setup = (stack: typeof first) => ({
        provider: ctx.engine.setup(stack).provider,
        stack,
        variables: resolveVariables(stack.variables, { values: { entry: SECRET } }),
      });
      const made = await createPlan({ ...setup(first), state: await readSnapshot(store) });
      expect(made.ok).toBe(true);
      expect(made.plan.resourceChanges.find((c) => c.address === `${SVC}.dst`)!.sensitivePaths).toContainEqual(["entrypoint"]);
      expect(renderPlan(made.plan, { color: false })).not.toContain(SECRET);
      expect((await runApply(setup(first), store, { lock: { holder: "t" } })).result?.ok).toBe(true);
      for (const address of [`${SVC}.src`, `${SVC}.dst`]) {
        expect((await store.get(address))!.attributes["entrypoint"]).toMatchObject({ $sensitive: expect.stringMatching(/^sha256:/) });
      }

      // Only dst changes; src is untouched, so its secret exists only sealed in state.
      const second = await stackOf(local, document([{ name: "SRC", service: "flow-src", version: null }]));
      const changed = await createPlan({ ...setup(second), state: await readSnapshot(store) });
      expect(changed.plan.resourceChanges.map((c) => [c.address, c.actions[0]])).toEqual([
        [`${SVC}.dst`, "update"],
        [`${SVC}.src`, "no-op"],
      ]);
      const run = await runApply(setup(second), store, { lock: { holder: "t" } });
      expect(run.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      expect(run.result?.ok).toBe(true);
      const record = (await store.get(`${SVC}.dst`))!;
      const stored = ctx.host.host.controls.resource({
        tenant: "dev",
        space: "default",
        apiVersion: record.ref!.apiVersion,
        kind: record.ref!.kind,
        name: "flow-dst",
      });
      expect(stored).toBeDefined();
      expect(JSON.stringify(stored)).toContain(SECRET); // the host got the value, not a seal
      expect(JSON.stringify(stored)).not.toContain("$sensitive");
      for (const file of ["state.db", "state.db-wal"]) expect(readFileSync(local.path(".takoform", file)).includes(Buffer.from(SECRET)), file).toBe(false);
      const after = await createPlan({ ...setup(second), state: await readSnapshot(store) });
      expect(after.plan.resourceChanges.map((c) => c.actions[0])).toEqual(["no-op", "no-op"]);

      // Changed out of band elsewhere: the drift shown keeps the secret the host echoes hidden.
      const spec = JSON.parse(stored!.spec) as Record<string, unknown>;
      await ctx.engine.client.applyResource(
        { ref: record.ref!, name: "flow-dst", space: "default", spec: { ...spec, serviceBindings: [] } },
        { expectedUid: stored!.uid, expectedGeneration: String(stored!.generation) },
      );
      const drifted = await createPlan({ ...setup(second), state: await readSnapshot(store) });
      expect(drifted.plan.resourceDrift!.map((c) => c.address)).toEqual([`${SVC}.dst`]);
      expect(drifted.plan.resourceDrift![0]!.sensitivePaths).toContainEqual(["entrypoint"]);
      expect(renderPlan(drifted.plan, { color: false })).not.toContain(SECRET);
      expect(JSON.stringify(planToJson(drifted.plan))).not.toContain(SECRET);
    }));
});
