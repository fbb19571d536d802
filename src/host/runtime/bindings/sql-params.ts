// Parameter numbering shared by both edge.sql value models (sql-store.ts, sql-safe.ts).

/**
 * SQLite numbers parameters `?` (the next index) and `?NNN`; better-sqlite3 binds only `?` and
 * named ones. Both are rewritten to `@pN` outside literals, identifiers and comments, so a
 * params list binds by SQLite's own numbering. Returns the text and the highest index used.
 */
export function numberParameters(sql: string): { sql: string; count: number } {
  let out = "";
  let max = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    const quote = c === "'" ? "'" : c === '"' ? '"' : c === "`" ? "`" : c === "[" ? "]" : null;
    if (quote !== null) {
      const end = sql.indexOf(quote, i + 1);
      const stop = end < 0 ? sql.length : end + 1;
      out += sql.slice(i, stop);
      i = stop;
      continue;
    }
    if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      const stop = end < 0 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop;
      continue;
    }
    if (c === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2);
      const stop = end < 0 ? sql.length : end + 2;
      out += sql.slice(i, stop);
      i = stop;
      continue;
    }
    if (c === "?") {
      let j = i + 1;
      while (j < sql.length && sql[j]! >= "0" && sql[j]! <= "9") j++;
      const index = j > i + 1 ? Number(sql.slice(i + 1, j)) : max + 1;
      max = Math.max(max, index);
      out += `@p${index}`;
      i = j;
      continue;
    }
    out += c;
    i++;
  }
  return { sql: out, count: max };
}
