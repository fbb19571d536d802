// Removal of the bearer token from text on its way out of the client (docs/client.md §2.12):
// every error message the client builds from host text, and — through `HostClient.redact` — the
// diagnostics and stored free text the provider builds from what the host wrote. The data the
// client decodes is never redacted: a uid, a name or a spec value that happens to contain the
// token is still that uid, name or value.
//
// What is removed is the whole credential value, in the spellings it takes where it can appear:
// as it is (an echoed Authorization header, a quoted value) and percent-encoded (a URL's query or
// userinfo). Never a part of it, and never a word: the client refuses a token too short to be
// told apart from words (core/bearer-token.ts), so an occurrence of the whole value is the token.

/** What every occurrence of the token is replaced with. */
export const REDACTED = "[redacted]";

/** `text` with every occurrence of the whole token, as it is or percent-encoded, replaced by the marker. */
export function redactText(text: string, token: string | undefined): string {
  if (!token) return text;
  let out = text.includes(token) ? text.split(token).join(REDACTED) : text;
  const encoded = encodeURIComponent(token);
  if (encoded !== token && out.includes(encoded)) out = out.split(encoded).join(REDACTED);
  return out;
}
