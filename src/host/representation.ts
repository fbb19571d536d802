// The served resource representation (wire `resourceResponse`), built from the stored row. The
// recorded exact FormRef is what is served — never a newer definition of the kind.

import type { Catalog } from "./catalog.ts";
import { recordedRef, type StoredResource } from "./store/index.ts";

export function representResource(catalog: Catalog, r: StoredResource): string {
  const ref = recordedRef(r);
  const packageDigest = catalog.form(ref)?.packageDigest;
  const form = packageDigest === undefined ? { formRef: ref } : { formRef: ref, packageDigest };
  const metadata = { name: r.name, space: r.space, uid: r.uid, generation: String(r.generation), revision: String(r.revision) };
  const outputs = r.outputs === null ? "" : `,"outputs":${r.outputs}`;
  return (
    `{"apiVersion":${JSON.stringify(r.apiVersion)},"kind":${JSON.stringify(r.kind)},"form":${JSON.stringify(form)},` +
    `"metadata":${JSON.stringify(metadata)},"spec":${r.spec},` +
    `"status":{"observedGeneration":"${r.generation}","conditions":${r.conditions}${outputs}}}`
  );
}

export function etagOf(r: StoredResource): string {
  return `"${r.revision}"`;
}
