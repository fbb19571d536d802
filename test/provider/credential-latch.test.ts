// The credential latch (src/provider/diagnostics/credential.ts): which host answers are a refused
// credential, the one finding it makes of them, and that it latches only on those.

import { describe, expect, it } from "vitest";
import { AcceptedError, HostApiError, ProtocolInvalidError } from "../../src/client/index.ts";
import { CredentialLatch, isCredentialRefusal } from "../../src/provider/diagnostics/credential.ts";
import { hostCallDiagnostic, hostFaultOf, providerCode } from "../../src/provider/index.ts";

const ENDPOINT = "https://takoform.example.com";
const unauthenticated = (init: Partial<ConstructorParameters<typeof HostApiError>[0]> = {}) =>
  new HostApiError({ call: "apply edge/v1 Queue default/q", code: "unauthenticated", status: 401, message: "token revoked", retryable: false, ...init });

describe("a credential refused after discovery", () => {
  it("is a 401 answer to the request itself: the envelope, or a gateway's 401 that is not one", () => {
    expect(isCredentialRefusal(hostFaultOf(unauthenticated()))).toBe(true);
    expect(isCredentialRefusal(hostFaultOf(new ProtocolInvalidError("<html>401</html>", 401)))).toBe(true);
    // An Operation's terminal error, and a mutation the host had already accepted, let the request in.
    expect(isCredentialRefusal(hostFaultOf(unauthenticated({ operationId: "op-1" })))).toBe(false);
    expect(isCredentialRefusal(hostFaultOf(new AcceptedError(unauthenticated(), "op-2")))).toBe(false);
    // 403 is about what the principal may do, not the credential (docs/cli.md).
    expect(isCredentialRefusal(hostFaultOf(unauthenticated({ code: "permission_denied", status: 403 })))).toBe(false);
  });

  it("leaves an operation as ONE finding with the resource's identity and none of the call's pointer or host fault; the first one latches", () => {
    const latch = new CredentialLatch(() => ENDPOINT);
    expect(latch.notSent({ resourceType: "takoform_x" })).toBeUndefined();
    const identity = { resourceType: "takoform_at_least_once_queue", space: "default", name: "q" };
    const other = { severity: "warning" as const, summary: "unrelated" };
    const out = latch.observe([
      hostCallDiagnostic("Failed to create AtLeastOnceQueue", unauthenticated(), { ...identity, pointer: "/spec" }),
      other,
      hostCallDiagnostic("Failed to read AtLeastOnceQueue", unauthenticated(), { ...identity, pointer: "/metadata" }),
    ]);
    expect(out).toEqual([
      {
        severity: "error",
        code: providerCode("host-unauthenticated"),
        summary: "Authentication failed: the Takoform host did not accept the credential",
        detail: `The host at ${ENDPOINT} answered 401: the bearer token is missing, expired or unknown to it.`,
        repair: "Set a valid token in the provider block's `token` or TAKOFORM_TOKEN, and run again.",
        ...identity,
        cause: unauthenticated().message,
      },
      other,
    ]);
    expect(latch.refused).toBe(true);
    expect(latch.notSent({ resourceType: "takoform_edge_kv_namespace", name: "kv" })).toMatchObject({
      code: providerCode("host-unauthenticated"),
      resourceType: "takoform_edge_kv_namespace",
      name: "kv",
      cause: `Not sent: the host refused the credential earlier in this run (${unauthenticated().message})`,
    });
  });

  it("does not latch on a 403 or any other host error", () => {
    const latch = new CredentialLatch(() => ENDPOINT);
    const forbidden = hostCallDiagnostic("Failed to create Queue", unauthenticated({ code: "permission_denied", status: 403 }), { resourceType: "t" });
    expect(latch.observe([forbidden])).toEqual([forbidden]);
    expect(latch.refusal(unauthenticated({ code: "backend_unavailable", status: 503, retryable: true }), { resourceType: "t" })).toBeUndefined();
    expect(latch.refused).toBe(false);
    expect(latch.refusal(unauthenticated(), { resourceType: "t", attribute: "x" } as never)).not.toHaveProperty("attribute");
    expect(latch.refused).toBe(true);
  });
});
