// Removal of the bearer token from text on its way out of the client (docs/client.md §2.12):
// every error message the client builds from host text, and — through `HostClient.redact` — the
// diagnostics and stored free text the provider builds from what the host wrote. The data the
// client decodes is never redacted: a uid, a name or a spec value that happens to contain the
// token is still that uid, name or value.

/** What every occurrence of the token is replaced with. */
export const REDACTED = "[redacted]";

/** `text` with every occurrence of `token` replaced by the marker; the same string when none. */
export function redactText(text: string, token: string | undefined): string {
  return token && text.includes(token) ? text.split(token).join(REDACTED) : text;
}
