// Support profiles read at plan time (decision 0031; reference §12), cached per provider
// instance so each profile is read at most once per run however many resources ask — and, in a
// run of several stacks, shared by the providers that reach the same host with the same
// credential, space and lane (automation/run-connections.ts). An answer
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

  /**
   * `run`: the answers of the other providers of the run that reach the same host the same way.
   * Their profiles and refusals are this provider's too; a read they could not make is made again
   * here (the provider that made it may have closed its connection under it), once.
   */
  constructor(
    private readonly timeoutMs: number,
    private readonly run?: SupportCache,
  ) {}

  #ask(key: string, read: (deadline: number) => Promise<WireSupportProfile>): Promise<SupportAnswer> {
    let answer = this.#answers.get(key);
    if (answer === undefined) {
      const shared = this.run === undefined ? undefined : this.run.#answers.get(key);
      answer = shared === undefined ? this.#read(read) : shared.then((got) => (got.error === undefined ? got : this.#read(read)));
      this.#answers.set(key, answer);
      if (this.run !== undefined) this.run.#keep(key, answer);
    }
    return answer;
  }

  #read(read: (deadline: number) => Promise<WireSupportProfile>): Promise<SupportAnswer> {
    return read(Date.now() + this.timeoutMs).then(
      (profile): SupportAnswer => ({ profile }),
      (err: unknown): SupportAnswer => (isSupportRefusal(err) ? { refused: err } : { error: err }),
    );
  }

  /** A run's cache keeps the first answer that decides something (a profile or a refusal). */
  #keep(key: string, answer: Promise<SupportAnswer>): void {
    const kept = this.#answers.get(key);
    if (kept === undefined) this.#answers.set(key, answer);
    else void kept.then((got) => (got.error !== undefined ? this.#answers.set(key, answer) : undefined));
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
