// worker.runtime's loadModule: a Worker Bundle becomes an ES module graph in the isolate's own
// context, and the handler set is read off what the main module's bytes actually export.
//
// In the order a failure is decided (the first one wins; each is one of the closed codes):
//   1. every module's media type is loadable or the auxiliary source-map type, else
//      unsupported_media_type — a bundle carrying anything else is refused whole, not loaded
//      with the entry ignored;
//   2. mainModule names a module of the bundle, else module_not_found; an auxiliary (source
//      map) main module is unsupported_media_type;
//   3. JavaScript compiles as an ES module (UTF-8, no syntax error), else module_syntax_error;
//      WebAssembly compiles, else module_syntax_error;
//   4. every static import resolves to a module of the bundle, else module_not_found; importing
//      a source map is unsupported_media_type, and so is an import asking for another module
//      type (`with { type: "json" }`: JSON modules are not loadable in this version);
//   5. evaluation completes. A module whose top-level code throws is not a loadable module, and
//      the closed vocabulary has no other code for it: module_syntax_error, with the thrown
//      message as the detail (a deliberate choice, see docs/runtime.md);
//   6. each declared handler is an own data property of the default-exported object whose value
//      is callable, else handler_not_exported. The exported set is derived from the bytes, never
//      from the declaration; a getter is not read.
//
// Specifiers: `./x.js` and `../x.js` resolve against the importing module's path; anything else
// must be a module name exactly (`lib/x.js`, `/lib/x.js` with the slash dropped). `node:` and
// URLs resolve to nothing. text/plain imports as its text, application/octet-stream as an
// ArrayBuffer, application/wasm as a compiled, uninstantiated WebAssembly.Module.

import vm from "node:vm";
import { ARTIFACT_MEDIA_TYPES, RUNTIME_HANDLERS, type RuntimeHandler, type RuntimeLoadError } from "../../../core/index.ts";
import type { ModuleSource } from "../wire.ts";
import type { Realm } from "./globals.ts";

const LOADABLE: readonly string[] = ARTIFACT_MEDIA_TYPES.loadable;
const AUXILIARY: readonly string[] = ARTIFACT_MEDIA_TYPES.auxiliary;
const JAVASCRIPT = "application/javascript+module";

export class LoadFailure extends Error {
  override name = "LoadFailure";
  constructor(
    readonly code: RuntimeLoadError,
    message: string,
  ) {
    super(message);
  }
}

