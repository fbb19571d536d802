// importState (decision 0017 rule 5; reference §6). Import records identity only — name, space
// when given, and the exact ref with its package digest — and makes no resource call (a NAME
// import needs the negotiated lane, whose line it is created under); the read that
// follows does the exact GET, adopts the uid, and (deliberately better than upstream) fills every
// desired attribute still null from the host's spec, so an import followed by a plan of matching
// configuration shows no change. A named ref must be one this build serves: it is never rebound
// onto the default create ref.

import {
  type Diagnostic,
  formatFormRef,
  IMPORT_ID_SYNTAX,
  type ImportIdentity,
  ImportIdError,
  laneNamed,
  laneOfGroup,
  PREFERRED_LANE,
} from "../../core/index.ts";
import { listRefs } from "../../registry/index.ts";
import { providerCode } from "../diagnostics/codes.ts";
import { formAttributes, serveCreate } from "../dispatch.ts";
import { LaneUnavailableError, laneUnavailable, type ProviderRuntime } from "../runtime.ts";
import type { ImportResult } from "../types.ts";
import { parseImportId } from "./import-id.ts";

export async function importState(rt: ProviderRuntime, type: string, id: string): Promise<ImportResult> {
  const fail = (d: Diagnostic): ImportResult => ({ state: null, diagnostics: [d] });
  const line = rt.line(type);
  if (line === undefined) return fail(rt.unserved(type));
  let identity: ImportIdentity;
  try {
    identity = parseImportId(id);
  } catch (err) {
    return fail({
      severity: "error",
      summary: "Invalid import ID",
      detail: `The import ID must be ${IMPORT_ID_SYNTAX}.`,
      code: providerCode("import-id-invalid"),
      resourceType: type,
      pointer: "/metadata/name",
      cause: err instanceof ImportIdError ? err.message : String(err),
      repair: `Use NAME or SPACE/NAME to import under this build's default ${line.kind} identity, or the JSON object with members space, apiVersion, kind, definitionVersion, schemaDigest and name to import under an exact one.`,
    });
  }
  const base = { resourceType: type, name: identity.name, ...(identity.space !== undefined ? { space: identity.space } : {}) };

  let served;
  if (identity.ref === undefined) {
    // NAME and SPACE/NAME import under the default create of the negotiated lane's line: for a
    // type with a line per lane that much of the host is asked (discovery), nothing else.
    let lane = laneOfGroup(line.apiVersion) ?? PREFERRED_LANE;
    if (rt.table.linesOf(type).length > 1) {
      try {
        lane = laneNamed((await rt.client()).lane.name);
      } catch (err) {
        return fail(laneUnavailable(type, err instanceof LaneUnavailableError ? err : new LaneUnavailableError(err)));
      }
    }
    const dispatch = serveCreate(rt, type, lane);
    if (dispatch.diagnostic) return fail(dispatch.diagnostic);
    served = dispatch.served;
  } else {
    const ref = identity.ref;
    const lines = rt.table.linesOf(type);
    if (!lines.some((l) => ref.kind === l.kind && ref.apiVersion === l.apiVersion)) {
      return fail({
        severity: "error",
        summary: ref.kind !== line.kind ? "Import ID names another Form kind" : "Import ID names another Form line",
        detail: `${type} serves ${lines.map((l) => `${l.apiVersion} ${l.kind}`).join(" and ")}; the import ID names ${formatFormRef(ref)}.`,
        code: providerCode("import-id-invalid"),
        ...base,
        ref,
        pointer: "/form",
        repair: `Import it into the resource type that serves ${ref.apiVersion} ${ref.kind}, or correct the import ID.`,
      });
    }
    served = rt.table.tryForStateRef(ref);
    if (served === undefined) {
      const known = rt.table.renderedCodecRefsForKind(ref.kind);
      return fail({
        severity: "error",
        summary: "Import Form identity is not supported by this provider",
        detail: `The import ID names ${formatFormRef(ref)}; this build carries ${ref.kind} codecs for ${listRefs(known)}. The provider never imports a resource under an identity other than the one named.`,
        code: providerCode("state-form-ref-unsupported"),
        ...base,
        ref,
        pointer: "/form",
        repair: "Name one of the identities this build carries, or use a provider build (or project registry, `takoform get`) that carries the named one.",
      });
    }
  }
  const attributes = { name: identity.name, ...(identity.space !== undefined ? { space: identity.space } : {}), ...formAttributes(served.ref) };
  return { state: { type, attributes }, diagnostics: [] };
}
