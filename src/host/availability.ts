// Per-principal Form availability. Normally every installed Form is available to everyone; the
// embedded host's test control can withdraw one exact Form from one principal, which availability
// then reports (`availableToPrincipal: false`) and mutations refuse with `form_unavailable`.

import { formatFormRef, formRefKey, type FormRef } from "../core/index.ts";
import type { Caller } from "./auth.ts";
import { HostError } from "./errors.ts";

export class Availability {
  private readonly withdrawn = new Set<string>();

  private key(caller: Caller, ref: FormRef): string {
    return `${caller.tenant}\n${caller.principal}\n${formRefKey(ref)}`;
  }

  set(caller: Caller, ref: FormRef, available: boolean): void {
    if (available) this.withdrawn.delete(this.key(caller, ref));
    else this.withdrawn.add(this.key(caller, ref));
  }

  isAvailable(caller: Caller, ref: FormRef): boolean {
    return this.withdrawn.size === 0 || !this.withdrawn.has(this.key(caller, ref));
  }

  /** Refuses a write under a Form this principal may not use. */
  assert(caller: Caller, ref: FormRef): void {
    if (!this.isAvailable(caller, ref)) {
      throw new HostError("form_unavailable", `Form ${formatFormRef(ref)} is not available to this principal`);
    }
  }
}
