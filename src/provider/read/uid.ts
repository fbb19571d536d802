// The UID rule (decision 0017 rule 6; reference §4.3). State names one incarnation. When the
// host serves a different uid under the name state records, the resource state was applied
// against is gone and something else holds its name. No apply can turn one incarnation into the
// other, so the provider neither re-binds state to the newcomer nor drops it: it raises an error
// naming both uids and the three ways out, and keeps state exactly as it was.

import type { Diagnostic, WireResource } from "../../core/index.ts";
import { providerCode } from "../diagnostics/codes.ts";

/** The error when `resource` is another incarnation than `stateUid`; undefined when the rule passes. */
export function uidMismatch(
  kind: string,
  stateUid: string | undefined,
  resource: WireResource | undefined,
  identity: Omit<Diagnostic, "severity" | "summary">,
): Diagnostic | undefined {
  if (stateUid === undefined || stateUid === "" || resource === undefined) return undefined;
  const current = resource.metadata.uid;
  if (current === stateUid) return undefined;
  return {
    severity: "error",
    summary: `${kind} is a different incarnation than state records`,
    detail:
      `State was applied against uid ${stateUid}, but the host now serves uid ${current} under the same name: the resource state describes no longer exists there. ` +
      "The provider will not bind state to a resource it never applied, and will not remove the state either.",
    code: providerCode("uid-mismatch"),
    ...identity,
    pointer: "/metadata/uid",
    expectedUid: stateUid,
    currentUid: current,
    currentGeneration: resource.metadata.generation,
    currentRevision: resource.metadata.revision,
    repair: [
      "Resolve it explicitly, by one of:",
      `  1. import the new incarnation: remove this resource from state (takoform state rm) and import it again, which binds state to uid ${current};`,
      `  2. restore the prior incarnation, if the resource state names can be recovered on the host under uid ${stateUid};`,
      "  3. delete the host-side replacement, then apply again to create the resource this configuration describes.",
      "State is preserved until you choose.",
    ].join("\n"),
  };
}
