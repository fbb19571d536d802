// Candidate sets: which definition of each Form line new resources are created under.
// Recognized by shape, anywhere under a forms directory:
// - ours (docs/bundled-forms.md §4): {"formGroup", "defaultCreates": [{slug, path, formRef, packageDigest}]};
// - upstream's: {"format": "takoform.form-family-candidates@v1", "forms": [{kind, role, path, formRef, packageDigest}]}.
// Every entry names one exact ref, the default create of its line.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { child, isJsonObject, type JsonValue, listFiles, parseStrictJson } from "../forms/index.ts";
import { type FormRef, isFormRef } from "../core/index.ts";
import { GenerateError } from "./errors.ts";

export const UPSTREAM_CANDIDATE_FORMAT = "takoform.form-family-candidates@v1";

export interface CandidateEntry {
  /** The candidate-set file, relative to its forms directory. */
  file: string;
  pointer: string;
  formRef: FormRef;
  packageDigest: string | null;
}

export interface CandidateScan {
  entries: CandidateEntry[];
  problems: GenerateError[];
}

/** Which list a document holds, if it is a candidate set. */
function entriesOf(document: JsonValue): { list: JsonValue[]; member: string } | null {
  if (!isJsonObject(document)) return null;
  if (typeof document.formGroup === "string" && Array.isArray(document.defaultCreates)) return { list: document.defaultCreates, member: "defaultCreates" };
  if (document.format === UPSTREAM_CANDIDATE_FORMAT && Array.isArray(document.forms)) return { list: document.forms, member: "forms" };
  return null;
}

/** Every candidate-set entry under `root`. Unparsable JSON is left to the definition loader to report. */
export function scanCandidateSets(root: string, display: (path: string) => string = (p) => p): CandidateScan {
  const entries: CandidateEntry[] = [];
  const problems: GenerateError[] = [];
  for (const path of listFiles(root, (name) => name.endsWith(".json"))) {
    let document: JsonValue;
    try {
      document = parseStrictJson(readFileSync(join(root, path)));
    } catch {
      continue;
    }
    const found = entriesOf(document);
    if (found === null) continue;
    found.list.forEach((entry, i) => {
      const pointer = child(`/${found.member}`, i);
      const ref = isJsonObject(entry) ? entry.formRef : undefined;
      if (!isFormRef(ref)) {
        problems.push(
          new GenerateError(
            "candidate-set",
            display(path),
            child(pointer, "formRef"),
            "must be a complete FormRef {apiVersion, kind, definitionVersion, schemaDigest}",
          ),
        );
        return;
      }
      const digest = isJsonObject(entry) && typeof entry.packageDigest === "string" ? entry.packageDigest : null;
      entries.push({ file: display(path), pointer, formRef: ref, packageDigest: digest });
    });
  }
  return { entries, problems };
}
