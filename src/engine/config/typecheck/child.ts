// The typecheck's own process (typecheck.ts forks it): loads the PROJECT's TypeScript, checks the
// project's tsconfig incrementally (noEmit; build info where the parent says), and sends back the
// errors and every input the check read, then exits. Running apart keeps the compiler (and the
// program's hundreds of megabytes) out of the command's process, and lets the parent stop it.
//
// argv: TYPESCRIPT-PATH TSCONFIG-PATH BUILDINFO-PATH

import { createRequire } from "node:module";
import { dirname } from "node:path";
import type { TypecheckReply } from "./protocol.ts";
import type { Builder, Diag, TsCommon } from "./ts-api.ts";

// The user's TypeScript, whichever version: only its stable public API is used (ts-api.ts).
interface Ts extends TsCommon {
  version: string;
  createIncrementalProgram(input: object): Builder & { emit(): unknown };
}

function check(tsPath: string, configPath: string, buildInfo: string): TypecheckReply {
  const ts = createRequire(import.meta.url)(tsPath) as Ts;
  const fatal: Diag[] = [];
  // Checked only, never emitted; incremental so an unchanged file is not checked again.
  const overrides = { noEmit: true, emitDeclarationOnly: false, incremental: true, tsBuildInfoFile: buildInfo };
  const parsed = ts.getParsedCommandLineOfConfigFile(configPath, overrides, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d: Diag) => fatal.push(d) });
  const found: Diag[] = [...fatal];
  const files = new Set<string>([configPath]);
  const dirs = new Set<string>();
  if (parsed !== undefined) {
    const program = ts.createIncrementalProgram({
      rootNames: parsed.fileNames,
      options: parsed.options,
      configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(parsed),
      ...(parsed.projectReferences !== undefined ? { projectReferences: parsed.projectReferences } : {}),
    });
    found.push(
      ...program.getConfigFileParsingDiagnostics(),
      ...program.getOptionsDiagnostics(),
      ...program.getGlobalDiagnostics(),
      ...program.getSyntacticDiagnostics(),
      ...program.getSemanticDiagnostics(),
    );
    program.emit(); // with noEmit: the build info only
    for (const file of program.getProgram().getSourceFiles()) files.add(file.fileName);
    for (const file of parsed.options.configFile?.extendedSourceFiles ?? []) files.add(file);
    // A new source file changes the mtime of the directory it lands in.
    for (const dir of Object.keys(parsed.wildcardDirectories ?? {})) dirs.add(dir);
    for (const file of parsed.fileNames) dirs.add(dirname(file));
  }
  const errors = found
    .filter((d) => d.category === ts.DiagnosticCategory.Error)
    .map((d) => {
      const at = d.file !== undefined && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
      return {
        code: d.code,
        message: ts.flattenDiagnosticMessageText(d.messageText, "\n"),
        ...(d.file !== undefined ? { file: d.file.fileName } : {}),
        ...(at !== undefined ? { line: at.line + 1, column: at.character + 1 } : {}),
      };
    });
  return { version: ts.version, errors, files: [...files], dirs: [...dirs] };
}

const [tsPath, configPath, buildInfo] = process.argv.slice(2) as [string, string, string];
let reply: TypecheckReply | { crashed: string };
try {
  reply = check(tsPath, configPath, buildInfo);
} catch (error) {
  reply = { crashed: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
}
process.send!(reply, () => process.disconnect());
