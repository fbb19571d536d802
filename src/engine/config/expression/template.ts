// Splits a Terraform template string into literal text and `${…}` interpolations.
// `$${` and `%%{` are escapes for a literal `${` and `%{`. `%{…}` directives (if/for) are refused.

export type TemplateSegment = { kind: "text"; text: string } | { kind: "interpolation"; source: string };

export type ScanResult = { ok: true; segments: TemplateSegment[] } | { ok: false; reason: string; excerpt: string };

export function scanTemplate(input: string): ScanResult {
  const segments: TemplateSegment[] = [];
  let text = "";
  let i = 0;
  while (i < input.length) {
    if (input.startsWith("$${", i)) {
      text += "${";
      i += 3;
    } else if (input.startsWith("%%{", i)) {
      text += "%{";
      i += 3;
    } else if (input.startsWith("${", i) || input.startsWith("%{", i)) {
      const end = closingBrace(input, i + 2);
      const excerpt = input.slice(i, end < 0 ? undefined : end + 1);
      if (end < 0) return { ok: false, reason: "an interpolation is not closed (missing `}`)", excerpt };
      if (input[i] === "%") return { ok: false, reason: "template directives (`%{ if … }`, `%{ for … }`) are not supported", excerpt };
      if (text !== "") segments.push({ kind: "text", text });
      text = "";
      segments.push({ kind: "interpolation", source: input.slice(i + 2, end) });
      i = end + 1;
    } else {
      text += input[i];
      i++;
    }
  }
  if (text !== "" || segments.length === 0) segments.push({ kind: "text", text });
  return { ok: true, segments };
}

/** Index of the `}` closing an interpolation whose body starts at `from`, skipping quoted strings and nested braces. */
function closingBrace(input: string, from: number): number {
  let depth = 0;
  let quoted = false;
  for (let i = from; i < input.length; i++) {
    const c = input[i];
    if (quoted) {
      if (c === "\\") i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') {
      quoted = true;
    } else if (c === "{") {
      depth++;
    } else if (c === "}") {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}
