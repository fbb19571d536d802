// The CDK library the constructs are built on: `cdktf` 0.21 (CDK for Terraform, archived on
// 2025-12-10) or its maintained fork `cdktn` 0.24 (CDK Terrain), whichever the user's app uses.
// Both are optional peer dependencies; exactly one is loaded, here, and every construct class
// extends that one's TerraformResource / TerraformProvider, so a stack, `Testing` and the
// constructs of one app all come from one library and no class exists twice.
//
// Which one (synchronously, at the first import of a construct, before any class is defined):
//   1. the one the project declares: the nearest package.json at or above the working directory
//      (`cdktf`, `takoform synth` and vitest all run the app from the project) naming exactly one
//      of them in dependencies, devDependencies, peerDependencies or optionalDependencies;
//   2. otherwise (neither or both named) cdktf if it is installed, else cdktn.
// Resolution is from this package, as Node resolves a peer. A stack made by the other library is
// refused when the first construct is added to it (`assertSameLibrary`), naming both and the
// repair, instead of mixing two copies of the CDK whose classes do not know each other.
//
// Types: the declarations name `cdktf`. A cdktn project maps that name to cdktn in its tsconfig
// (`"paths": { "cdktf": ["./node_modules/cdktn/lib/index.d.ts"] }`, as `takoform init --cdktn`
// writes), so the constructs' types are cdktn's own.

import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type * as Cdk from "cdktf";
import type { IConstruct } from "constructs";

export type { IResolvable, IResolveContext, ITerraformDependable, TerraformResourceLifecycle } from "cdktf";

export type CdkLibraryName = "cdktf" | "cdktn";

/** No CDK library to build on, or a stack made by the other one. */
export class CdkLibraryError extends Error {
  override name = "CdkLibraryError";
}
const LIBRARIES: readonly CdkLibraryName[] = ["cdktf", "cdktn"];
const DEPENDENCY_FIELDS = ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"] as const;

/** The libraries the nearest package.json at or above `dir` names, and that file. */
function declaredBy(dir: string): { file: string; names: CdkLibraryName[] } | null {
  for (let at = dir; ; at = dirname(at)) {
    const file = join(at, "package.json");
    if (existsSync(file)) {
      let manifest: Record<string, unknown>;
      try {
        manifest = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
      } catch {
        return null; // not ours to judge; npm reports it
      }
      const named = new Set<CdkLibraryName>();
      for (const field of DEPENDENCY_FIELDS) {
        const deps = manifest[field];
        if (deps !== null && typeof deps === "object") for (const name of LIBRARIES) if (name in deps) named.add(name);
      }
      return { file, names: LIBRARIES.filter((n) => named.has(n)) };
    }
    if (dirname(at) === at) return null;
  }
}

/** Why this library, for messages. */
export interface CdkChoice {
  name: CdkLibraryName;
  reason: string;
}

/** Chooses the library (rule above); `installed` says whether a name resolves from this package. */
export function chooseCdkLibrary(cwd: string, installed: (name: CdkLibraryName) => boolean): CdkChoice {
  const declared = declaredBy(cwd);
  if (declared !== null && declared.names.length === 1) {
    const name = declared.names[0]!;
    if (!installed(name)) {
      throw new CdkLibraryError(`takoform-cdk: ${declared.file} depends on ${name}, which is not installed; run npm install`);
    }
    return { name, reason: `${declared.file} depends on ${name}` };
  }
  const why =
    declared === null
      ? "no package.json names cdktf or cdktn"
      : declared.names.length === 0
        ? `${declared.file} names neither cdktf nor cdktn`
        : `${declared.file} names both`;
  for (const name of LIBRARIES) if (installed(name)) return { name, reason: `${why}, and ${name} is installed` };
  throw new CdkLibraryError(
    "takoform-cdk: its constructs are built on cdktf or cdktn, and neither is installed; install one beside takoform-cdk (npm install --save-exact cdktf@0.21.0, or cdktn@0.24.0)",
  );
}

const load = createRequire(import.meta.url);
const installed = (name: CdkLibraryName): boolean => {
  try {
    load.resolve(name);
    return true;
  } catch {
    return false;
  }
};

/** The library this process's constructs are built on, and why it was chosen. */
export const CDK_LIBRARY: CdkChoice = chooseCdkLibrary(process.cwd(), installed);
const lib = load(CDK_LIBRARY.name) as typeof Cdk;

export const { Annotations, TerraformProvider, TerraformResource, TerraformStack, Token, Tokenization } = lib;
export type TerraformProvider = Cdk.TerraformProvider;
export type TerraformResource = Cdk.TerraformResource;

/**
 * Refuses a scope whose stack another CDK library made: its classes are not this library's, so
 * the two would each keep their own registry of providers, aspects and validations.
 */
export function assertSameLibrary(scope: IConstruct): void {
  let stack: unknown;
  try {
    stack = TerraformStack.of(scope);
  } catch {
    return; // not in a stack at all: the library itself reports that
  }
  if (stack instanceof TerraformStack) return;
  const other = LIBRARIES.find((n) => n !== CDK_LIBRARY.name)!;
  throw new CdkLibraryError(
    `takoform-cdk: the stack ${(stack as IConstruct).node.path} is a ${other} TerraformStack, but takoform-cdk's constructs are built on ${CDK_LIBRARY.name} ` +
      `(${CDK_LIBRARY.reason}). An app uses one of the two: make the project's package.json depend on ${other} and not on ${CDK_LIBRARY.name}.`,
  );
}
