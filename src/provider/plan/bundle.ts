// ModifyPlan step 2: plan-time byte identity of an artifact-backed revision (reference §5.6;
// v1beta1 §10.4), for each manifest kind's surface alike (a WorkerBundle's modules, a static asset
// bundle's or migration set's files). The plan re-reads every local file, so changed bytes at an
// unchanged path are a changed manifest digest — and, through the derived name, a new revision —
// rather than an invisible no-op. The files are read by the write's own checks (write-checks.ts),
// so whatever the apply would refuse — a module without content_file, a file that cannot be read,
// no authoring at all — is refused here, before anything is written. On an existing revision,
// the same digest authored another way (a bare digest switched to the equivalent local files) is
// the same revision, so the authoring attributes do not force a replacement.

import { isUnknown, UNKNOWN, valuesEqual, type Value } from "../../core/index.ts";
import { artifactSurface } from "../bundle/artifact.ts";
import { checkWrite } from "../write-checks.ts";
import { addReplace, planIdentity, removeReplace, type PlanPass } from "./state.ts";

function unresolvedEntries(list: Value): Value {
  if (!Array.isArray(list)) return UNKNOWN;
  return list.map((m) =>
    m !== null && typeof m === "object" && !Array.isArray(m) && !isUnknown(m) ? { ...(m as Record<string, Value>), size: UNKNOWN, digest: UNKNOWN } : m,
  );
}

export async function planArtifact(p: PlanPass): Promise<void> {
  const codec = p.served.codec;
  if (!codec.artifactBacked) return;
  const surface = artifactSurface(codec);
  const list = p.planned[surface.list] ?? null;
  if (isUnknown(list)) return;
  // Only a digest the configuration pins is checked against the files; a computed one follows
  // them. With no files, an existing revision keeps the digest it has, and a new one has only
  // what the configuration pins (none at all is what the apply would refuse).
  const pinned = p.config["manifest_digest"] ?? null;
  const digest = list === null && p.prior !== null ? (p.planned["manifest_digest"] ?? null) : pinned;
  const timeout = p.prior === null ? "create_timeout" : "update_timeout";
  const { authoring, diagnostics } = await checkWrite(codec, { ...p.planned, manifest_digest: digest }, timeout, "plan");
  if (diagnostics.length > 0) {
    const identity = planIdentity(p);
    p.diagnostics.push(...diagnostics.map((d) => ({ ...identity, ...d })));
    return;
  }
  if (list === null) return;
  if (authoring === undefined || authoring.mode === "unresolved") {
    p.planned[surface.list] = unresolvedEntries(list);
    if (pinned === null) p.planned["manifest_digest"] = UNKNOWN;
  } else if (authoring.mode === "local") {
    p.planned[surface.list] = authoring.listValue;
    if (pinned === null) p.planned["manifest_digest"] = authoring.manifestDigest;
  }
  if (p.prior === null) return;
  if (valuesEqual(p.planned["manifest_digest"] ?? null, p.prior["manifest_digest"] ?? null)) {
    for (const name of surface.authoring) removeReplace(p, name);
  } else {
    addReplace(p, "manifest_digest");
  }
}
