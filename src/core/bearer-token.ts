// What a bearer token must be before takoform presents it, stated once for the client
// (HostClient.connect) and the provider block's settings (engine/config), so a library user and
// the command refuse the same tokens for the same reason.
//
// Why a floor on the length: takoform removes the token from every text it prints (docs/client.md
// §2.12), replacing each occurrence of the whole value. A token of a few characters also occurs
// inside ordinary words, names and codes: with `it`, "definition" printed as "defin[redacted]ion",
// which garbles every message and, by the gaps it leaves, shows the token anyway. A credential a
// host issues is far longer (the development token is 18 characters); 16 is below any of them and
// above the length at which a token turns up in text by chance.

/** The fewest characters a bearer token may have. */
export const MIN_BEARER_TOKEN_LENGTH = 16;

/**
 * Why a token cannot be presented (a sentence fragment after "the token …"), or undefined when
 * it can. Never quotes the token.
 */
export function bearerTokenProblem(token: string): string | undefined {
  if (token === "") return "is empty";
  if (/[\u0000-\u001f\u007f]/.test(token)) return "contains control characters";
  const length = [...token].length;
  if (length < MIN_BEARER_TOKEN_LENGTH) {
    return (
      `is ${length} character${length === 1 ? "" : "s"} long; takoform needs at least ${MIN_BEARER_TOKEN_LENGTH}, because it removes the ` +
      `token from every message it prints, and a token this short also occurs inside ordinary words and names: removing it ` +
      `would garble messages, and the gaps would give the token away`
    );
  }
  return undefined;
}
