// The Edge Platform Family semantics, registered for each known Edge family line by EXACT group
// and kind: the bundled family and upstream's, of every lane (src/core/lanes.ts). See
// docs/host-edge.md.

import type { RuleModule } from "../types.ts";
import { cronTriggerRules, customDomainRules, endpointRules, queueConsumerRules } from "./attachments.ts";
import { artifactBackedRules } from "./bundle.ts";
import { workerDeploymentRules } from "./deployment.ts";
import { EDGE_GROUPS, KIND } from "./family.ts";
import { workerVersionRules } from "./version.ts";
import { moduleWorkerRules } from "./worker.ts";
import { migrationApplicationRules } from "./migrations.ts";

export const edgeRules: RuleModule = (registry) => {
  const versionRules = workerVersionRules(registry.host);
  const bundleRules = artifactBackedRules(registry.host);
  const applicationRules = migrationApplicationRules(registry.host);
  for (const group of EDGE_GROUPS) {
    registry.register(group, KIND.worker, moduleWorkerRules);
    registry.register(group, KIND.bundle, bundleRules);
    registry.register(group, KIND.assets, bundleRules);
    registry.register(group, KIND.migrationSet, bundleRules);
    registry.register(group, KIND.version, versionRules);
    registry.register(group, KIND.deployment, workerDeploymentRules);
    registry.register(group, KIND.domain, customDomainRules);
    registry.register(group, KIND.endpoint, endpointRules);
    registry.register(group, KIND.cron, cronTriggerRules);
    registry.register(group, KIND.consumer, queueConsumerRules);
    registry.register(group, KIND.migrationApplication, applicationRules);
  }
};
