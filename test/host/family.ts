// The Form family a conformance run is parameterized by. The suite runs against the bundled
// Edge family always, and against the upstream v1alpha3 corpus when TAKOFORM_CORPUS is set
// (served with --no-bundled, the corpus, and the bundled second-group Form).

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LocalHostOptions } from "../../src/host/index.ts";
import { laneNamed } from "../../src/core/lanes.ts";

export const REPO = fileURLToPath(new URL("../../", import.meta.url));
export const CORPUS = process.env.TAKOFORM_CORPUS;

export interface Family {
  label: string;
  options: LocalHostOptions;
  /** The API root of the lane the family is served on. */
  api: string;
  /** The Edge family group. */
  group: string;
  /** The second group that also has an EdgeKVNamespace (no Interfaces). */
  otherGroup: string;
  /** Definition version of the first and the second ModuleWorker contracts. */
  moduleWorkerVersions: [string, string];
  /** Pinned exact refs to check the served catalog against, when the family pins them. */
  pinned?: Record<string, { definitionVersion: string; schemaDigest: string }>;
}

export const BUNDLED: Family = {
  label: "bundled edge.takoform-cdk.dev",
  options: { bundled: true, lanes: ["v1alpha3"] },
  api: laneNamed("v1alpha3").apiRoot,
  group: "edge.takoform-cdk.dev/v1alpha1",
  otherGroup: "other.takoform-cdk.dev/v1alpha1",
  moduleWorkerVersions: ["0.1.0", "0.2.0"],
};

export function upstreamFamily(corpus: string): Family {
  return {
    label: "upstream edge.forms.takoform.com",
    options: {
      bundled: false,
      forms: [join(corpus, "takoform-v1alpha3"), join(REPO, "registry/packages/forms/other")],
      lanes: ["v1alpha3"],
    },
    api: laneNamed("v1alpha3").apiRoot,
    group: "edge.forms.takoform.com/v1alpha1",
    otherGroup: "other.takoform-cdk.dev/v1alpha1",
    moduleWorkerVersions: ["0.1.0", "0.2.0"],
    pinned: {
      ModuleWorker: { definitionVersion: "0.1.0", schemaDigest: "sha256:cea859e4a2c295dea985e0b26bbc70309d296e210b805facf4b5592e5f635616" },
      WorkerVersion: { definitionVersion: "0.1.0", schemaDigest: "sha256:5304e2c173b4fc55c72ca6926738025c45bc4c6a3b9ac175b8f592047d7011af" },
      EdgeKVNamespace: { definitionVersion: "0.1.0", schemaDigest: "sha256:c24609616f36229634e82a987b98da5fc4043cbf400d8ff918e77c19c64b1d7e" },
    },
  };
}

/** Every family this run covers. */
export function families(): Family[] {
  return CORPUS === undefined ? [BUNDLED] : [BUNDLED, upstreamFamily(CORPUS)];
}
