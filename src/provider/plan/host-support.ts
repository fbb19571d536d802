// ModifyPlan step 5: plan-time host support (decision 0031; reference §12). The plan asks the
// host's support profiles whether it can serve this resource at all, before anything is applied:
// 1. the exact Form (refusal: error; could not ask: a warning, and nothing further is checked);
// 2. the lifecycle operations the profile lists, when it lists any;
// 3. each Interface the Form provides, and each Binding the planned configuration actually uses;
// 4. planned values against the published enums, ranges and collection limits, and an
//    artifact-backed revision's authored manifest against maximumBundleFiles / maximumBundleBytes.
// Only an explicit "no" refuses; whatever a profile leaves out decides nothing, and an unreadable
// surface is a warning — apply stays the backstop. Plans never mutate the host. A credential the
// host refused (401) is not "unreadable": it is the run's one credential finding, an error, and
// once it is known no further profile is asked for (diagnostics/credential.ts).

import { type Diagnostic, errorText, isUnknown, isWhollyKnown, type ManifestKind, type Value, type WireSupportProfile } from "../../core/index.ts";
import type { CodecField, FormCodec } from "../../registry/index.ts";
import { artifactSurface } from "../bundle/artifact.ts";
import { providerCode } from "../diagnostics/codes.ts";
import type { SupportAnswer } from "./support-cache.ts";
import { planIdentity, type PlanPass } from "./state.ts";

/** A contract a Form names by name and version. */
/** The Interfaces a codec's Form provides (each is asked about at plan time). */
function providedInterfaces(codec: FormCodec): FormCodec["providedInterfaces"] {
  return codec.providedInterfaces;
}

/** The version of a binding contract the Form accepts; upstream's default 1.0.0 when it names none. */
function bindingVersion(codec: FormCodec, binding: string): string {
  return codec.acceptedBindings.find((b) => b.name === binding)?.version ?? "1.0.0";
}

/** The host implements a contract of this name@version, but not the one the Form names (another lane's bytes). */
function otherContract(
  what: "Interface" | "Binding",
  label: string,
  kind: string,
  expected: string,
  answered: string,
  identity: Omit<Diagnostic, "severity" | "summary">,
): Diagnostic {
  return {
    severity: "error",
    summary: `This host implements another ${label} than ${kind} needs`,
    detail: `${kind} names the ${what} ${label} with schema ${expected}; the host's support profile answers ${label} with schema ${answered}, another contract of the same name and version (as another Host API lane publishes).`,
    code: providerCode(what === "Interface" ? "host-does-not-support-interface" : "host-does-not-support-binding"),
    ...identity,
    pointer: identity.pointer ?? "/form",
    repair: "Use a host (or a Host API lane of it) that implements this exact contract, or a provider build whose Forms name the contract the host implements.",
  };
}

function unreadable(p: PlanPass, what: string, answer: SupportAnswer, identity: Omit<Diagnostic, "severity" | "summary">): Diagnostic {
  const refused = p.rt.credential.refusal(answer.error, identity);
  if (refused !== undefined) return refused;
  // No host fault is attached: this is not the host's answer to the resource, and the code must stay ours.
  const d: Diagnostic = {
    severity: "warning",
    summary: `Host support for ${what} could not be read at plan time`,
    detail: "The provider could not learn from the host's support profile whether it serves this. Nothing has been refused; the apply will find out.",
    code: providerCode("host-support-unreadable"),
    ...identity,
    cause: errorText(answer.error),
    repair: "Nothing is required. If the apply fails, check that the host publishes its support profiles.",
  };
  return d;
}

function upperFirst(s: string): string {
  return s === "" ? s : s[0]!.toUpperCase() + s.slice(1);
}

function describeValue(value: Value): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

