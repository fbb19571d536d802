// Control characters (U+0000–U+001F and U+007F) in a path or a name. None of them means anything
// in a file name, a backend setting or a resource name, and some are read as something else by
// what comes after: a NUL ends the string a C library is handed (SQLite opened `state\0.db` as
// `state`), a newline or an escape rewrites what a terminal shows. So every path and name the
// user gives is checked here before anything is opened, and the message names the character by
// its code point and position, never by printing it.

/** The first control character of a text: its code point and 1-based position in characters. */
export interface ControlCharacter {
  codePoint: number;
  position: number;
}

export function controlCharacterIn(text: string): ControlCharacter | undefined {
  let position = 0;
  for (const char of text) {
    position++;
    const codePoint = char.codePointAt(0)!;
    if (codePoint <= 0x1f || codePoint === 0x7f) return { codePoint, position };
  }
  return undefined;
}

/** `U+0000 at character 6`. */
export function describeControlCharacter(found: ControlCharacter): string {
  return `U+${found.codePoint.toString(16).toUpperCase().padStart(4, "0")} at character ${found.position}`;
}

/**
 * The sentence that refuses `field` for holding a control character, or undefined when it holds
 * none: "terraform.backend.local.path holds the control character U+0000 at character 6".
 */
export function controlCharacterProblem(field: string, text: string): string | undefined {
  const found = controlCharacterIn(text);
  return found === undefined ? undefined : `${field} holds the control character ${describeControlCharacter(found)}`;
}

/** The same as a parenthesis closing a grammar's refusal: " (name holds the control character U+0001 at character 2)", or "". */
export function controlCharacterNote(field: string, text: string): string {
  const problem = controlCharacterProblem(field, text);
  return problem === undefined ? "" : ` (${problem})`;
}

/** A name quoted for a message: JSON's quoting, which escapes U+0000–U+001F, with U+007F escaped too. */
export function quotedName(text: string): string {
  return JSON.stringify(text).replace(/\u007f/g, "\\u007f");
}
