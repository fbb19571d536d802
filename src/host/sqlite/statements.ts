// Reading SQL text just far enough to classify it, without a SQL parser: where statements start
// (outside string literals, quoted identifiers, comments and trigger bodies) and which keyword
// each starts with. Two readers use it:
//
//   - edge.sql on a lane with the safe-number model refuses a runtime statement by its leading
//     keyword (transaction control, schema and attachment statements, pragmas that write);
//   - a migration file runs as one script inside the host's own transaction, so no statement of
//     it may end, begin or split that transaction, or reach another file (ATTACH, DETACH).
//
// SQLite's own grammar makes this safe to do by tokens: a trigger body (CREATE TRIGGER … BEGIN …
// END) is the only construct whose inner `;` does not end the statement, and inside one only
// CASE … END also uses END.

/** Statements that begin, end or split a transaction. */
export const TRANSACTION_CONTROL: ReadonlySet<string> = new Set(["BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE"]);

/** Statements that change which database files a connection reaches. */
export const ATTACHMENT: ReadonlySet<string> = new Set(["ATTACH", "DETACH"]);

interface Token {
  /** An upper-cased keyword or identifier, or one punctuation character. */
  text: string;
  word: boolean;
}

/** The tokens of `sql` that matter for statement boundaries, in order; literals and comments are dropped. */
function* tokens(sql: string): Generator<Token> {
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i]!;
    if (c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f" || c === "\v") {
      i++;
    } else if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? n : end + 1;
    } else if (c === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2);
      i = end < 0 ? n : end + 2;
    } else if (c === "'" || c === '"' || c === "`" || c === "[") {
      // A quote ends at its twin (a doubled quote inside is an escape that re-opens it at once).
      const close = c === "[" ? "]" : c;
      let j = i + 1;
      for (;;) {
        const end = sql.indexOf(close, j);
        if (end < 0) {
          j = n;
          break;
        }
        if (close !== "]" && sql[end + 1] === close) {
          j = end + 2;
          continue;
        }
        j = end + 1;
        break;
      }
      yield { text: c === "'" ? "'" : "IDENT", word: c !== "'" };
      i = j;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_$]/.test(sql[j]!)) j++;
      yield { text: sql.slice(i, j).toUpperCase(), word: true };
      i = j;
    } else {
      yield { text: c, word: false };
      i++;
    }
  }
}

/** The keyword each statement of `sql` starts with, in order (empty statements are skipped). */
export function statementKeywords(sql: string): string[] {
  const out: string[] = [];
  let atStart = true;
  // Trigger state: 0 outside, 1 after CREATE … TRIGGER until its BEGIN, 2 inside the body.
  let trigger = 0;
  let caseDepth = 0;
  let createSeen = 0;
  for (const token of tokens(sql)) {
    if (trigger === 2) {
      if (token.text === "CASE") caseDepth++;
      else if (token.text === "END") {
        if (caseDepth > 0) caseDepth--;
        else trigger = 0;
      }
      continue;
    }
    if (token.text === ";") {
      atStart = true;
      trigger = 0;
      createSeen = 0;
      continue;
    }
    if (atStart) {
      atStart = false;
      out.push(token.word ? token.text : "");
      createSeen = token.text === "CREATE" ? 1 : 0;
      continue;
    }
    // CREATE [TEMP|TEMPORARY] TRIGGER: the body that follows BEGIN is one statement.
    if (createSeen > 0 && createSeen < 3) {
      if (token.text === "TRIGGER") trigger = 1;
      createSeen = token.text === "TEMP" || token.text === "TEMPORARY" ? createSeen + 1 : 0;
    }
    if (trigger === 1 && token.text === "BEGIN") {
      trigger = 2;
      caseDepth = 0;
    }
  }
  return out;
}

/** The keyword `sql` starts with (upper case), or "" when it starts with none. */
export function leadingKeyword(sql: string): string {
  for (const token of tokens(sql)) return token.word ? token.text : "";
  return "";
}

/**
 * Why a migration script may not run inside the host's transaction, or undefined: a statement
 * that controls the transaction itself, or reaches another database file.
 */
export function migrationScriptProblem(sql: string): string | undefined {
  for (const keyword of statementKeywords(sql)) {
    if (TRANSACTION_CONTROL.has(keyword)) {
      return `it contains a ${keyword} statement; each migration file runs in one transaction the host opens and commits with its ledger entry, so a file never controls transactions`;
    }
    if (ATTACHMENT.has(keyword)) return `it contains an ${keyword} statement; a migration reaches only its own database`;
  }
  return undefined;
}
