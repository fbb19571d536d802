// What the runtime refuses at deploy: a WorkerVersion with a binding this runtime has no
// projection for. The five Edge family bindings (module-worker.edge-kv, .queue-producer,
// .service, .object-bucket, .sqlite) all have one, because their Interfaces define the
// operations (docs/runtime.md); a binding list that another Form package adds under a Binding
// Definition of another name is refused `unsupported_capability` when the version is stored,
// naming the binding, instead of deploying a worker whose env would be missing a member or
// carry a fake. Registered for every Edge family line of a host that may serve workers.

import { HostError } from "../errors.ts";
import { EDGE_GROUPS } from "../rules/outputs.ts";
import type { MutationContext, RuleModule } from "../rules/types.ts";
import { BINDING_KINDS } from "./topology.ts";

function checkBindings(ctx: MutationContext): void {
  for (const target of ctx.targets) {
    const binding = target.instance.relation.binding;
    if (binding === null || BINDING_KINDS.has(binding)) continue;
    throw new HostError(
      "unsupported_capability",
      `WorkerVersion "${ctx.name}": ${target.instance.pointer} uses the binding ${binding}, which this host's worker runtime cannot project into env; it projects ${[...BINDING_KINDS.keys()].join(", ")}`,
      { hostCode: "binding_not_projected" },
    );
  }
}

export const runtimeRules: RuleModule = (registry) => {
  for (const group of EDGE_GROUPS) registry.register(group, "WorkerVersion", { checkMutation: checkBindings });
};
