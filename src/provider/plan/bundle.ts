// ModifyPlan step 2: plan-time byte identity of an artifact-backed revision (reference §5.6).
// The plan re-reads every local module file, so changed bytes at an unchanged path are a changed
// manifest digest — and, through the derived name, a new revision — rather than an invisible
// no-op. A file that cannot be read leaves the digest unknown, without an error: apply reports it.
// On an existing bundle, the same digest authored another way (a bare digest switched to the
// equivalent local files) is the same bundle, so the authoring attributes do not force a replacement.

import { isUnknown, UNKNOWN, valuesEqual, type Value } from "../../core/index.ts";
import { modulesValue, resolveBundleAuthoring } from "../bundle/authoring.ts";
import { addReplace, planIdentity, removeReplace, type PlanPass } from "./state.ts";

function unresolvedModules(modules: Value): Value {
  if (!Array.isArray(modules)) return UNKNOWN;
  return modules.map((m) =>
    m !== null && typeof m === "object" && !Array.isArray(m) && !isUnknown(m) ? { ...(m as Record<string, Value>), size: UNKNOWN, digest: UNKNOWN } : m,
  );
}

export async function planWorkerBundle(p: PlanPass): Promise<void> {
  if (!p.served.codec.artifactBacked) return;
  const modules = p.planned["modules"] ?? null;
  if (modules === null || isUnknown(modules)) return;
  // Only a digest the configuration pins is checked against the files; a computed one follows them.
  const pinned = p.config["manifest_digest"] ?? null;
  const { authoring, diagnostics } = await resolveBundleAuthoring({ ...p.planned, manifest_digest: pinned }, "plan");
  if (diagnostics.length > 0) {
    const identity = planIdentity(p);
    p.diagnostics.push(...diagnostics.map((d) => ({ ...identity, ...d })));
    return;
  }
  if (authoring === undefined || authoring.mode === "unresolved") {
    p.planned["modules"] = unresolvedModules(modules);
    if (pinned === null) p.planned["manifest_digest"] = UNKNOWN;
  } else if (authoring.mode === "local") {
    p.planned["modules"] = modulesValue(authoring.modules);
    if (pinned === null) p.planned["manifest_digest"] = authoring.manifestDigest;
  }
  if (p.prior === null) return;
  if (valuesEqual(p.planned["manifest_digest"] ?? null, p.prior["manifest_digest"] ?? null)) {
    removeReplace(p, "main_module");
    removeReplace(p, "modules");
  } else {
    addReplace(p, "manifest_digest");
  }
}
