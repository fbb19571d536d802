// The Form family a conformance run is parameterized by: one per Host API lane and source. The
// suites run against this project's bundled Edge family of each lane always, and — when
// TAKOFORM_CORPUS is set — against upstream's published family of each lane, served the way an
// outside runner serves it (--no-bundled, the corpus of that lane, and the bundled second-group
// Form): upstream's v1alpha3 lane (the portable-host-v3 contract's 114 checks) and its v1beta1
// lane (portable-host-v1beta1's 116; test/host/portable-host-checks.test.ts proves every check
// names a test).

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LocalHostOptions } from "../../src/host/index.ts";
import { laneNamed, type LaneName } from "../../src/core/lanes.ts";

export const REPO = fileURLToPath(new URL("../../", import.meta.url));
export const CORPUS = process.env.TAKOFORM_CORPUS;

export interface Family {
  label: string;
  /** The Host API lane the family is served on. */
  lane: LaneName;
  /** `bundled`: this project's own family; `upstream`: the corpus's. */
  source: "bundled" | "upstream";
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
  /** The pinned `worker.runtime` Interface digest of an upstream family. */
  runtimeContractDigest?: string;
}

const OTHER_GROUP = "other.takoform-cdk.dev/v1alpha1";

export function bundledFamily(lane: LaneName): Family {
  const l = laneNamed(lane);
  return {
    label: `bundled ${l.edgeGroups.bundled}`,
    lane,
    source: "bundled",
    options: { bundled: true, lanes: [lane] },
    api: l.apiRoot,
    group: l.edgeGroups.bundled,
    otherGroup: OTHER_GROUP,
    moduleWorkerVersions: ["0.1.0", "0.2.0"],
  };
}

/** The first lane's bundled family: the one suites that need a single family use. */
export const BUNDLED: Family = bundledFamily("v1alpha3");

/** Pins of the published upstream families (reference takoform-host-api-v1beta1.md §8.3, §8.4). */
const UPSTREAM_PINS: Record<LaneName, { pinned: Family["pinned"]; runtime: string }> = {
  v1alpha3: {
    pinned: {
      ModuleWorker: { definitionVersion: "0.1.0", schemaDigest: "sha256:cea859e4a2c295dea985e0b26bbc70309d296e210b805facf4b5592e5f635616" },
      WorkerVersion: { definitionVersion: "0.1.0", schemaDigest: "sha256:5304e2c173b4fc55c72ca6926738025c45bc4c6a3b9ac175b8f592047d7011af" },
      EdgeKVNamespace: { definitionVersion: "0.1.0", schemaDigest: "sha256:c24609616f36229634e82a987b98da5fc4043cbf400d8ff918e77c19c64b1d7e" },
    },
    runtime: "sha256:48d5fe4ca3109d1235354fef99748f5d01b7e0c398f97a9354496a220dc7a579",
  },
  v1beta1: {
    pinned: {
      ModuleWorker: { definitionVersion: "0.1.0", schemaDigest: "sha256:6de1d1ff575caf7e6ca10ee6d905df1174bc26943ca95de6ada5f9229507d192" },
      WorkerVersion: { definitionVersion: "0.1.0", schemaDigest: "sha256:22fde31c0b695ca59f5c46230c1ed03d6a6f53c01015d4a5acf6bdb0ed70b50c" },
      EdgeKVNamespace: { definitionVersion: "0.1.0", schemaDigest: "sha256:3aa5ba16bf9bdc77aab46d0d0350c3e8aabe00e5800b721909687e8c87dcbdd0" },
      StaticAssetBundle: { definitionVersion: "0.1.0", schemaDigest: "sha256:9cdfa58d6701e571d41c42281e2de770c989d3c0dd3fb642533c43fa897eb348" },
      SQLiteMigrationSet: { definitionVersion: "0.1.0", schemaDigest: "sha256:3572235f407dee473b49623e836ef583a9c98589797b95c6c7f4e865b3c58ba5" },
      SQLiteMigrationApplication: { definitionVersion: "0.1.0", schemaDigest: "sha256:0d2329af0de28f2fa8ceb873d06d920dac7d9f4c577ff0d3b3ba43a7d229adbf" },
    },
    runtime: "sha256:c5d71337fb615f403f00c21a92dc6bcc9fc3cbcffad600e537a55f124441e820",
  },
};

export function upstreamFamily(corpus: string, lane: LaneName = "v1alpha3"): Family {
  const l = laneNamed(lane);
  return {
    label: `upstream ${l.edgeGroups.upstream}`,
    lane,
    source: "upstream",
    options: {
      bundled: false,
      forms: [join(corpus, l.corpus.folder), join(REPO, "registry/packages/forms/other")],
      lanes: [lane],
    },
    api: l.apiRoot,
    group: l.edgeGroups.upstream,
    otherGroup: OTHER_GROUP,
    moduleWorkerVersions: ["0.1.0", "0.2.0"],
    pinned: UPSTREAM_PINS[lane].pinned,
    runtimeContractDigest: UPSTREAM_PINS[lane].runtime,
  };
}

/** Every family this run covers: both lanes' bundled families, and upstream's when TAKOFORM_CORPUS is set. */
export function families(): Family[] {
  const bundled = [bundledFamily("v1alpha3"), bundledFamily("v1beta1")];
  return CORPUS === undefined ? bundled : [...bundled, upstreamFamily(CORPUS, "v1alpha3"), upstreamFamily(CORPUS, "v1beta1")];
}

/** The families of the v1beta1 lane (whose Forms the rules new at v1beta1 attach to). */
export function betaFamilies(): Family[] {
  return families().filter((f) => f.lane === "v1beta1");
}
