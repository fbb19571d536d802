// The modules authoring surface (reference §5.6) of a WorkerBundle-backed revision: either a
// bare `manifest_digest` (the bundle already exists on the host), or local files — `main_module`
// plus `modules[]` — whose manifest the provider computes, uploads and then applies by digest.
// Module bytes are read here and never enter state; only paths, sizes and digests do. The other
// manifest kinds' surface is files.ts; artifact.ts picks one by the codec's manifest kind.

import { buildWorkerBundleManifest, type BuiltManifest, type BundleModule } from "../../client/index.ts";
import {
  controlCharacterNote,
  ARTIFACT_MEDIA_TYPES,
  type Attributes,
  MANIFEST_POLICIES,
  type Diagnostic,
  errorText,
  isDigest,
  isUnknown,
  UNKNOWN,
  type Value,
} from "../../core/index.ts";
import { BUNDLE_MEDIA_TYPES } from "../../registry/index.ts";
import { lacksContentFile, listElements, manifestProblem, missingContentFile, readAuthoredFile, readEntries } from "./entries.ts";

/** Largest module file the provider reads (256 MiB). */
export const MAX_MODULE_FILE_BYTES = 268_435_456;
const MODULE_PATH = /^[A-Za-z0-9_][A-Za-z0-9._-]*(?:\/[A-Za-z0-9_][A-Za-z0-9._-]*)*$/;
const LOADABLE: readonly string[] = ARTIFACT_MEDIA_TYPES.loadable;
/** How a module without its file is refused (a StaticAssetBundle's or migration set's content_file is required by the schema). */
const MODULE_WORDS = {
  list: "modules",
  missingSummary: "Missing module content_file",
  missingRepair: "name the local file, or author the bundle by manifest_digest.",
} as const;

export interface ResolvedModule {
  name: string;
  content_type: string;
  content_file: string | null;
  size: number;
  digest: string;
}

export type BundleAuthoring =
  /** The bundle is named by digest only; nothing is uploaded. */
  | { mode: "digest"; manifestDigest: string }
  /** Local files: the computed manifest digest, the resolved module list, and the bytes to upload. */
  | { mode: "local"; manifestDigest: string; mainModule: string; modules: ResolvedModule[]; upload: BundleModule[]; built: BuiltManifest }
  /** Something is unknown or unreadable at plan time: the digest cannot be resolved yet. */
  | { mode: "unresolved"; modules?: Value };

export interface AuthoringResult {
  authoring?: BundleAuthoring;
  diagnostics: Diagnostic[];
}

/**
 * Checks that need no file access (configuration validation): the authoring mode, media types,
 * module names, and the main module. Unknown values are skipped.
 */
export function staticBundleProblems(attributes: Attributes): Diagnostic[] {
  const out: Diagnostic[] = [];
  const main = attributes["main_module"] ?? null;
  const modules = attributes["modules"] ?? null;
  if ((main === null) !== (modules === null)) {
    out.push(
      manifestProblem(
        "Incomplete local bundle authoring",
        "main_module and modules author a bundle from local files together; set both, or neither and name the bundle by manifest_digest.",
        main === null ? "main_module" : "modules",
      ),
    );
    return out;
  }
  if (main === null) {
    // Neither local files nor a digest: nothing to apply, whatever the host says (refused at
    // plan). A digest that is not one is the field check's "Invalid manifest digest".
    if ((attributes["manifest_digest"] ?? null) === null) out.push(noBundleAuthored(null));
    return out;
  }
  if (isUnknown(modules)) return out;
  const elements = listElements(modules);
  if (elements === undefined) return out;
  if (elements.length === 0) {
    out.push(manifestProblem("Empty bundle", "modules must list at least one module.", "modules"));
    return out;
  }
  const ceiling = MANIFEST_POLICIES.WorkerBundle.maximumEntries;
  if (elements.length > ceiling)
    out.push(manifestProblem("Too many modules", `modules lists ${elements.length} entries; a WorkerBundle manifest holds at most ${ceiling}.`, "modules"));
  const seen = new Map<string, number>();
  elements.forEach((element, i) => {
    if (lacksContentFile(element)) out.push(missingContentFile(MODULE_WORDS, i));
    const name = element["name"];
    const type = element["content_type"];
    if (typeof name === "string") {
      if (!MODULE_PATH.test(name))
        out.push(
          manifestProblem(
            "Invalid module name",
            `modules[${i}].name ${JSON.stringify(name)} is not a relative module path${controlCharacterNote(`modules[${i}].name`, name)}.`,
            `modules[${i}].name`,
          ),
        );
      const first = seen.get(name);
      if (first !== undefined)
        out.push(
          manifestProblem(
            "Duplicate module name",
            `modules[${i}].name ${JSON.stringify(name)} is already declared by modules[${first}].`,
            `modules[${i}].name`,
          ),
        );
      else seen.set(name, i);
    }
    if (typeof type === "string" && !(BUNDLE_MEDIA_TYPES as readonly string[]).includes(type)) {
      out.push(
        manifestProblem(
          "Invalid module content type",
          `modules[${i}].content_type ${JSON.stringify(type)} is not one of ${BUNDLE_MEDIA_TYPES.join(", ")}.`,
          `modules[${i}].content_type`,
        ),
      );
    }
  });
  if (typeof main === "string") {
    if (!MODULE_PATH.test(main))
      out.push(
        manifestProblem(
          "Invalid main module",
          `main_module ${JSON.stringify(main)} is not a relative module path${controlCharacterNote("main_module", main)}.`,
          "main_module",
        ),
      );
    const index = seen.get(main);
    const allKnown = elements.every((e) => typeof e["name"] === "string");
    if (index === undefined && allKnown) {
      out.push(manifestProblem("Unknown main module", `main_module ${JSON.stringify(main)} names no declared module.`, "main_module"));
    } else if (index !== undefined) {
      const type = elements[index]!["content_type"];
      if (typeof type === "string" && !LOADABLE.includes(type)) {
        out.push(
          manifestProblem(
            "Main module is not loadable",
            `main_module ${JSON.stringify(main)} has content type ${type}, which the runtime cannot load as a main module; a source map may be carried but never be main.`,
            "main_module",
          ),
        );
      }
    }
  }
  return out;
}

