// Typecheck before synth: when the project has a tsconfig, synthesis first checks the app with the
// PROJECT's own TypeScript, so a misspelled attribute or a wrong type stops at synth with file and
// line instead of being dropped from cdk.tf.json or reaching apply.
//
// Which tsconfig: the nearest tsconfig.json from the project directory up, stopping at the first
// directory that holds a package.json (the project's own package; a tsconfig above it belongs to
// something else). Which TypeScript: `typescript` resolved from the project directory; without
// one the check is skipped with a one-line note.
//
// Fast when nothing changed (docs/cli.md, "Typecheck"): the check runs incrementally (build info
// under .takoform/typecheck/), and after a clean check a stamp records every input it read (size,
// mtime, ctime, inode) and the directories new sources would appear in. When every one of them is
// unchanged the check is not run at all: no compiler is loaded. Any change runs the incremental
// check, which re-checks only what changed.

import { fork } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { childEntry, type Diagnostic } from "../../../core/index.ts";
import { configCode } from "../diagnostics.ts";
import type { TypecheckError, TypecheckReply } from "./protocol.ts";

const CHILD = childEntry(import.meta.url, "src/engine/config/typecheck/child.js", "./entry.mjs");

/** At most this many type errors become diagnostics; one more says how many were left out. */
export const TYPE_ERRORS_SHOWN = 20;

export interface TypecheckResult {
  /** `passed`/`failed`: checked; `unchanged`: nothing changed since a clean check; `skipped`: no tsconfig; `no-typescript`. */
  status: "passed" | "failed" | "unchanged" | "skipped" | "no-typescript";
  diagnostics: Diagnostic[];
  /** A one-line note for people (no TypeScript installed). */
  note?: string;
  tsconfig?: string;
  ms: number;
}

/** The tsconfig.json that governs `projectDir`, or undefined (module comment). */
export function findTsconfig(projectDir: string): string | undefined {
  let dir = projectDir;
  for (;;) {
    const candidate = join(dir, "tsconfig.json");
    if (existsSync(candidate)) return candidate;
    if (existsSync(join(dir, "package.json"))) return undefined;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

interface Stamp {
  typescript: string;
  tsconfig: string;
  files: [string, number, number, number, number][];
  dirs: [string, number][];
}

function fileStamp(path: string): [string, number, number, number, number] | null {
  try {
    const s = statSync(path);
    return [path, s.size, s.mtimeMs, s.ctimeMs, s.ino];
  } catch {
    return null;
  }
}

function unchanged(stampPath: string, typescript: string, tsconfig: string): boolean {
  let stamp: Stamp;
  try {
    stamp = JSON.parse(readFileSync(stampPath, "utf8")) as Stamp;
  } catch {
    return false;
  }
  if (stamp.typescript !== typescript || stamp.tsconfig !== tsconfig) return false;
  for (const [path, ...recorded] of stamp.files) {
    const now = fileStamp(path);
    if (now === null || now.slice(1).some((v, i) => v !== recorded[i])) return false;
  }
  for (const [dir, mtime] of stamp.dirs) {
    try {
      if (statSync(dir).mtimeMs !== mtime) return false;
    } catch {
      return false;
    }
  }
  return true;
}

function writeStamp(stampPath: string, typescript: string, tsconfig: string, reply: TypecheckReply): void {
  const files = [...reply.files, typescript].map(fileStamp).filter((s) => s !== null);
  const dirs: [string, number][] = [];
  for (const dir of reply.dirs) {
    try {
      dirs.push([dir, statSync(dir).mtimeMs]);
    } catch {
      // gone already: the next run checks again
    }
  }
  writeFileSync(stampPath, JSON.stringify({ typescript, tsconfig, files, dirs } satisfies Stamp));
}

function runChild(typescript: string, tsconfig: string, buildInfo: string, timeoutMs: number): Promise<TypecheckReply | { crashed: string }> {
  return new Promise((resolve) => {
    const child = fork(CHILD, [typescript, tsconfig, buildInfo], { execArgv: [], stdio: ["ignore", "ignore", "pipe", "ipc"], serialization: "json" });
    let reply: TypecheckReply | { crashed: string } | undefined;
    let stderr = "";
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-4096)));
    child.on("message", (message) => (reply = message as TypecheckReply | { crashed: string }));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ crashed: error.message });
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve(
        reply ?? {
          crashed:
            signal !== null
              ? `it was killed by ${signal}${signal === "SIGKILL" ? ` after ${Math.round(timeoutMs / 1000)} s` : ""}`
              : `it exited with code ${code}${stderr.trim() !== "" ? `: ${stderr.trim()}` : ""}`,
        },
      );
    });
  });
}

