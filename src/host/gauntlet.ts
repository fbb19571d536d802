// The pre-mutation gauntlet shared by apply, import, and the commit of an accepted (202)
// apply or import. Nothing here writes. The order (not normative, reference §11 Q6) follows the
// reference host:
//
//   1. the exact FormRef is installed                          form_unknown
//   2. materialize defaults, canonicalize, validate; then the spec-only semantic rules a
//      prepare does not run (weights, environment namespace)   invalid_argument
//   3. (commit only) the accepted incarnation still holds the name   resource_not_found / uid_mismatch
//   4. relations: resolve, verify bindings and annotations     resource_not_found / invalid_argument / unsupported_capability
//   5. Form rules (semantic and aggregate checks)              per rule
//   6. fences: create needs a free name; update needs the same exact ref, uid, generation (and
//      revision when If-Match is sent); import claims         generation_conflict / resource_not_found /
//                                                               uid_mismatch / revision_conflict / import_conflict
//   7. role and capability: revision-role refuses every apply; no spec change without `update`;
//      no change to an immutable field                        invalid_argument
//   8. declared outputs can be assigned                        unsupported_capability
//   9. (apply) the prepare binding matches the post-fence state  invalid_argument

import { refuseMovedAway } from "./moved-away.ts";
import { canonicalJson, type JsonObject, type JsonValue, parsePointer } from "../forms/index.ts";
import { formatFormRef, type FormRef, formRefsEqual } from "../core/index.ts";
import type { CatalogForm } from "./catalog.ts";
import type { HostContext } from "./context.ts";
import { HostError, invalidArgument } from "./errors.ts";
import { prepareDigest } from "./prepare-binding.ts";
import { formMissing } from "./query.ts";
import { resolveRelations } from "./relations.ts";
import type { MutationPhase, ResolvedTarget } from "./rules/types.ts";
import { requireValidSpec, requireWritableSpec, type MaterializedSpec } from "./spec.ts";
import { recordedRef, type RelationPin, type StoredResource } from "./store/index.ts";
import { ruleView } from "./view.ts";

/** A decoded apply or import, in the JSON form an accepted operation stores and re-runs. */
export interface WriteInput {
  action: "apply" | "import";
  tenant: string;
  principal: string;
  space: string;
  name: string;
  formRef: FormRef;
  spec: JsonObject;
  /** `If-None-Match: *` */
  createIntent: boolean;
  generationFence: string | null;
  revisionFence: string | null;
  expectedUid: string | null;
  prepareDigest: string | null;
  nativeId: string | null;
  /** The uid a create mints (chosen up front so an accepted create can disclose it). */
  plannedUid: string;
}

/** What an accepted update was accepted against; the commit resolves through it. */
export interface AcceptedIdentity {
  uid: string;
  ref: FormRef;
}

export interface WritePlan {
  input: WriteInput;
  form: CatalogForm;
  spec: MaterializedSpec;
  existing: StoredResource | undefined;
  uid: string;
  pins: RelationPin[];
  targets: ResolvedTarget[];
  specChanged: boolean;
  generation: number;
  outputs: string | null;
}

