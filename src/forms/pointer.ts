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

/** Orders strings by their UTF-8 bytes, the order upstream (Go) sorts member names and pointers in. */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Below the surrogate range UTF-16 and UTF-8 order agree; above it a surrogate (a code
    // point ≥ U+10000) sorts after every BMP code point in UTF-8.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}
