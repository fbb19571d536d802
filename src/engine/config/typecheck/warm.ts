// The typecheck `takoform dev --watch` keeps warm: the project's own TypeScript loaded once, in
// this process, with the last builder program kept between checks. A check re-reads only the
// files whose size, mtime or inode moved (the parsed source files of the rest — the standard
// library's and the packages' declarations, most of a check's cost — are reused as they are), and
// the builder re-checks only the files a change can affect. One check of an edited main.ts is
// then tens of milliseconds where a cold `tsc` is seconds.
//
// The one-shot check before a command's synth (typecheck.ts) runs in a child process instead, to
// keep the compiler out of a short-lived command; a dev session lives long enough to pay for it
// once. Same tsconfig, same TypeScript, same diagnostics (typeDiagnostics).

import { statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import type { TypecheckError } from "./protocol.ts";
import type { Builder, Diag, TsCommon } from "./ts-api.ts";
import { findTsconfig, typeDiagnostics, type TypecheckResult } from "./typecheck.ts";

// The user's TypeScript, whichever version: only its stable public API is used (ts-api.ts).
interface Ts extends TsCommon {
  createIncrementalCompilerHost(options: object, system?: object): CompilerHost;
  createSemanticDiagnosticsBuilderProgram(
    rootNames: readonly string[],
    options: object,
    host: CompilerHost,
    old: Builder | undefined,
    configDiagnostics: readonly Diag[],
    references: readonly object[] | undefined,
  ): Builder;
}
type GetSourceFile = (fileName: string, version: unknown, onError?: unknown, shouldCreate?: boolean) => unknown;
interface CompilerHost {
  getSourceFile: GetSourceFile;
}

/** What a warm check found, and what to watch for the next one. */
export interface WarmCheck extends Pick<TypecheckResult, "status" | "diagnostics" | "ms"> {
  /** The project's own sources the program read (not under node_modules), and the tsconfigs. */
  sources: string[];
  /** Directories a new source file would appear in. */
  dirs: string[];
}

interface Cached {
  size: number;
  mtimeMs: number;
  ino: number;
  file: unknown;
}

export class WarmTypecheck {
  private builder: Builder | undefined;
  private host: CompilerHost | undefined;
  private hostFor = "";
  private readonly files = new Map<string, Cached>();

  private constructor(
    private readonly ts: Ts,
    private readonly projectDir: string,
    readonly tsconfig: string,
  ) {}

  /** The project's warm check, or undefined when it has no tsconfig or no TypeScript (no check, as for synth). */
  static open(projectDir: string): WarmTypecheck | undefined {
    const tsconfig = findTsconfig(projectDir);
    if (tsconfig === undefined) return undefined;
    try {
      const require = createRequire(join(projectDir, "package.json"));
      return new WarmTypecheck(require(require.resolve("typescript")) as Ts, projectDir, tsconfig);
    } catch {
      return undefined;
    }
  }

  /** Checks the project now (the tsconfig re-read, so a new include or option counts). */
  check(): WarmCheck {
    const started = performance.now();
    const { ts, tsconfig } = this;
    const fatal: Diag[] = [];
    const overrides = { noEmit: true, emitDeclarationOnly: false, incremental: false };
    const parsed = ts.getParsedCommandLineOfConfigFile(tsconfig, overrides, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d: Diag) => fatal.push(d) });
    const found: Diag[] = [...fatal];
    const sources = new Set<string>([tsconfig]);
    const dirs = new Set<string>([dirname(tsconfig)]);
    if (parsed !== undefined) {
      const builder = ts.createSemanticDiagnosticsBuilderProgram(
        parsed.fileNames,
        parsed.options,
        this.compilerHost(parsed.options),
        this.builder,
        ts.getConfigFileParsingDiagnostics(parsed),
        parsed.projectReferences,
      );
      this.builder = builder;
      found.push(
        ...builder.getConfigFileParsingDiagnostics(),
        ...builder.getOptionsDiagnostics(),
        ...builder.getGlobalDiagnostics(),
        ...builder.getSyntacticDiagnostics(),
        ...builder.getSemanticDiagnostics(),
      );
      for (const file of builder.getProgram().getSourceFiles()) sources.add(file.fileName);
      for (const file of parsed.options.configFile?.extendedSourceFiles ?? []) sources.add(file);
      for (const dir of Object.keys(parsed.wildcardDirectories ?? {})) dirs.add(dir);
      for (const file of parsed.fileNames) dirs.add(dirname(file));
    }
    const errors = found.filter((d) => d.category === ts.DiagnosticCategory.Error).map((d) => this.errorOf(d));
    const ms = performance.now() - started;
    const status = errors.length === 0 ? "passed" : "failed";
    const diagnostics = errors.length === 0 ? [] : typeDiagnostics(errors, this.projectDir, tsconfig);
    return { status, diagnostics, ms, sources: [...sources].filter((file) => this.own(file)), dirs: [...dirs] };
  }

  /**
   * Whether a file the program read is the project's to watch: not a package's (a linked package
   * resolves outside node_modules, so a declaration file outside the project is a package's too).
   */
  private own(file: string): boolean {
    if (/[/\\]node_modules[/\\]/.test(file)) return false;
    return !file.endsWith(".d.ts") || !relative(this.projectDir, file).startsWith("..");
  }

  /**
   * One compiler host while the options stay the same, whose source files are kept while their
   * file is unchanged: the builder then reuses the old program's parse of every one of them.
   */
  private compilerHost(options: object): CompilerHost {
    const key = JSON.stringify(options);
    if (this.host !== undefined && this.hostFor === key) return this.host;
    const host = this.ts.createIncrementalCompilerHost(options, this.ts.sys);
    const read = host.getSourceFile.bind(host);
    this.files.clear();
    host.getSourceFile = (fileName, version, onError, shouldCreate) => {
      // NodeNext passes the module format a file is read as: part of what was parsed.
      const cacheKey = `${fileName}\0${JSON.stringify(version)}`;
      const stat = statSync(fileName, { throwIfNoEntry: false });
      const hit = this.files.get(cacheKey);
      if (stat !== undefined && hit !== undefined && hit.size === stat.size && hit.mtimeMs === stat.mtimeMs && hit.ino === stat.ino) return hit.file;
      const file = read(fileName, version, onError, shouldCreate);
      if (stat !== undefined && file !== undefined) this.files.set(cacheKey, { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino, file });
      else this.files.delete(cacheKey);
      return file;
    };
    this.host = host;
    this.hostFor = key;
    return host;
  }

  private errorOf(d: Diag): TypecheckError {
    const at = d.file !== undefined && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    return {
      code: d.code,
      message: this.ts.flattenDiagnosticMessageText(d.messageText, "\n"),
      ...(d.file !== undefined ? { file: d.file.fileName } : {}),
      ...(at !== undefined ? { line: at.line + 1, column: at.character + 1 } : {}),
    };
  }
}
