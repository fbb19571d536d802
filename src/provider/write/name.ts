// The host name a create is sent under (reference §3.6, and the `name_prefix` extension):
// - a known `name` is used as is;
// - a revision derives it from its content and revision_owner, with the same function the plan
//   used over the same spec, so plan and apply agree byte for byte;
// - a non-revision with `name_prefix` gets the prefix plus 8 random lowercase hex digits, minted
//   here once; a crash after the intent was recorded re-sends that same name.

import { randomBytes } from "node:crypto";
import { type Attributes, type Diagnostic, isResourceName } from "../../core/index.ts";
import type { JsonObject } from "../../forms/index.ts";
import type { FormCodec } from "../../registry/index.ts";
import { knownString } from "../attributes.ts";
import { providerCode } from "../diagnostics/codes.ts";
import { deriveRevisionName } from "../revision/names.ts";
import { ownerMissing } from "../plan/revision-name.ts";

export function createName(
  codec: FormCodec,
  values: Attributes,
  spec: JsonObject,
  identity: Omit<Diagnostic, "severity" | "summary">,
): { name: string } | { diagnostic: Diagnostic } {
  const kind = codec.ref.kind;
  const given = knownString(values, "name");
  let name: string | undefined = given;
  if (name === undefined && codec.role === "revision") {
    const owner = knownString(values, "revision_owner");
    if (owner === undefined) return { diagnostic: ownerMissing(kind, identity) };
    name = deriveRevisionName(codec, owner, spec);
    if (name === undefined) {
      return {
        diagnostic: {
          severity: "error",
          summary: `Cannot derive the ${kind} revision name`,
          detail: "The desired spec does not yield a content digest to derive the name from.",
          code: providerCode("revision-name-unresolved"),
          ...identity,
          pointer: "/metadata/name",
          repair: "Set `name` explicitly, to a name no live revision holds.",
        },
      };
    }
  } else if (name === undefined) {
    const prefix = knownString(values, "name_prefix");
    if (prefix !== undefined) name = `${prefix}${randomBytes(4).toString("hex")}`;
  }
  if (name === undefined) {
    return {
      diagnostic: {
        severity: "error",
        summary: `Unknown ${kind} name`,
        detail: "name must be wholly known before the provider can apply this Form.",
        code: providerCode("revision-name-unresolved"),
        ...identity,
        attribute: "name",
        pointer: "/metadata/name",
        repair: "Set `name` (or `name_prefix`) to a value that is wholly known before this apply runs.",
      },
    };
  }
  if (!isResourceName(name)) {
    return {
      diagnostic: {
        severity: "error",
        summary: `Invalid ${kind} name`,
        code: providerCode("attribute-value-invalid"),
        detail: `${JSON.stringify(name)} is not a resource name: a lowercase letter, then up to 62 lowercase letters, digits or hyphens.`,
        ...identity,
        attribute: given !== undefined ? "name" : "name_prefix",
        pointer: "/metadata/name",
        repair: "Choose a name (or a name_prefix of at most 55 characters) in that grammar.",
      },
    };
  }
  return { name };
}
