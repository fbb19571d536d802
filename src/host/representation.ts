// The served resource representation (wire `resourceResponse`), built from the stored row. The
// recorded exact FormRef is what is served — never a newer definition of the kind.

import type { Catalog, CatalogForm } from "./catalog.ts";
import { recordedRef, type StoredResource } from "./store/index.ts";

/** Per catalog Form, its `form` member as served: every resource of that Form shares it. */
const formMembers = new WeakMap<CatalogForm, string>();

function formMember(catalog: Catalog, r: StoredResource): string {
  const ref = recordedRef(r);
  const entry = catalog.form(ref);
  const known = entry === undefined ? undefined : formMembers.get(entry);
  if (known !== undefined) return known;
  const packageDigest = entry?.packageDigest;
  const text = JSON.stringify(packageDigest === undefined ? { formRef: ref } : { formRef: ref, packageDigest });
  if (entry !== undefined) formMembers.set(entry, text);
  return text;
}

export function representResource(catalog: Catalog, r: StoredResource): string {
  const form = formMember(catalog, r);
  const metadata = { name: r.name, space: r.space, uid: r.uid, generation: String(r.generation), revision: String(r.revision) };
  const outputs = r.outputs === null ? "" : `,"outputs":${r.outputs}`;
  return (
    `{"apiVersion":${JSON.stringify(r.apiVersion)},"kind":${JSON.stringify(r.kind)},"form":${form},` +
    `"metadata":${JSON.stringify(metadata)},"spec":${r.spec},` +
    `"status":{"observedGeneration":"${r.generation}","conditions":${r.conditions}${outputs}}}`
  );
}

export function etagOf(r: StoredResource): string {
  return `"${r.revision}"`;
}
