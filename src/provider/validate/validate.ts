// validate(type, config): every check that needs no host (ValidateConfig plus the attribute
// validators of the reference). Unknown values are skipped, never guessed. The plan does not
// repeat these checks; the engine runs validate before plan.

import {
  controlCharacterNote,
  type Attributes,
  controlCharacterIn,
  type Diagnostic,
  isResourceName,
  isSpaceId,
  isUnknown,
  isWhollyKnown,
  UNKNOWN,
  type Value,
} from "../../core/index.ts";
import type { FormCodec } from "../../registry/index.ts";
import { staticArtifactProblems } from "../bundle/artifact.ts";
import { isOwnerToken } from "../revision/names.ts";
import { type ProviderRuntime } from "../runtime.ts";
import { timeoutProblem } from "../timeouts.ts";
import { providerCode } from "../diagnostics/codes.ts";
import { cronProblem } from "./cron.ts";
import { environmentProblems } from "./environment.ts";
import { fieldProblems } from "./fields.ts";
import { localFileProblems } from "./files.ts";
import { hostnameProblem } from "./hostname.ts";
import { schemaProblems } from "./schema.ts";
import { providerWork } from "../work-counters.ts";
import { invalidSpace } from "../dispatch.ts";
import { ownerIgnored, ownerMissing } from "../plan/revision-name.ts";

/** A name_prefix leaves room for the 8 hex digits a generated name appends. */
const NAME_PREFIX = /^[a-z][a-z0-9-]{0,54}$/;
export const DEPLOYMENT_WEIGHT_TOTAL = 10_000;

function isSetValue(value: Value | undefined): boolean {
  return value !== undefined && value !== null;
}

function nameProblems(codec: FormCodec, config: Attributes): Diagnostic[] {
  const out: Diagnostic[] = [];
  const name = config["name"];
  if (typeof name === "string" && !isResourceName(name)) {
    out.push({
      severity: "error",
      summary: "Invalid resource name",
      code: providerCode("attribute-value-invalid"),
      detail: `name ${JSON.stringify(name)} must be a lowercase letter followed by up to 62 lowercase letters, digits or hyphens${controlCharacterNote("name", name)}.`,
      attribute: "name",
      pointer: "/metadata/name",
      repair: "Choose a name in that grammar.",
    });
  }
  if (codec.role === "revision") {
    const owner = config["revision_owner"];
    if (typeof owner === "string" && (!isOwnerToken(owner) || controlCharacterIn(owner) !== undefined)) {
      out.push({
        severity: "error",
        summary: "Invalid revision owner",
        code: providerCode("attribute-value-invalid"),
        detail: `revision_owner must be a non-empty token without white space or control characters${controlCharacterNote("revision_owner", owner)}.`,
        attribute: "revision_owner",
        repair: "Set revision_owner to the owner's name, such as the takoform_module_worker this revision belongs to.",
      });
    }
    // Whose revision it is decides its derived name: the plan refuses neither-nor and both, as
    // plan/revision-name.ts does, here so that a run refusing them has opened nothing.
    const pinned = name ?? null;
    const owned = owner ?? null;
    if (pinned === null && owned === null) out.push(ownerMissing(codec.ref.kind, {}));
    else if (pinned !== null && owned !== null) out.push(ownerIgnored(codec.ref.kind, pinned, {}));
    return out;
  }
  const prefix = config["name_prefix"];
  const hasName = isSetValue(name);
  const hasPrefix = isSetValue(prefix);
  if (hasName === hasPrefix) {
    out.push({
      severity: "error",
      summary: hasName ? "Conflicting name and name_prefix" : "Missing name",
      code: providerCode("attribute-value-invalid"),
      detail: hasName ? "name and name_prefix both choose the host name; set exactly one of them." : "A resource needs exactly one of name and name_prefix.",
      attribute: hasName ? "name_prefix" : "name",
      pointer: "/metadata/name",
      repair: hasName
        ? "Remove name_prefix to keep the pinned name, or remove name to have one generated at create."
        : "Set name to pin the host name, or name_prefix to have a name generated at create (which also lets a replacement happen side by side).",
    });
  }
  if (typeof prefix === "string" && !NAME_PREFIX.test(prefix)) {
    out.push({
      severity: "error",
      summary: "Invalid name prefix",
      code: providerCode("attribute-value-invalid"),
      detail: `name_prefix ${JSON.stringify(prefix)} must be a lowercase letter followed by up to 54 lowercase letters, digits or hyphens, so that the generated name fits 63 characters${controlCharacterNote("name_prefix", prefix)}.`,
      attribute: "name_prefix",
      repair: "Shorten or correct name_prefix.",
    });
  }
  return out;
}

/**
 * The deployment weight total. The protocol puts this rule at the host's apply and import (a
 * prepare accepts the spec; reference §2.7 step 6, §10.5), so the provider only warns: the plan
 * can see the refusal coming, and the host decides. See docs/provider.md §5.
 */