export interface LoadedBundle {
  /** The default-exported object (in the isolate's realm). */
  handlers: Record<string, unknown>;
  exportedHandlers: RuntimeHandler[];
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Joins a relative specifier onto the importing module's directory; null when it climbs out. */
function resolveRelative(from: string, specifier: string): string | null {
  const parts = from.split("/").slice(0, -1);
  for (const segment of specifier.split("/")) {
    if (segment === "." || segment === "") continue;
    if (segment === "..") {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(segment);
  }
  return parts.join("/");
}

export function resolveSpecifier(from: string, specifier: string): string | null {
  if (specifier.startsWith("./") || specifier.startsWith("../")) return resolveRelative(from, specifier);
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(specifier)) return null;
  return specifier.startsWith("/") ? specifier.slice(1) : specifier;
}

function message(error: unknown): string {
  return error instanceof Error || (typeof error === "object" && error !== null && "message" in error)
    ? String((error as { message: unknown }).message)
    : String(error);
}

export async function loadBundle(
  context: vm.Context,
  realm: Realm,
  mainModule: string,
  modules: readonly ModuleSource[],
  declared: readonly string[],
  timeoutMs: number,
): Promise<LoadedBundle> {
  const byName = new Map<string, ModuleSource>();
  for (const module of modules) {
    if (!LOADABLE.includes(module.mediaType) && !AUXILIARY.includes(module.mediaType)) {
      throw new LoadFailure("unsupported_media_type", `module "${module.name}" is ${module.mediaType}, outside the loadable set (${LOADABLE.join(", ")})`);
    }
    byName.set(module.name, module);
  }
  const main = byName.get(mainModule);
  if (main === undefined)
    throw new LoadFailure("module_not_found", `mainModule "${mainModule}" is not a module of the bundle (it carries ${[...byName.keys()].join(", ")})`);

  const records = new Map<string, vm.Module>();
  const record = (source: ModuleSource): vm.Module => {
    const known = records.get(source.name);
    if (known !== undefined) return known;
    let made: vm.Module;
    if (AUXILIARY.includes(source.mediaType)) {
      throw new LoadFailure("unsupported_media_type", `module "${source.name}" is ${source.mediaType}: it is carried with the bundle but never loaded`);
    } else if (source.mediaType === JAVASCRIPT) {
      let text: string;
      try {
        text = utf8.decode(source.bytes);
      } catch {
        throw new LoadFailure("module_syntax_error", `module "${source.name}" is not UTF-8 text`);
      }
      try {
        made = new vm.SourceTextModule(text, {
          identifier: source.name,
          context,
          importModuleDynamically: ((specifier: string) =>
            dynamicImport(source.name, specifier)) as unknown as vm.SourceTextModuleOptions["importModuleDynamically"],
        });
      } catch (error) {
        throw new LoadFailure("module_syntax_error", `module "${source.name}" does not compile as an ES module: ${message(error)}`);
      }
    } else {
      let value: unknown;
      if (source.mediaType === "text/plain") {
        try {
          value = utf8.decode(source.bytes);
        } catch {
          throw new LoadFailure("module_syntax_error", `text module "${source.name}" is not UTF-8`);
        }
      } else if (source.mediaType === "application/wasm") {
        try {
          value = new realm.WebAssembly.Module(source.bytes);
        } catch (error) {
          throw new LoadFailure("module_syntax_error", `WebAssembly module "${source.name}" does not compile: ${message(error)}`);
        }
      } else {
        const buffer = new realm.ArrayBuffer(source.bytes.byteLength);
        new realm.Uint8Array(buffer).set(source.bytes);
        value = buffer;
      }
      made = new vm.SyntheticModule(
        ["default"],
        function (this: vm.SyntheticModule) {
          this.setExport("default", value);
        },
        { identifier: source.name, context },
      );
    }
    records.set(source.name, made);
    return made;
  };

  const lookup = (from: string, specifier: string, attributes: Partial<Record<string, string>> | undefined): ModuleSource => {
    const name = resolveSpecifier(from, specifier);
    const target = name === null ? undefined : byName.get(name);
    if (target === undefined) throw new LoadFailure("module_not_found", `"${from}" imports "${specifier}", which names no module of the bundle`);
    const type = attributes?.type;
    if (type !== undefined)
      throw new LoadFailure(
        "unsupported_media_type",
        `"${from}" imports "${specifier}" as type "${type}"; only ES, text, binary and WebAssembly modules load in this version`,
      );
    return target;
  };

  const linker = (
    specifier: string,
    referencing: vm.Module,
    extra: { attributes?: Partial<Record<string, string>>; assert?: Partial<Record<string, string>> },
  ): vm.Module => record(lookup(referencing.identifier, specifier, extra.attributes ?? extra.assert));

  const dynamicImport = async (from: string, specifier: string): Promise<vm.Module> => {
    const target = record(lookup(from, specifier, undefined));
    if (target.status === "unlinked") await target.link(linker);
    if (target.status === "linked") await target.evaluate();
    return target;
  };

  const root = record(main);
  try {
    await root.link(linker);
  } catch (error) {
    if (error instanceof LoadFailure) throw error;
    throw new LoadFailure("module_not_found", `the module graph of "${mainModule}" does not link: ${message(error)}`);
  }
  try {
    await root.evaluate({ timeout: timeoutMs });
  } catch (error) {
    throw new LoadFailure("module_syntax_error", `evaluating "${mainModule}" threw: ${message(error)}`);
  }
  const namespace = root.namespace as Record<string, unknown>;
  const exported = namespace.default;
  const handlers: RuntimeHandler[] = [];
  if (exported !== null && typeof exported === "object") {
    for (const name of RUNTIME_HANDLERS) {
      const descriptor = Object.getOwnPropertyDescriptor(exported, name);
      if (descriptor !== undefined && "value" in descriptor && typeof descriptor.value === "function") handlers.push(name);
    }
  }
  const missing = declared.filter((h) => !(handlers as string[]).includes(h));
  if (missing.length > 0) {
    const what =
      exported === null || typeof exported !== "object"
        ? `its default export is ${exported === null ? "null" : typeof exported}, not an object`
        : `its default export has ${handlers.length > 0 ? handlers.join(", ") : "no handler"}`;
    throw new LoadFailure("handler_not_exported", `"${mainModule}" does not export ${missing.join(", ")}, which the version declares: ${what}`);
  }
  return { handlers: (exported ?? {}) as Record<string, unknown>, exportedHandlers: handlers };
}
