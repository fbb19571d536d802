// The part of the project's own TypeScript that the typechecks use (child.ts, the one-shot check
// in its own process; warm.ts, the check `dev --watch` keeps loaded), declared structurally: the
// user's TypeScript is loaded at run time, whichever version, so only its stable public API is
// named here, once for both.

/** A parsed tsconfig. */
export interface Parsed {
  fileNames: string[];
  options: { configFile?: { extendedSourceFiles?: string[] } };
  projectReferences?: readonly object[];
  wildcardDirectories?: Record<string, number>;
  errors?: Diag[];
}

/** One of TypeScript's diagnostics. */
export interface Diag {
  category: number;
  code: number;
  file?: { fileName: string; getLineAndCharacterOfPosition(pos: number): { line: number; character: number } };
  start?: number;
  messageText: unknown;
}

/** A builder program: its diagnostics, and the files it read. */
export interface Builder {
  getConfigFileParsingDiagnostics(): readonly Diag[];
  getOptionsDiagnostics(): readonly Diag[];
  getGlobalDiagnostics(): readonly Diag[];
  getSyntacticDiagnostics(): readonly Diag[];
  getSemanticDiagnostics(): readonly Diag[];
  getProgram(): { getSourceFiles(): readonly { fileName: string }[] };
}

/** What both checks call on the loaded module. */
export interface TsCommon {
  sys: object;
  DiagnosticCategory: { Error: number };
  getParsedCommandLineOfConfigFile(path: string, options: object, host: object): Parsed | undefined;
  getConfigFileParsingDiagnostics(parsed: Parsed): readonly Diag[];
  flattenDiagnosticMessageText(text: unknown, newLine: string): string;
}
