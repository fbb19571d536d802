// Diagnostics (decision 0032): the type, the collection runs append to, the one table of codes
// every layer declares its own in, and the two renderers (human text, JSON data).

export type { Diagnostic, HostFault, Severity } from "./types.ts";
export { DiagnosticError } from "./types.ts";
export { Diagnostics, appendUnique, errorText, hasErrors, located, uniqueDiagnostics } from "./collection.ts";
export { contributeHostRepairs, declaredCodes, defineCodes, hostRepair, isDeclaredCode, type CodeTable, type HostRepairs } from "./codes.ts";
export { codeText, renderDetail, renderDiagnostic, renderDiagnostics, renderGroup, repairText, type RenderOptions } from "./render.ts";
export { collapseDiagnostics, groupAddresses, GROUP_ADDRESSES_SHOWN, type DiagnosticGroup } from "./collapse.ts";
export { diagnosticToJson, diagnosticsToJson } from "./json.ts";
