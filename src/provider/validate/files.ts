// Local files the provider will read at apply must be there at plan: each `content_file` of an
// artifact-backed revision's authoring — a WorkerBundle's `modules`, a static asset bundle's or
// migration set's `files` (the bytes uploaded as its manifest). A missing one used to plan
// cleanly and fail only at apply — after the resources before it had been created — so it is a
// configuration error here, found with the other errors before the host is asked anything.
//
// Relative paths are read from the working directory, which the command sets to the project
// directory (`-C`), exactly as the apply reads them (bundle/). Only existence, kind and size are
// checked here: reading is apply's business, and a file that changes between plan and apply is
// re-hashed by the apply's re-plan.

import { statSync } from "node:fs";
import { resolve } from "node:path";
import { type Attributes, controlCharacterProblem, type Diagnostic, MAX_BLOB_BYTES, type Value } from "../../core/index.ts";
import { providerCode } from "../diagnostics/codes.ts";

function unreadable(list: "modules" | "files", at: string, file: string, why: string): Diagnostic {
  const what = list === "modules" ? "Module file" : "Local file";
  return {
    severity: "error",
    summary: `${what} not readable`,
    detail: `${at} names ${JSON.stringify(file)} (${resolve(file)}), which ${why}. The provider uploads that file's bytes when it applies the ${list === "modules" ? "bundle" : "manifest"}.`,
    code: providerCode("local-file-unreadable"),
    attribute: at,
    repair: "Build the file before planning, or correct the path; a relative path is read from the project directory.",
  };
}

/** One problem per authored entry whose known `content_file` is missing, not a regular file, or too large. */
export function localFileProblems(config: Attributes): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const list of ["modules", "files"] as const) {
    const entries = config[list];
    if (!Array.isArray(entries)) continue;
    entries.forEach((item: Value, i) => {
      if (item === null || typeof item !== "object" || Array.isArray(item)) return;
      const file = (item as Record<string, Value>)["content_file"];
      if (typeof file !== "string" || file === "") return;
      const at = `${list}[${i}].content_file`;
      // Before anything is opened: a NUL would end the path the system is handed, and any other
      // control character is no part of a file name anyone meant (core/control-characters.ts).
      const control = controlCharacterProblem(at, file);
      if (control !== undefined) {
        out.push({
          severity: "error",
          summary: `${list === "modules" ? "Module file" : "Local file"} path holds a control character`,
          detail: `${control}; the provider opens no path that holds one.`,
          code: providerCode("local-file-unreadable"),
          attribute: at,
          repair: "Correct the path; a relative path is read from the project directory.",
        });
        return;
      }
      let info: ReturnType<typeof statSync>;
      try {
        info = statSync(resolve(file));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        out.push(unreadable(list, at, file, code === "ENOENT" ? "does not exist" : `cannot be read (${code ?? (error as Error).message})`));
        return;
      }
      if (!info.isFile()) out.push(unreadable(list, at, file, "is not a regular file"));
      else if (info.size > MAX_BLOB_BYTES) out.push(unreadable(list, at, file, `holds ${info.size} bytes, more than the ${MAX_BLOB_BYTES} one file may hold`));
    });
  }
  return out;
}