export async function planHostSupport(p: PlanPass): Promise<void> {
  const codec = p.served.codec;
  const kind = codec.ref.kind;
  const identity = planIdentity(p);
  let client;
  try {
    client = await p.rt.client();
  } catch (err) {
    p.diagnostics.push(unreadable(p, `Form ${kind}`, { error: err }, identity));
    return;
  }
  const refused = p.rt.credential.notSent(identity);
  if (refused !== undefined) {
    p.diagnostics.push(refused);
    return;
  }
  const support = p.rt.support;
  // The Interfaces the Form provides are asked at the same time as the Form's own profile, not
  // after it: one round trip at plan instead of two for each Form new to the run (answers are
  // cached, so the checks below read these). When the Form is refused they cost a GET each, unread.
  for (const contract of providedInterfaces(codec)) void support.interface(client, contract.name, contract.version);
  const form = await support.form(client, p.served.ref);
  if (form.refused !== undefined) {
    p.diagnostics.push({
      severity: "error",
      summary: `This host does not support ${kind}`,
      detail: `The host's support profile route answered that it does not serve ${kind} at definition version ${p.served.ref.definitionVersion}, so this resource could not be applied there.`,
      code: providerCode("host-does-not-support-form"),
      ...identity,
      pointer: "/form",
      cause: errorText(form.refused),
      repair: `Remove this ${kind} from the configuration, use a host that supports it, or ask the host operator to install it.`,
    });
    return;
  }
  if (form.profile === undefined) {
    p.diagnostics.push(unreadable(p, `Form ${kind}`, form, identity));
    return;
  }
  const profile = form.profile;
  checkOperations(p, profile, identity);

  const lookups: Promise<void>[] = [];
  for (const contract of providedInterfaces(codec)) {
    lookups.push(
      support.interface(client, contract.name, contract.version).then((answer) => {
        const label = `${contract.name}@${contract.version}`;
        if (answer.refused !== undefined) {
          p.diagnostics.push({
            severity: "error",
            summary: `This host does not implement ${label}`,
            detail: `${kind} provides the Interface ${label}, and the host's support profile route answered that it does not implement it.`,
            code: providerCode("host-does-not-support-interface"),
            ...identity,
            pointer: "/form",
            cause: errorText(answer.refused),
            repair: `Use a host that implements ${label}, or remove this ${kind}.`,
          });
        } else if (answer.profile === undefined) {
          p.diagnostics.push(unreadable(p, `Interface ${label}`, answer, identity));
        } else {
          // One name@version may name different contracts (one per Host API lane): the host
          // implements this one only at the exact digest the Form provides (decision 0022).
          const answered = answer.profile.interfaceRef?.schemaDigest;
          if (answered !== undefined && answered !== contract.schemaDigest)
            p.diagnostics.push(otherContract("Interface", label, kind, contract.schemaDigest, answered, identity));
        }
      }),
    );
  }
  for (const field of codec.fields) {
    if (field.type.kind !== "binding-list") continue;
    const planned = p.planned[field.attribute];
    if (!Array.isArray(planned) || planned.length === 0) continue;
    const binding = field.type.binding;
    const version = bindingVersion(codec, binding);
    lookups.push(
      support.binding(client, binding, version).then((answer) => {
        if (answer.refused !== undefined) {
          p.diagnostics.push({
            severity: "error",
            summary: `This host does not implement the ${binding} binding`,
            detail: `${field.attribute} declares bindings under ${binding}@${version}, and the host's support profile route answered that it does not implement that Binding.`,
            code: providerCode("host-does-not-support-binding"),
            ...identity,
            attribute: field.attribute,
            pointer: `/${field.wire}`,
            cause: errorText(answer.refused),
            repair: `Remove the ${field.attribute} entries, or use a host that implements ${binding}@${version}.`,
          });
        } else if (answer.profile === undefined) {
          p.diagnostics.push(unreadable(p, `Binding ${binding}@${version}`, answer, { ...identity, attribute: field.attribute, pointer: `/${field.wire}` }));
        } else {
          const expected = codec.acceptedBindings.find((b) => b.name === binding)?.schemaDigest;
          const answered = answer.profile.bindingRef?.schemaDigest;
          if (expected !== undefined && answered !== undefined && answered !== expected) {
            p.diagnostics.push(
              otherContract("Binding", `${binding}@${version}`, kind, expected, answered, {
                ...identity,
                attribute: field.attribute,
                pointer: `/${field.wire}`,
              }),
            );
          }
        }
      }),
    );
  }
  await Promise.all(lookups);
  checkValues(p, codec, profile, identity);
}

function checkOperations(p: PlanPass, profile: WireSupportProfile, identity: Omit<Diagnostic, "severity" | "summary">): void {
  const offered = profile.operations;
  if (!Array.isArray(offered) || offered.length === 0) return;
  const codec = p.served.codec;
  const required = ["create", "read", "delete", ...(codec.declaresUpdate ? ["update"] : [])];
  const missing = required.filter((op) => !(offered as string[]).includes(op));
  if (missing.length === 0) return;
  p.diagnostics.push({
    severity: "error",
    summary: `This host does not offer the whole ${codec.ref.kind} lifecycle`,
    detail: `The host's support profile offers ${offered.join(", ")}; managing this resource needs ${required.join(", ")}, so ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} missing.`,
    code: providerCode("host-does-not-support-value"),
    ...identity,
    pointer: "/form",
    repair: "Use a host that offers the whole lifecycle of this Form, or ask the host operator to enable it.",
  });
}

function valueRefusal(p: PlanPass, field: CodecField, value: Value, identity: Omit<Diagnostic, "severity" | "summary">, why: string): void {
  p.diagnostics.push({
    severity: "error",
    summary: `This host does not accept ${field.attribute} = ${describeValue(value)}`,
    detail: why,
    code: providerCode("host-does-not-support-value"),
    ...identity,
    attribute: field.attribute,
    pointer: `/${field.wire}`,
    repair: `Choose a value of ${field.attribute} this host supports, or use a host that supports this one.`,
  });
}

