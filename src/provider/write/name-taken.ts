// A create whose name another holder already has. The host refuses it in one of two places:
// - at prepare, with `invalid_argument`: a create's prepare carries no generation fence, and a
//   prepare on an existing resource requires one (reference host API §7.2). The code alone
//   cannot tell this from a spec the host refused, so the provider confirms it with one read of
//   the name; the diagnostic then also names the incarnation that holds it;
// - at the PUT, with `generation_conflict`: `If-None-Match: *` failed, the name was taken
//   between prepare and apply.
// Either way the host's envelope is stable and keeps its code; what changes is the repair: the
// configuration is fine, the name is not free, so import the holder or pick another name.

import { HostApiError, type HostClient, isResourceNotFound } from "../../client/index.ts";
import { type Diagnostic, type FormRef, HEADER } from "../../core/index.ts";

export interface NameTakenContext {
  space: string;
  ref: FormRef;
  name: string;
  /** The create's deadline; the confirming read stays inside it. */
  deadline: number;
}

export function nameTakenRepair(space: string, name: string): string {
  return (
    `The name ${space}/${name} is already taken on the host by a resource this state does not manage ` +
    "(another configuration, or a resource created outside this state). " +
    `Import it into this state (takoform import ADDRESS ${space}/${name}) to manage it here, ` +
    "or choose another name (or name_prefix, or a different revision_owner for a derived revision name)."
  );
}

/** The client labels a call by its verb first (`prepare <group> <kind> "<space>"/<name>`). */
function failedAt(err: HostApiError, verb: string): boolean {
  return err.origin === "response" && err.call.startsWith(`${verb} `);
}

/**
 * `diagnostic` (a failed create) with the name-taken repair when the refusal was the name being
 * held; otherwise unchanged. Costs one read, only after a prepare refused with invalid_argument.
 */
export async function explainNameTaken(client: HostClient, err: unknown, diagnostic: Diagnostic, ctx: NameTakenContext): Promise<Diagnostic> {
  if (!(err instanceof HostApiError)) return diagnostic;
  const taken: Diagnostic = { ...diagnostic, pointer: "/metadata/name", repair: nameTakenRepair(ctx.space, ctx.name) };
  if (err.code === "generation_conflict" && failedAt(err, "apply")) return taken;
  if (err.code !== "invalid_argument" || !failedAt(err, "prepare")) return diagnostic;
  try {
    const holder = await client.getResource(ctx.space, ctx.ref, ctx.name, { deadline: ctx.deadline });
    return { ...taken, currentUid: holder.metadata.uid, currentGeneration: holder.metadata.generation };
  } catch (readError) {
    if (isResourceNotFound(readError)) return diagnostic;
    // The read could not settle it (the holder may be bound to another definition of the Form):
    // the host asking a create's prepare for the generation fence is then the only evidence.
    return err.hostMessage.includes(HEADER.expectedGeneration) ? taken : diagnostic;
  }
}