/** A bundle with no local files and no usable manifest_digest (null, unknown at apply, or not a digest). */
function noBundleAuthored(pinned: Value): Diagnostic {
  return manifestProblem(
    "No bundle authored",
    pinned === null || isUnknown(pinned)
      ? "A worker bundle needs manifest_digest, or main_module and modules naming local files, wholly known before it can be applied."
      : `manifest_digest ${JSON.stringify(pinned)} is not a sha256 digest.`,
    "manifest_digest",
  );
}

/**
 * Resolves the authoring. In "plan" mode an unknown input leaves the result unresolved without
 * an error; in "apply" mode it is an error. Everything else that is wrong (a missing content_file,
 * a file that cannot be read, no authoring at all) is an error in both.
 */
export async function resolveBundleAuthoring(attributes: Attributes, mode: "plan" | "apply"): Promise<AuthoringResult> {
  // Configuration errors validate() reports first (the engine plans nothing past them); here too,
  // in both modes, so that the plan and the apply refuse exactly the same values.
  const staticProblems = staticBundleProblems(attributes);
  if (staticProblems.length > 0) return { diagnostics: staticProblems };
  const main = attributes["main_module"] ?? null;
  const modules = attributes["modules"] ?? null;
  const pinned = attributes["manifest_digest"] ?? null;

  if (main === null && modules === null) {
    if (typeof pinned === "string" && isDigest(pinned)) return { authoring: { mode: "digest", manifestDigest: pinned }, diagnostics: [] };
    if (isUnknown(pinned) && mode === "plan") return { authoring: { mode: "unresolved" }, diagnostics: [] };
    return { diagnostics: [noBundleAuthored(pinned)] };
  }

  if (isUnknown(main) || isUnknown(modules)) {
    if (mode === "plan") return { authoring: { mode: "unresolved", modules: UNKNOWN }, diagnostics: [] };
    return {
      diagnostics: [
        manifestProblem(
          "Unknown bundle authoring",
          "main_module and modules must be wholly known before the provider can apply this bundle.",
          isUnknown(main) ? "main_module" : "modules",
        ),
      ],
    };
  }
  const read = await readEntries(
    listElements(modules)!,
    {
      ...MODULE_WORDS,
      keyField: "name",
      typeField: "content_type",
      unknownSummary: "Unknown bundle authoring",
      unknownWhat: "this bundle",
      unreadableSummary: "Unreadable module file",
      read: (file) => readAuthoredFile(file, MAX_MODULE_FILE_BYTES, "a module file"),
    },
    mode,
  );
  if ("diagnostics" in read) return read;
  if (read.unresolved) return { authoring: { mode: "unresolved", modules: read.partial }, diagnostics: [] };
  const upload: BundleModule[] = read.entries.map((e) => ({ name: e.key, mediaType: e.mediaType, bytes: e.bytes }));
  const resolved: ResolvedModule[] = read.entries.map((e) => ({ name: e.key, content_type: e.mediaType, content_file: e.file, size: 0, digest: "" }));

  let built: ReturnType<typeof buildWorkerBundleManifest>;
  try {
    built = buildWorkerBundleManifest({ mainModule: main as string, modules: upload });
  } catch (err) {
    return { diagnostics: [manifestProblem("Invalid local bundle", errorText(err), "modules")] };
  }
  built.manifest.modules.forEach((entry, i) => {
    resolved[i]!.size = entry.size;
    resolved[i]!.digest = entry.digest;
  });
  if (typeof pinned === "string" && pinned !== built.manifestDigest) {
    return {
      diagnostics: [
        manifestProblem(
          "Conflicting bundle authoring",
          `manifest_digest is ${pinned} but the authored modules commit manifest ${built.manifestDigest}; the two spellings of one bundle must agree.`,
          "manifest_digest",
        ),
      ],
    };
  }
  return { authoring: { mode: "local", manifestDigest: built.manifestDigest, mainModule: main as string, modules: resolved, upload, built }, diagnostics: [] };
}

/** The modules attribute value of a resolved local authoring (what state records: no bytes). */
export function modulesValue(modules: readonly ResolvedModule[]): Value {
  return modules.map((m) => ({ name: m.name, content_type: m.content_type, content_file: m.content_file, size: m.size, digest: m.digest }));
}