export function checkWrite(
  ctx: HostContext,
  input: WriteInput,
  phase: MutationPhase,
  accepted?: AcceptedIdentity,
  options: { review: boolean } = { review: true },
): WritePlan {
  const { store, catalog } = ctx;
  const form = catalog.form(input.formRef);
  if (form === undefined) throw formMissing(ctx.catalog, ctx.lane, input.formRef);
  const spec = requireValidSpec(form, input.spec);
  requireWritableSpec(form, spec);
  const address = { tenant: input.tenant, space: input.space, apiVersion: form.ref.apiVersion, kind: form.ref.kind, name: input.name };
  const current = store.resources.byAddress(address);
  // An address a lane upgrade moved away from takes no create and no update (lane-move.ts).
  if (current === undefined) refuseMovedAway(ctx, address);
  const sameRef = current !== undefined && formRefsEqual(recordedRef(current), form.ref);

  if (phase === "commit" && !input.createIntent && accepted !== undefined) {
    if (current === undefined) {
      throw new HostError("resource_not_found", `${form.ref.kind} "${input.name}" no longer exists; the accepted ${input.action} commits nothing`);
    }
    if (current.uid !== accepted.uid || !formRefsEqual(recordedRef(current), accepted.ref)) {
      throw new HostError(
        "uid_mismatch",
        `the ${input.action} was accepted for uid ${accepted.uid} (${formatFormRef(accepted.ref)}); the name is now held by uid ${current.uid} ` +
          `(${formatFormRef(recordedRef(current))}), so nothing was committed`,
      );
    }
  }

  const existing = sameRef ? current : undefined;
  const uid = existing?.uid ?? input.plannedUid;
  const self: StoredResource = existing ?? plannedResource(input, form, spec, uid);
  const { targets, pins } = resolveRelations(store, catalog, { tenant: input.tenant, space: input.space, form, name: input.name, uid, spec: spec.spec }, self);

  if (form.rules.checkMutation !== undefined) {
    form.rules.checkMutation({
      view: ruleView(store, catalog, input.tenant),
      action: input.action,
      phase,
      form,
      space: input.space,
      name: input.name,
      spec: spec.spec,
      existing,
      targets,
    });
  }

  checkFences(input, form, current, existing, (nativeId) => store.resources.byNativeId(input.tenant, nativeId));

  const specChanged = existing !== undefined && existing.specDigest !== spec.digest;
  if (existing !== undefined) checkCapability(input, form, existing, spec, specChanged);

  const generation = existing === undefined ? 1 : specChanged ? existing.generation + 1 : existing.generation;
  const outputs = assignOutputs(form, input, uid, generation, spec.spec);

  if (input.action === "apply" && options.review) {
    const expected = prepareDigest(store.secret, {
      specDigest: spec.digest,
      ref: form.ref,
      tenant: input.tenant,
      space: input.space,
      name: input.name,
      uid: existing?.uid ?? "",
      generation: existing === undefined ? "0" : String(existing.generation),
    });
    if (input.prepareDigest !== expected) {
      throw invalidArgument(
        "review.prepareDigest does not bind this request: the spec, the exact identity, the tenant, or the target's uid and generation " +
          "differ from what was prepared; prepare again and apply what was reviewed",
        { hostCode: "prepare_binding_mismatch" },
      );
    }
  }
  return { input, form, spec, existing, uid, pins, targets, specChanged, generation, outputs };
}

/** The row a write of `input` records for a new resource; a mutation of an existing one carries some of its values forward (commit.ts). */
export function plannedResource(input: WriteInput, form: CatalogForm, spec: MaterializedSpec, uid: string): StoredResource {
  return {
    uid,
    tenant: input.tenant,
    space: input.space,
    apiVersion: form.ref.apiVersion,
    kind: form.ref.kind,
    name: input.name,
    definitionVersion: form.ref.definitionVersion,
    schemaDigest: form.ref.schemaDigest,
    spec: spec.canonical,
    specDigest: spec.digest,
    generation: 1,
    revision: 1,
    nativeId: input.nativeId,
    conditions: "[]",
    outputs: null,
    createdAt: "",
  };
}

type ClaimLookup = (nativeId: string) => StoredResource | undefined;

function checkFences(
  input: WriteInput,
  form: CatalogForm,
  current: StoredResource | undefined,
  existing: StoredResource | undefined,
  claimHolder: ClaimLookup,
): void {
  const label = `${form.ref.kind} "${input.name}"`;
  if (input.createIntent) {
    if (input.expectedUid !== null) {
      throw new HostError("uid_mismatch", `expectedUid ${input.expectedUid} names an incarnation, but a create (If-None-Match: *) has none yet`);
    }
    if (current !== undefined) {
      const other = formRefsEqual(recordedRef(current), form.ref) ? "" : ` under another definition (${formatFormRef(recordedRef(current))})`;
      throw new HostError(
        "generation_conflict",
        `${label} already exists in space "${input.space}"${other} at generation ${current.generation}; a create needs a free name`,
      );
    }
    if (input.action === "import") checkNewClaim(input, undefined, claimHolder);
    return;
  }
  if (existing === undefined) {
    throw new HostError("resource_not_found", `${label} does not exist in space "${input.space}" under ${formatFormRef(form.ref)}`);
  }
  if (input.expectedUid !== null && input.expectedUid !== existing.uid) {
    throw new HostError("uid_mismatch", `expectedUid ${input.expectedUid} does not match ${label}, whose uid is ${existing.uid}`);
  }
  if (input.generationFence !== String(existing.generation)) {
    throw new HostError(
      "generation_conflict",
      `${label} is at generation ${existing.generation}; the request was fenced on generation ${input.generationFence}`,
    );
  }
  if (input.revisionFence !== null && input.revisionFence !== String(existing.revision)) {
    throw new HostError("revision_conflict", `${label} is at revision ${existing.revision}; If-Match named revision ${input.revisionFence}`);
  }
  if (input.action === "import") {
    if (existing.nativeId !== null && existing.nativeId !== input.nativeId) {
      throw new HostError("import_conflict", `${label} was adopted under another nativeId; a recorded adoption claim never changes`);
    }
    if (existing.nativeId === null) checkNewClaim(input, existing, claimHolder);
  }
}

