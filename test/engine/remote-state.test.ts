// `data.terraform_remote_state` (docs/stacks.md, "Cross-stack references"): read as cdktf writes
// it, every other data source still refused, and a reference to another stack's output evaluated
// from what was read — the producer's state, or its plan in the same run.

import { describe, expect, it } from "vitest";
import { isUnknown, Unknown, UNKNOWN } from "../../src/core/index.ts";
import { loadStackConfig, resolveVariables, type RemoteStateValue, type StackConfig } from "../../src/engine/config/index.ts";
import { evaluateOutputs } from "../../src/engine/evaluate.ts";
import { remoteFromPlan, remoteFromState } from "../../src/engine/remote-state.ts";
import type { Plan } from "../../src/engine/plan-data.ts";
import { formatValue } from "../../src/views/values.ts";

const SOURCE = "cross-stack-reference-input-shared";
const OUT = "cross-stack-output-takoform_edge_kv_namespacekvname";
const ref = (path = `outputs.${OUT}`) => `\${data.terraform_remote_state.${SOURCE}.${path}}`;

function consumer(remote: Record<string, unknown>, outputs: Record<string, unknown>) {
  return { "//": { metadata: { stackName: "api" } }, data: { terraform_remote_state: { [SOURCE]: remote } }, output: outputs };
}
const LOCAL = { backend: "local", config: { path: "/app/terraform.shared.tfstate" }, workspace: "${terraform.workspace}" };

function load(document: unknown): { config: StackConfig | null; errors: string[] } {
  const loaded = loadStackConfig(JSON.stringify(document));
  return { config: loaded.config, errors: loaded.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.code}: ${d.summary}`) };
}

function outputs(config: StackConfig, remote: Map<string, RemoteStateValue>) {
  const variables = { ...resolveVariables(config.variables), remote };
  return evaluateOutputs(config, variables, () => undefined);
}

describe("reading data.terraform_remote_state", () => {
  it("reads cdktf's local and pg shapes; the consumer's workspace unless one is named", () => {
    const local = load(consumer(LOCAL, { x: { value: ref() } }));
    expect(local.errors).toEqual([]);
    expect(local.config!.remoteStates!.get(SOURCE)).toEqual({
      name: SOURCE,
      address: `data.terraform_remote_state.${SOURCE}`,
      backend: { type: "local", path: "/app/terraform.shared.tfstate" },
      workspace: null,
      defaults: {},
    });
    const pg = load(consumer({ backend: "pg", config: { conn_str: "postgres://u:pw@db/app", schema_name: "shared" }, workspace: "staging" }, {}));
    expect(pg.errors).toEqual([]);
    expect(pg.config!.remoteStates!.get(SOURCE)).toMatchObject({
      backend: { type: "pg", connStr: "postgres://u:pw@db/app", schemaName: "shared" },
      workspace: "staging",
    });
  });

  it("refuses other data sources, other backends, an undeclared source and anything but its outputs", () => {
    expect(load({ data: { takoform_thing: { x: {} } } }).errors).toEqual([
      "takoform.config/unsupported-block: `data.takoform_thing` data sources are not supported",
    ]);
    expect(load(consumer({ ...LOCAL, backend: "s3" }, {})).errors).toEqual([
      `takoform.config/remote-state-invalid: data.terraform_remote_state.${SOURCE} reads a "s3" backend, which takoform does not support`,
    ]);
    expect(load(consumer({ ...LOCAL, workspace: "${var.env}" }, {})).errors).toEqual([
      `takoform.config/remote-state-invalid: data.terraform_remote_state.${SOURCE}'s workspace refers to something other than terraform.workspace`,
    ]);
    expect(load(consumer(LOCAL, { x: { value: "${data.terraform_remote_state.other.outputs.a}" } })).errors).toEqual([
      'takoform.config/undeclared-reference: output "x" refers to data.terraform_remote_state.other, which is not declared',
    ]);
    expect(load(consumer(LOCAL, { x: { value: ref("backend") } })).errors).toEqual([
      `takoform.config/unsupported-expression: output "x" reads data.terraform_remote_state.${SOURCE}.backend`,
    ]);
  });
});

describe("evaluating another stack's outputs", () => {
  const { config } = load(
    consumer(LOCAL, {
      x: { value: ref() },
      whole: { value: ref("outputs") },
      greeting: { value: `hello \${data.terraform_remote_state.${SOURCE}.outputs.${OUT}}` },
    }),
  );
  const source = config!.remoteStates!.get(SOURCE)!;

  it("from the producer's state: its outputs, a missing state or output named with the repair", () => {
    const read = remoteFromState({ [OUT]: { value: "shared-kv", sensitive: false } }, source, { stack: "shared", describe: "its state" });
    const got = outputs(config!, new Map([[SOURCE, read]]));
    expect(got.get("x")).toMatchObject({ value: "shared-kv" });
    expect(got.get("greeting")).toMatchObject({ value: "hello shared-kv" });
    expect(got.get("whole")).toMatchObject({ value: { [OUT]: "shared-kv" } });

    const none = outputs(config!, new Map([[SOURCE, remoteFromState(null, source, { stack: "shared", describe: "its state" })]])).get("x")!;
    expect(none.error!.detail).toBe(`${ref()} reads the output "${OUT}" of stack "shared" (its state), which has no state yet: nothing was applied there`);
    expect(none.error!.repair).toBe("Apply that stack first (takoform apply --stack shared).");
  });

  it("a sealed output (a secret flowed into it) is refused: state keeps only its seal", () => {
    const read = remoteFromState({ [OUT]: { value: "sealed", sensitive: true } }, source, { stack: "shared", describe: "its state" });
    const x = outputs(config!, new Map([[SOURCE, read]])).get("x")!;
    expect(x.error!.detail).toContain("which is sensitive: state keeps only a seal of a secret, never its value, so no other stack can read it");
  });

  it("from the producer's plan: unknown until that stack applies, and shown so", () => {
    const plan = {
      outputChanges: [{ name: OUT, actions: ["create"], before: undefined, after: undefined, afterUnknown: true, sensitive: true }],
    } as unknown as Plan;
    const read = remoteFromPlan(plan, source, { stack: "shared", describe: "its plan" });
    const got = outputs(config!, new Map([[SOURCE, read]]));
    const x = got.get("x")!.value;
    expect(isUnknown(x)).toBe(true);
    expect(x).toBe(Unknown.of("shared"));
    expect(x).not.toBe(UNKNOWN);
    expect(formatValue(x, "")).toBe("(known after apply of stack shared)");
    // A template of one stack's unknown stays that stack's.
    expect(got.get("greeting")!.value).toBe(Unknown.of("shared"));
    expect(formatValue(UNKNOWN, "")).toBe("(known after apply)");
  });
});
