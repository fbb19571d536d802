// RFC 6901 JSON Pointer helpers shared by the strict reader, relation derivation and the
// validator's violation pointers.

/** Escapes one reference token: `~` → `~0`, `/` → `~1`. */
export function escapePointerToken(token: string): string {
  if (!token.includes("~") && !token.includes("/")) return token;
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

export function unescapePointerToken(token: string): string {
  if (!token.includes("~")) return token;
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** Joins already-unescaped tokens into a pointer (`[]` → `""`). */
export function formatPointer(tokens: readonly (string | number)[]): string {
  let pointer = "";
  for (const token of tokens) pointer += `/${typeof token === "number" ? token : escapePointerToken(token)}`;
  return pointer;
}

/** Splits a pointer into unescaped tokens. Throws on a non-empty pointer without a leading `/`. */
export function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new SyntaxError(`JSON pointer must start with "/": ${JSON.stringify(pointer)}`);
  return pointer.slice(1).split("/").map(unescapePointerToken);
}
