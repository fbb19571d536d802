// Relation resolution before mutation (decisions 0015 rules 3–5 and 8, 0022 rules 6–7).
// For every relation instance in the materialized spec, in pointer order:
//   1. resolve (tenant, space, group, kind, name) → absent is resource_not_found naming the pointer;
//   2. the target's recorded exact ref has exactly the referenced group and kind;
//   3. a binding relation is verified against its Binding Definition in the published order
//      (accepted → installed at the exact digest → source role → allowed target Form → target
//      provides the Interface); only "not installed" is unsupported_capability;
//   4. the target satisfies the reference's own annotation (exact target FormRef, or the
//      required Interface at its exact digest) → else invalid_argument naming the pointer and
//      what was required;
//   5. the pin records the target's uid AND exact FormRef.

import { type JsonObject, type RelationInstance, relationInstances } from "../forms/index.ts";
import { formatContractRef, formatFormRef, type FormRef, formRefsEqual, interfaceRefsEqual } from "../core/index.ts";
import type { Catalog, CatalogForm } from "./catalog.ts";
import { HostError, invalidArgument } from "./errors.ts";
import { recordedRef, type RelationPin, type StoredResource, type Store } from "./store/index.ts";
import type { ResolvedTarget } from "./rules/types.ts";

export interface RelationSource {
  tenant: string;
  space: string;
  form: CatalogForm;
  name: string;
  /** The source's own uid (existing or about to be minted), for self-references. */
  uid: string;
  spec: JsonObject;
}

export interface ResolvedRelations {
  targets: ResolvedTarget[];
  /** Pins without holder; the caller sets `holderUid` when it writes them. */
  pins: RelationPin[];
}

export function resolveRelations(store: Store, catalog: Catalog, source: RelationSource, self: StoredResource): ResolvedRelations {
  const instances = relationInstances(source.form.relations, source.spec);
  const targets: ResolvedTarget[] = [];
  const pins: RelationPin[] = [];
  instances.forEach((instance, ordinal) => {
    const t = instance.target;
    const isSelf = t.apiVersion === source.form.ref.apiVersion && t.kind === source.form.ref.kind && t.name === source.name;
    const resource = isSelf
      ? self
      : store.resources.byAddress({ tenant: source.tenant, space: source.space, apiVersion: t.apiVersion, kind: t.kind, name: t.name });
    if (resource === undefined) {
      throw new HostError(
        "resource_not_found",
        `relation ${instance.pointer} names ${t.kind} "${t.name}" (${t.apiVersion}), which does not exist in space "${source.space}"`,
        { hostCode: "relation_target_missing", details: { pointer: instance.pointer } },
      );
    }
    if (resource.apiVersion !== t.apiVersion || resource.kind !== t.kind) {
      throw invalidArgument(
        `relation ${instance.pointer} requires a ${t.apiVersion} ${t.kind}; the resolved resource is a ${resource.apiVersion} ${resource.kind}`,
      );
    }
    const targetRef = recordedRef(resource);
    const targetForm = catalog.form(targetRef);
    let binding: string | null = null;
    if (instance.relation.binding !== null) binding = verifyBinding(catalog, source.form, instance, targetRef, targetForm);
    verifyAnnotation(instance, targetRef, targetForm);
    targets.push({ instance, resource, form: targetForm });
    pins.push({
      holderUid: source.uid,
      pointer: instance.pointer,
      ordinal,
      relation: instance.relation.pointer,
      tenant: source.tenant,
      space: source.space,
      targetApiVersion: resource.apiVersion,
      targetKind: resource.kind,
      targetName: resource.name,
      targetUid: resource.uid,
      targetDefinitionVersion: resource.definitionVersion,
      targetSchemaDigest: resource.schemaDigest,
      binding,
    });
  });
  return { targets, pins };
}

/** The five binding steps, in the published order. Returns the exact contract's display ref. */
function verifyBinding(catalog: Catalog, form: CatalogForm, instance: RelationInstance, targetRef: FormRef, targetForm: CatalogForm | undefined): string {
  const name = instance.relation.binding!;
  const p = instance.pointer;
  const accepted = (form.definition.acceptedBindings ?? []).find((b) => b.name === name);
  if (accepted === undefined) {
    throw invalidArgument(`relation ${p} is a ${name} binding, which ${formatFormRef(form.ref)} does not list in acceptedBindings`, {
      hostCode: "binding_not_accepted",
    });
  }
  const installed = catalog.binding(accepted);
  if (installed === undefined) {
    throw new HostError(
      "unsupported_capability",
      `relation ${p}: this host has not installed the Binding contract ${formatContractRef(accepted)} that ${form.ref.kind}@${form.ref.definitionVersion} accepts`,
      { hostCode: "binding_not_installed" },
    );
  }
  const contract = installed.definition;
  if (form.role !== contract.sourceRole) {
    throw invalidArgument(
      `relation ${p}: Binding ${formatContractRef(accepted)} binds from a ${contract.sourceRole}-role Form; ${form.ref.kind} has role ${form.role}`,
      {
        hostCode: "binding_source_role",
      },
    );
  }
  if (!contract.allowedTargetForms.some((f) => f.apiVersion === targetRef.apiVersion && f.kind === targetRef.kind)) {
    const allowed = contract.allowedTargetForms.map((f) => `${f.apiVersion} ${f.kind}`).join(", ");
    throw invalidArgument(
      `relation ${p}: Binding ${formatContractRef(accepted)} allows targets of ${allowed}; the target is a ${targetRef.apiVersion} ${targetRef.kind}`,
      {
        hostCode: "binding_target_form",
      },
    );
  }
  const provided = targetForm?.definition.providedInterfaces ?? [];
  if (!provided.some((i) => interfaceRefsEqual(i, contract.targetInterface))) {
    throw invalidArgument(
      `relation ${p}: Binding ${formatContractRef(accepted)} requires a target providing Interface ${formatContractRef(contract.targetInterface)}; ` +
        `the target is recorded under ${formatFormRef(targetRef)}${targetForm === undefined ? " (not installed on this host)" : ""}, which does not provide it`,
      { hostCode: "binding_target_interface" },
    );
  }
  return formatContractRef(accepted);
}

/** The reference's own target-contract annotation (decision 0022 rule 7). */
function verifyAnnotation(instance: RelationInstance, targetRef: FormRef, targetForm: CatalogForm | undefined): void {
  const { relation, pointer } = instance;
  const name = instance.target.name;
  if (relation.targetFormRefs !== null) {
    if (relation.targetFormRefs.some((r) => formRefsEqual(r, targetRef))) return;
    const required = relation.targetFormRefs.map(formatFormRef).join(" or ");
    throw invalidArgument(
      `relation ${pointer} requires its target to be recorded under ${required}; ${targetRef.kind} "${name}" is recorded under ${formatFormRef(targetRef)}`,
      { hostCode: "relation_target_form_ref" },
    );
  }
  if (relation.requiredInterface !== null) {
    const provided = targetForm?.definition.providedInterfaces ?? [];
    if (provided.some((i) => interfaceRefsEqual(i, relation.requiredInterface!))) return;
    throw invalidArgument(
      `relation ${pointer} requires a target whose Form provides Interface ${formatContractRef(relation.requiredInterface)}; ` +
        `${targetRef.kind} "${name}" is recorded under ${formatFormRef(targetRef)}, which does not provide it`,
      { hostCode: "relation_target_interface" },
    );
  }
}