function checkValues(p: PlanPass, codec: FormCodec, profile: WireSupportProfile, identity: Omit<Diagnostic, "severity" | "summary">): void {
  const enums = profile.supportedEnums ?? {};
  const ranges = profile.supportedRanges ?? {};
  const limits = profile.limits ?? {};
  for (const field of codec.fields) {
    const value = p.planned[field.attribute];
    if (value === undefined || value === null || isUnknown(value)) continue;
    const allowed = Object.hasOwn(enums, field.wire) ? enums[field.wire] : undefined;
    if (Array.isArray(allowed)) {
      const members = field.type.kind === "string-set" && Array.isArray(value) ? value : field.type.kind === "string" ? [value] : [];
      for (const member of members) {
        if (typeof member === "string" && !allowed.includes(member)) {
          valueRefusal(p, field, member, identity, `The host's support profile accepts ${field.attribute} only from ${allowed.join(", ")}.`);
        }
      }
    }
    const range = Object.hasOwn(ranges, field.wire) ? ranges[field.wire] : undefined;
    if (field.type.kind === "integer" && typeof value === "number" && range !== undefined) {
      const { minimum, maximum } = range;
      if ((typeof minimum === "number" && value < minimum) || (typeof maximum === "number" && value > maximum)) {
        valueRefusal(p, field, value, identity, `The host's support profile accepts ${field.attribute} from ${minimum ?? "any"} to ${maximum ?? "any"}.`);
      }
    }
    const limitKey = `maximum${upperFirst(field.wire)}`;
    const limit = Object.hasOwn(limits, limitKey) ? limits[limitKey] : undefined;
    const counted = field.type.kind === "string-set" || field.type.kind === "binding-list" || field.type.kind === "object-list";
    if (counted && Array.isArray(value) && typeof limit === "number" && value.length > limit) {
      p.diagnostics.push({
        severity: "error",
        summary: `This host accepts fewer ${field.attribute} entries than the plan declares`,
        detail: `The plan declares ${value.length} ${field.attribute} entries; the host's support profile sets ${limitKey} to ${limit}.`,
        code: providerCode("host-limit-exceeded"),
        ...identity,
        attribute: field.attribute,
        pointer: `/${field.wire}`,
        repair: `Declare at most ${limit} ${field.attribute} entries, or use a host with a higher limit.`,
      });
    }
  }
  if (codec.artifactBacked) artifactLimitProblems(p, limits, identity);
}

/** What an artifact of each manifest kind is called in a diagnostic. */
const ARTIFACT_NOUN: Record<ManifestKind, string> = { WorkerBundle: "bundle", StaticAssetBundle: "static asset bundle", MigrationBundle: "migration set" };

/**
 * The ceilings of an artifact-backed revision's manifest (reference v1beta1 §7.4, §10.4): its
 * entry count against `limits.maximumBundleFiles` and its total bytes against
 * `limits.maximumBundleBytes`, for each manifest kind alike, before anything is uploaded. Only a
 * wholly known authored list is counted (a bare manifest_digest names a manifest already committed).
 */
function artifactLimitProblems(p: PlanPass, limits: Record<string, unknown>, identity: Partial<Diagnostic>): void {
  const surface = artifactSurface(p.served.codec);
  const list = p.planned[surface.list];
  if (!Array.isArray(list) || !isWhollyKnown(list)) return;
  const noun = surface.list === "modules" ? "modules" : "files";
  const what = ARTIFACT_NOUN[surface.manifestKind];
  const maximumBundleFiles = limits["maximumBundleFiles"];
  if (typeof maximumBundleFiles === "number" && list.length > maximumBundleFiles) {
    p.diagnostics.push({
      severity: "error",
      summary: `This ${what} lists more ${noun} than the host accepts`,
      detail: `The manifest lists ${list.length} ${noun}; the host's support profile sets maximumBundleFiles to ${maximumBundleFiles}. Nothing has been uploaded.`,
      code: providerCode("host-limit-exceeded"),
      ...identity,
      attribute: surface.list,
      pointer: "/manifestDigest",
      repair: `List at most ${maximumBundleFiles} ${noun}, or use a host that accepts more.`,
    });
  }
  const maximumBundleBytes = limits["maximumBundleBytes"];
  if (typeof maximumBundleBytes !== "number") return;
  let total = 0;
  for (const entry of list) {
    const size = entry !== null && typeof entry === "object" && !Array.isArray(entry) ? (entry as Record<string, Value>)["size"] : undefined;
    if (typeof size === "number") total += size;
  }
  if (total > maximumBundleBytes) {
    p.diagnostics.push({
      severity: "error",
      summary: `This ${what} is larger than the host accepts`,
      detail: `The ${what}'s ${noun} total ${total} bytes; the host's support profile sets maximumBundleBytes to ${maximumBundleBytes}. Nothing has been uploaded.`,
      code: providerCode("host-limit-exceeded"),
      ...identity,
      attribute: surface.list,
      pointer: "/manifestDigest",
      repair: `Make it smaller (fewer or smaller ${noun}), or use a host that accepts larger manifests.`,
    });
  }
}
