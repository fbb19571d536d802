// Sensitive variables never reach plan output, plan files or state in the clear, and an unchanged
// secret plans no change.

import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { resolveVariables } from "../../src/engine/config/variables/resolve.ts";
import { createPlan } from "../../src/engine/plan/build.ts";
import { checkSensitiveVariables, decodePlanFile, encodePlanFile } from "../../src/engine/plan/file.ts";
import { renderPlan } from "../../src/views/human.ts";
import { planToJson } from "../../src/views/json.ts";
import { readSnapshot, runApply } from "../../src/engine/run.ts";
import { stackOf, useEngine, withScratch } from "../scenario/harness.ts";

const Q = "takoform_at_least_once_queue";
const SECRET = 987_654;

describe("sensitive variables", () => {
  const ctx = useEngine();

  it("are hidden in plans, sealed in plan files and state, and an unchanged value plans nothing", () =>
    withScratch(async (local, store) => {
      const stack = await stackOf(local, {
        variable: { retention: { type: "number", sensitive: true } },
        resource: { [Q]: { s: { name: "sens-q", message_retention_seconds: "${var.retention}" } } },
      });
      const setupFor = (value: number) => ({
        provider: ctx.engine.setup(stack).provider,
        stack,
        variables: resolveVariables(stack.variables, { values: { retention: value } }),
      });
      const setup = setupFor(SECRET);
      const made = await createPlan({ ...setup, state: await readSnapshot(store) });
      expect(made.ok).toBe(true);
      const human = renderPlan(made.plan, { color: false });
      expect(human).toContain("(sensitive value)");
      expect(human).not.toContain(String(SECRET));
      expect(JSON.stringify(planToJson(made.plan))).not.toContain(String(SECRET));
      const file = encodePlanFile({ plan: made.plan, stackDocument: "{}", variables: setup.variables, mode: "normal", refresh: true });
      expect(file).not.toContain(String(SECRET));
      const saved = decodePlanFile(file);
      expect(checkSensitiveVariables(saved, setupFor(1234).variables).map((d) => d.code)).toEqual(["takoform.engine/plan-file-variable-mismatch"]);
      expect(checkSensitiveVariables(saved, setup.variables)).toEqual([]);

      const run = await runApply(setup, store, { lock: { holder: "t" }, saved });
      expect(run.result?.ok).toBe(true);
      // Neither the database nor its WAL (which held the write's intent before it settled).
      for (const file of ["state.db", "state.db-wal"])
        expect(readFileSync(local.path(".takoform", file)).toString("latin1"), file).not.toContain(String(SECRET));
      const record = (await store.get(`${Q}.s`))!;
      expect(record.attributes["message_retention_seconds"]).toMatchObject({ $sensitive: expect.stringMatching(/^sha256:/) });

      const again = await createPlan({ ...setup, state: await readSnapshot(store) });
      expect(again.plan.resourceChanges.map((c) => c.actions)).toEqual([["no-op"]]);
      expect(again.plan.resourceDrift).toEqual([]);
      const changed = await createPlan({ ...setupFor(SECRET + 1), state: await readSnapshot(store) });
      expect(changed.plan.resourceChanges.map((c) => c.actions)).toEqual([["update"]]);
      const changedText = renderPlan(changed.plan, { color: false });
      expect(changedText).not.toContain(String(SECRET + 1));
      expect(changedText).not.toContain(String(SECRET));
      // The change itself is shown (both sides would mask to the same text): Terraform's form, unquoted.
      expect(changedText).toMatch(/~ message_retention_seconds += \(sensitive value\)\n/);
      const changedJson = planToJson(changed.plan)["resource_changes"] as Record<string, any>[];
      expect(changedJson[0]!["change"].before_sensitive).toMatchObject({ message_retention_seconds: true });
      expect(changedJson[0]!["change"].after_sensitive).toMatchObject({ message_retention_seconds: true });

      // A destroy plan's `before` is the host's refreshed object, which holds the plain value.
      const destroying = await createPlan({ ...setup, state: await readSnapshot(store), options: { mode: "destroy" } });
      expect(destroying.plan.resourceChanges.map((c) => c.actions)).toEqual([["delete"]]);
      expect(renderPlan(destroying.plan, { color: false })).not.toContain(String(SECRET));
      const destroyJson = planToJson(destroying.plan);
      expect(JSON.stringify(destroyJson)).not.toContain(String(SECRET));
      expect((destroyJson["resource_changes"] as Record<string, any>[])[0]!["change"].before_sensitive).toMatchObject({ message_retention_seconds: true });
      expect(encodePlanFile({ plan: destroying.plan, stackDocument: "{}", variables: setup.variables, mode: "destroy", refresh: true })).not.toContain(
        String(SECRET),
      );
      // And a resource removed from the configuration (an orphan) the same way.
      const empty = await stackOf(local, { variable: { retention: { type: "number", sensitive: true } } });
      const orphaned = await createPlan({
        provider: setup.provider,
        stack: empty,
        variables: resolveVariables(empty.variables, { values: { retention: SECRET } }),
        state: await readSnapshot(store),
      });
      expect(orphaned.plan.resourceChanges.map((c) => c.actions)).toEqual([["delete"]]);
      expect(renderPlan(orphaned.plan, { color: false })).not.toContain(String(SECRET));
      expect(JSON.stringify(planToJson(orphaned.plan))).not.toContain(String(SECRET));
    }));
});