/** An adoption claim is exclusive per tenant across every space and kind (reference §1.9). */
function checkNewClaim(input: WriteInput, self: StoredResource | undefined, claimHolder: ClaimLookup): void {
  if (input.nativeId === null) return;
  const holder = claimHolder(input.nativeId);
  if (holder !== undefined && holder.uid !== self?.uid) {
    throw new HostError(
      "import_conflict",
      `nativeId is already claimed by ${holder.kind} "${holder.name}" in space "${holder.space}" of this tenant; one live resource holds a native identity`,
    );
  }
}

function checkCapability(input: WriteInput, form: CatalogForm, existing: StoredResource, spec: MaterializedSpec, specChanged: boolean): void {
  const label = `${form.ref.kind} "${input.name}"`;
  if (form.role === "revision" && (input.action === "apply" || specChanged)) {
    throw invalidArgument(
      `${label} has the revision role: an existing revision is never changed in place, so every apply to it is refused; create a new revision under a new name`,
      { hostCode: "revision_immutable" },
    );
  }
  if (!specChanged) return;
  if (!form.declaresUpdate) {
    throw invalidArgument(
      `${form.ref.kind}@${form.ref.definitionVersion} does not declare update, so the spec of ${label} cannot change; replace the resource instead`,
      {
        hostCode: "update_not_declared",
      },
    );
  }
  const before = JSON.parse(existing.spec) as JsonObject;
  for (const pointer of form.definition.immutableFields ?? []) {
    if (!sameAt(before, spec.spec, pointer)) {
      throw invalidArgument(`/spec${pointer} of ${label} is immutable; replace the resource to change it`, { hostCode: "immutable_field" });
    }
  }
}

function valueAt(doc: JsonValue, pointer: string): JsonValue | undefined {
  let node: JsonValue | undefined = doc;
  for (const token of parsePointer(pointer)) {
    if (node === null || typeof node !== "object") return undefined;
    if (Array.isArray(node)) node = /^(0|[1-9][0-9]*)$/.test(token) ? node[Number(token)] : undefined;
    else node = Object.hasOwn(node, token) ? node[token] : undefined;
  }
  return node;
}

function sameAt(a: JsonObject, b: JsonObject, pointer: string): boolean {
  const x = valueAt(a, pointer);
  const y = valueAt(b, pointer);
  if (x === undefined || y === undefined) return x === y;
  return canonicalJson(x) === canonicalJson(y);
}

function assignOutputs(form: CatalogForm, input: WriteInput, uid: string, generation: number, spec: JsonObject): string | null {
  if (form.definition.outputSchema === undefined) return null;
  if (form.rules.outputs === undefined || form.outputValidator === undefined) {
    throw new HostError(
      "unsupported_capability",
      `${formatFormRef(form.ref)} declares outputs this host cannot assign (no output rule is registered for ${form.ref.apiVersion} ${form.ref.kind})`,
      { hostCode: "outputs_unassignable" },
    );
  }
  const outputs = form.rules.outputs({ form, uid, name: input.name, space: input.space, generation, spec });
  const violations = form.outputValidator.validate(outputs);
  if (violations.length > 0) {
    throw new HostError(
      "unsupported_capability",
      `the host could not assign outputs that satisfy ${form.ref.kind}'s outputSchema: ${violations.map((v) => `${v.pointer} ${v.message}`).join("; ")}`,
      { hostCode: "outputs_unassignable" },
    );
  }
  return canonicalJson(outputs);
}