function weightProblems(codec: FormCodec, config: Attributes): Diagnostic[] {
  if (codec.ref.kind !== "WorkerDeployment") return [];
  const field = codec.fields.find((f) => f.type.kind === "object-list" && f.type.members.some((m) => m.wire === "weight"));
  if (field === undefined) return [];
  const versions = config[field.attribute];
  if (!Array.isArray(versions) || !isWhollyKnown(versions)) return [];
  const weight = field.type.kind === "object-list" ? field.type.members.find((m) => m.wire === "weight")!.attribute : "weight";
  let total = 0;
  for (const v of versions) {
    const w = v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, Value>)[weight] : undefined;
    if (typeof w !== "number") return [];
    total += w;
  }
  if (total === DEPLOYMENT_WEIGHT_TOTAL) return [];
  return [
    {
      severity: "warning",
      summary: "Invalid deployment weight total",
      detail: `The weights of ${field.attribute} add up to ${total}; they must total ${DEPLOYMENT_WEIGHT_TOTAL}. The host refuses this deployment when it is applied (invalid_argument), and nothing that depends on it is applied after it.`,
      code: providerCode("host-will-refuse"),
      attribute: field.attribute,
      pointer: `/${field.wire}`,
      repair: `Adjust the weights so they add up to exactly ${DEPLOYMENT_WEIGHT_TOTAL}.`,
    },
  ];
}

export function validateConfig(rt: ProviderRuntime, type: string, config: Attributes): Diagnostic[] {
  providerWork.configsValidated++;
  const line = rt.line(type);
  if (line === undefined) return [rt.unserved(type)];
  const codec = rt.table.defaultCreate(line).codec;
  const schema = rt.schema(type)!;

  // Schema conformance first; the value checks below read only conforming attributes (an
  // attribute that does not conform reads as unknown to them: skipped, never guessed).
  const conformance = schemaProblems(schema, config);
  const out: Diagnostic[] = [...conformance.diagnostics];
  if (conformance.nonconforming.size > 0) {
    const conforming: Attributes = {};
    for (const [name, value] of Object.entries(config))
      if (Object.hasOwn(schema.attributes, name)) conforming[name] = conformance.nonconforming.has(name) ? UNKNOWN : value;
    config = conforming;
  }

  out.push(...nameProblems(codec, config));
  const space = config["space"];
  if (typeof space === "string" && !isSpaceId(space)) {
    out.push({
      severity: "error",
      summary: "Invalid or missing SpaceID",
      code: providerCode("attribute-value-invalid"),
      detail: `space ${JSON.stringify(space)} must be 1 to 255 characters, with no "/", no control characters and no leading or trailing white space${controlCharacterNote("space", space)}.`,
      attribute: "space",
      repair: "Correct space, or leave it out to use the provider's default space.",
    });
  }
  // A resource that sets no space is created in the provider's default one; a default that is no
  // SpaceID (TAKOFORM_SPACE="team/a") is a configuration error, refused before anything opens.
  if (space == null && Object.hasOwn(schema.attributes, "space") && !isSpaceId(rt.defaultSpace)) out.push(invalidSpace(type, rt.defaultSpace));
  for (const name of ["create_timeout", "update_timeout", "delete_timeout"]) {
    if (!Object.hasOwn(schema.attributes, name)) continue;
    const problem = timeoutProblem(name, config[name]);
    if (problem !== undefined) out.push(problem);
  }
  for (const field of codec.fields) {
    if (codec.artifactBacked && field.wire === "manifestDigest") continue;
    const value = config[field.attribute] ?? null;
    const hostname = field.wire === "hostname" && typeof value === "string" ? hostnameProblem(field.attribute, value) : undefined;
    if (hostname === undefined) out.push(...fieldProblems(field, value));
    if (typeof value === "string" && !isUnknown(value) && field.type.kind === "string") {
      if (field.wire === "cron") {
        const problem = cronProblem(value);
        if (problem !== undefined) {
          out.push({
            severity: "error",
            summary: "Invalid cron expression",
            code: providerCode("attribute-value-invalid"),
            detail: `${field.attribute} ${JSON.stringify(value)}: ${problem}.`,
            attribute: field.attribute,
            pointer: `/${field.wire}`,
            repair: 'Write five fields (minute hour day-of-month month day-of-week) in UTC, such as "*/5 * * * *".',
          });
        }
      }
      if (hostname !== undefined) {
        const problem = hostname;
        out.push({
          severity: "error",
          ...problem,
          code: providerCode("attribute-value-invalid"),
          attribute: field.attribute,
          pointer: `/${field.wire}`,
          repair: "Write the hostname in lowercase ASCII (A-labels for internationalized names), without a trailing dot.",
        });
      }
    }
  }
  out.push(...weightProblems(codec, config));
  out.push(...environmentProblems(codec, config));
  if (codec.artifactBacked) {
    out.push(...staticArtifactProblems(codec, config));
    out.push(...localFileProblems(config));
    const digest = config["manifest_digest"];
    if (typeof digest === "string" && !/^sha256:[0-9a-f]{64}$/.test(digest)) {
      out.push({
        severity: "error",
        summary: "Invalid manifest digest",
        code: providerCode("attribute-value-invalid"),
        detail: `manifest_digest ${JSON.stringify(digest)} must be sha256: followed by 64 lowercase hex digits.`,
        attribute: "manifest_digest",
      });
    }
  }
  return out.map((d) => ({ resourceType: type, ...d }));
}
