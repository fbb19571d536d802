// Support profiles read at plan time (decision 0031; reference §12), cached per provider
// instance so each profile is read at most once per run however many resources ask. An answer
// is one of three things, and only the first two decide anything:
// - a profile;
// - an explicit refusal: a stable host error `form_unknown` or `resource_not_found` on the
//   support route itself;
// - "could not ask": every other failure (protocol-invalid, transport, timeout, other codes).

import { HostApiError, type HostClient } from "../../client/index.ts";
import { type FormRef, formRefKey, type WireSupportProfile } from "../../core/index.ts";

export type SupportAnswer =
  | { profile: WireSupportProfile; refused?: undefined; error?: undefined }
  | { profile?: undefined; refused: HostApiError; error?: undefined }
  | { profile?: undefined; refused?: undefined; error: unknown };

/** True for the only answers that mean "this host does not support it". */
export function isSupportRefusal(err: unknown): err is HostApiError {
  return err instanceof HostApiError && err.origin === "response" && (err.code === "form_unknown" || err.code === "resource_not_found");
}

export class SupportCache {
  readonly #answers = new Map<string, Promise<SupportAnswer>>();

  constructor(private readonly timeoutMs: number) {}

  #ask(key: string, read: (deadline: number) => Promise<WireSupportProfile>): Promise<SupportAnswer> {
    let answer = this.#answers.get(key);
    if (answer === undefined) {
      answer = read(Date.now() + this.timeoutMs).then(
        (profile): SupportAnswer => ({ profile }),
        (err: unknown): SupportAnswer => (isSupportRefusal(err) ? { refused: err } : { error: err }),
      );
      this.#answers.set(key, answer);
    }
    return answer;
  }

  form(client: HostClient, ref: FormRef): Promise<SupportAnswer> {
    return this.#ask(`form ${formRefKey(ref)}`, (deadline) => client.getFormSupport(ref, { deadline }));
  }

  interface(client: HostClient, name: string, version: string): Promise<SupportAnswer> {
    return this.#ask(`interface ${name}@${version}`, (deadline) => client.getInterfaceSupport(name, version, { deadline }));
  }

  binding(client: HostClient, name: string, version: string): Promise<SupportAnswer> {
    return this.#ask(`binding ${name}@${version}`, (deadline) => client.getBindingSupport(name, version, { deadline }));
  }
}
