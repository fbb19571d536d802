// Upstream's portable-host conformance contract, per Host API lane (corpus-gated): every required
// runner check is one test of the host suites, named exactly as the contract names it, in a suite
// the lane's upstream family runs (test/host/family.ts: families() serves upstream's Forms of
// both lanes when TAKOFORM_CORPUS is set; test/host-edge/edge.ts modes() follows it). The checks
// themselves run there; this test proves the list is complete and the contract is the one the
// reference digest pins (its manifest's sha256), so a check upstream adds cannot go unnoticed.

import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { laneNamed, LANES, type LaneName } from "../../src/core/lanes.ts";
import { CORPUS, REPO } from "./family.ts";

/** The manifest digests the reference pins (takoform-host-api-v1beta1.md §1). */
const MANIFEST_SHA256: Record<LaneName, string> = {
  v1alpha3: "a3fe12f9",
  v1beta1: "9bb0d50cd179fef66b511a7e024ad58a8c86d15141c8614f8d177da0b348dcd9",
};
const CHECK_COUNT: Record<LaneName, number> = { v1alpha3: 114, v1beta1: 116 };

/** The suites that carry portable-host checks: the conformance files and the Edge family's. */
const SUITES = [
  ...readdirSync(join(REPO, "test/host"))
    .filter((f) => f.startsWith("conformance-") && f.endsWith(".test.ts"))
    .map((f) => join(REPO, "test/host", f)),
  ...readdirSync(join(REPO, "test/host-edge"))
    .filter((f) => f.endsWith(".test.ts"))
    .map((f) => join(REPO, "test/host-edge", f)),
];

/** Titles of every `it(…)` (also `it.runIf(…)(…)`) in the suites, by file. */
function titles(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of SUITES) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/\bit(?:\.runIf\([^)]*\))?\(\s*"([^"]+)"/g)) {
      const list = out.get(m[1]!) ?? [];
      list.push(file.slice(REPO.length));
      out.set(m[1]!, list);
    }
  }
  return out;
}

describe.runIf(CORPUS !== undefined).each(LANES.map((l) => l.name))("portable-host contract of lane %s", (name) => {
  const lane = laneNamed(name);
  const dir = join(CORPUS ?? "", lane.corpus.folder, lane.corpus.conformanceDir);

  it("is the contract the reference pins", () => {
    const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
    const bytes = readFileSync(join(dir, manifest.contract));
    const digest = createHash("sha256").update(bytes).digest("hex");
    expect(digest).toBe(manifest.sha256);
    expect(digest.startsWith(MANIFEST_SHA256[name])).toBe(true);
    const contract = JSON.parse(bytes.toString("utf8"));
    expect(contract.format).toBe(lane.corpus.conformanceFormat);
    expect(contract.apiVersion).toBe(lane.hostApiVersion);
    expect(contract.discoveryPath).toBe(lane.discoveryPath);
    expect(contract.apiPath).toBe(lane.apiRoot);
    expect(contract.requiredRunnerChecks).toHaveLength(CHECK_COUNT[name]);
  });

  it("names every required check exactly as one test of the suites", () => {
    const contract = JSON.parse(readFileSync(join(dir, "contract.json"), "utf8"));
    const found = titles();
    const missing = (contract.requiredRunnerChecks as string[]).filter((check) => !found.has(check));
    expect(missing).toEqual([]);
    // No test claims a check under a longer title (`check: detail`, `check (…)`): a check is one exact name.
    const near = [...found.keys()].filter((t) =>
      (contract.requiredRunnerChecks as string[]).some((c) => t !== c && (t.startsWith(`${c} `) || t.startsWith(`${c}:`))),
    );
    expect(near).toEqual([]);
  });
});
