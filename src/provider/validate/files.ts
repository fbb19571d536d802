// Local files the provider will read at apply must be there at plan. Today that is each bundle
// module's `content_file` (the bytes uploaded as the WorkerBundle). A missing one used to plan
// cleanly and fail only at apply — after the resources before it had been created — so it is a
// configuration error here, found with the other errors before the host is asked anything.
//
// Relative paths are read from the working directory, which the command sets to the project
// directory (`-C`), exactly as the apply reads them (bundle/authoring.ts). Only existence, kind
// and size are checked here: reading is apply's business, and a file that changes between plan
// and apply is re-hashed by the apply's re-plan.

import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { Attributes, Diagnostic, Value } from "../../core/index.ts";
import { MAX_MODULE_FILE_BYTES } from "../bundle/authoring.ts";
import { providerCode } from "../diagnostics/codes.ts";

function unreadable(at: string, file: string, why: string): Diagnostic {
  return {
    severity: "error",
    summary: "Module file not readable",
    detail: `${at} names ${JSON.stringify(file)} (${resolve(file)}), which ${why}. The provider uploads that file's bytes when it applies the bundle.`,
    code: providerCode("local-file-unreadable"),
    attribute: at,
    repair: "Build the file before planning, or correct the path; a relative path is read from the project directory.",
  };
}

/** One problem per module whose known `content_file` is missing, not a regular file, or too large. */
export function moduleFileProblems(config: Attributes): Diagnostic[] {
  const modules = config["modules"];
  if (!Array.isArray(modules)) return [];
  const out: Diagnostic[] = [];
  modules.forEach((item: Value, i) => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) return;
    const file = (item as Record<string, Value>)["content_file"];
    if (typeof file !== "string" || file === "") return;
    const at = `modules[${i}].content_file`;
    let info: ReturnType<typeof statSync>;
    try {
      info = statSync(resolve(file));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      out.push(unreadable(at, file, code === "ENOENT" ? "does not exist" : `cannot be read (${code ?? (error as Error).message})`));
      return;
    }
    if (!info.isFile()) out.push(unreadable(at, file, "is not a regular file"));
    else if (info.size > MAX_MODULE_FILE_BYTES)
      out.push(unreadable(at, file, `holds ${info.size} bytes, more than the ${MAX_MODULE_FILE_BYTES} a module file may hold`));
  });
  return out;
}
