// The diagnostics as the command shows them: as text (renderDiagnostics) and as `--json`'s
// diagnostics (diagnosticsToJson), whether they fail the command (hasErrors), and the text of an
// error or a FormRef inside them. Core builds and renders diagnostics for every layer; this file
// is how the CLI reaches those renderers without importing core, and it loads nothing more than
// the console already does (no plan renderer, no engine), so `takoform --version` stays light.

export { diagnosticsToJson, errorText, formatFormRef, hasErrors, renderDiagnostics } from "../core/index.ts";