function typeError(error: TypecheckError, base: string, tsconfig: string): Diagnostic {
  const where =
    error.file !== undefined ? `${relative(base, error.file)}${error.line !== undefined ? `:${error.line}:${error.column}` : ""}` : relative(base, tsconfig);
  const [first, ...more] = error.message.split("\n");
  return {
    severity: "error",
    code: configCode("type-error"),
    summary: `${where}: ${first}`,
    detail: [...more.map((line) => line.trim()), `TypeScript error TS${error.code}, checking ${relative(base, tsconfig) || "tsconfig.json"}.`].join("\n"),
    repair: "Fix the code (or the tsconfig), or skip the check once with --no-typecheck.",
  };
}

export interface TypecheckOptions {
  /** Stop the check after this long. Default 5 minutes. */
  timeoutMs?: number;
}

/** Typechecks the project before its app runs (module comment). */
export async function typecheckProject(projectDir: string, options: TypecheckOptions = {}): Promise<TypecheckResult> {
  const started = performance.now();
  const done = (result: Omit<TypecheckResult, "ms">): TypecheckResult => ({ ...result, ms: performance.now() - started });
  const tsconfig = findTsconfig(projectDir);
  if (tsconfig === undefined) return done({ status: "skipped", diagnostics: [] });
  let typescript: string;
  try {
    typescript = createRequire(join(projectDir, "package.json")).resolve("typescript");
  } catch {
    return done({
      status: "no-typescript",
      diagnostics: [],
      tsconfig,
      note: `takoform: ${relative(projectDir, tsconfig) || "tsconfig.json"} is there but TypeScript is not installed in this project, so the app runs without a typecheck (npm install --save-dev typescript).`,
    });
  }
  const cache = join(projectDir, ".takoform", "typecheck");
  const stampPath = join(cache, "stamp.json");
  if (unchanged(stampPath, typescript, tsconfig)) return done({ status: "unchanged", diagnostics: [], tsconfig });
  mkdirSync(cache, { recursive: true });
  const timeoutMs = options.timeoutMs ?? 300_000;
  const reply = await runChild(typescript, tsconfig, join(cache, "tsbuildinfo"), timeoutMs);
  if ("crashed" in reply) {
    return done({
      status: "failed",
      tsconfig,
      diagnostics: [
        {
          severity: "error",
          code: configCode("typecheck-failed"),
          summary: "The typecheck before synth did not finish",
          detail: `TypeScript (${typescript}) stopped: ${reply.crashed}`,
          repair: "Run `npx tsc -p . --noEmit` in the project to see why, or skip the check with --no-typecheck.",
        },
      ],
    });
  }
  if (reply.errors.length === 0) {
    writeStamp(stampPath, typescript, tsconfig, reply);
    return done({ status: "passed", diagnostics: [], tsconfig });
  }
  return done({ status: "failed", diagnostics: typeDiagnostics(reply.errors, projectDir, tsconfig), tsconfig });
}

/** The type errors as diagnostics: the first TYPE_ERRORS_SHOWN, then one saying how many more (also dev --watch's warm check). */
export function typeDiagnostics(errors: readonly TypecheckError[], projectDir: string, tsconfig: string): Diagnostic[] {
  const diagnostics = errors.slice(0, TYPE_ERRORS_SHOWN).map((e) => typeError(e, projectDir, tsconfig));
  if (errors.length > TYPE_ERRORS_SHOWN) {
    diagnostics.push({
      severity: "error",
      code: configCode("type-error"),
      summary: `${errors.length - TYPE_ERRORS_SHOWN} more type errors`,
      detail: `The typecheck found ${errors.length} errors; the first ${TYPE_ERRORS_SHOWN} are shown above.`,
      repair: "Run `npx tsc -p . --noEmit` in the project to see them all.",
    });
  }
  return diagnostics;
}
