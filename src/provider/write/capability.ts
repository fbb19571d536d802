// The repair of an `unsupported_capability` refusal, which means two different things. Either
// this host cannot do it at all (a Binding contract it has not installed, an endpoint address it
// cannot assign: the code's own repair, HOST_CODE_REPAIRS), or not yet: an attachment whose
// worker has no active deployment serving its handler (host-needs.ts) is refused until one does,
// and a deployment may not stop serving an attachment that lives. The host's message says which
// handler; the provider knows, from the Forms, which resources stand in that relation, so the
// repair says what to apply first instead of sending the author to another host.

import { HostApiError } from "../../client/index.ts";
import type { Attributes, Diagnostic } from "../../core/index.ts";
import type { ProviderRuntime } from "../runtime.ts";

function named(attributes: Attributes, attribute: string): string | undefined {
  const value = attributes[attribute];
  return typeof value === "string" ? value : undefined;
}

/** `diagnostic` with the "not yet" repair when the refusal is a host-enforced need; else unchanged. */
export function explainCapability(rt: ProviderRuntime, err: unknown, diagnostic: Diagnostic, type: string, attributes: Attributes): Diagnostic {
  if (!(err instanceof HostApiError) || err.code !== "unsupported_capability") return diagnostic;
  const need = rt.hostNeeds().get(type)?.[0];
  if (need !== undefined) {
    const object = named(attributes, need.attribute);
    const target = object !== undefined ? `${need.targetKind} "${object}"` : `its ${need.targetKind}`;
    const serving = need.handler !== undefined ? ` whose every weighted version serves ${need.handler}` : "";
    return {
      ...diagnostic,
      repair:
        `Not yet: ${need.kind} needs ${target} to have an active ${need.activatorKind}${serving}, and the host found none. ` +
        `Apply again after that ${need.activatorKind} is applied (in the same configuration, takoform applies it first)` +
        (need.handler !== undefined ? `; if it exists, add "${need.handler}" to the handlers of the versions it weights.` : "."),
    };
  }
  // A deployment refused for the attachments it serves: what it would stop serving is needed.
  for (const needs of rt.hostNeeds().values()) {
    const needed = needs.find((n) => n.activatorType === type);
    if (needed === undefined) continue;
    const object = named(attributes, needed.activatorAttribute);
    return {
      ...diagnostic,
      repair:
        `This change would leave an attachment of ${needed.targetKind}${object !== undefined ? ` "${object}"` : ""} unserved (the message names the handler): ` +
        "keep that handler in every version the deployment weights, or remove the attachment first (apply its removal, then this change).",
    };
  }
  return diagnostic;
}
