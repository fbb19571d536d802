// How a failed create reports the host's answer (decision 0032): a stable error envelope keeps
// the host's code — `<code> (host, HTTP n)`, no provider code of its own — and
// `takoform.provider/host-response-invalid` is only for answers that are not the closed
// envelope. A create on a name another holder already has gets a repair of its own. Against the
// real local host; the tampered answers stand in for a host that misbehaves or races.

import { describe, expect, it } from "vitest";
import { HostClient } from "../../src/client/client.ts";
import type { Attributes } from "../../src/core/values.ts";
import { HOST_CODE_REPAIRS, providerCode } from "../../src/provider/diagnostics/codes.ts";
import { hostCallDiagnostic } from "../../src/provider/diagnostics/host-fault.ts";
import { diagnosticToJson, renderDetail } from "../../src/core/index.ts";
import { HostProvider } from "../../src/provider/provider.ts";
import { nameTakenRepair } from "../../src/provider/write/name-taken.ts";
import {
  AcceptedError,
  ClientInputError,
  DiscoveryError,
  FormUnavailableError,
  HostApiError,
  OperationDeadlineError,
  ProtocolInvalidError,
  TransportError,
} from "../../src/client/errors.ts";
import { bundledRegistry } from "../../src/registry/bundled.ts";
import { errorsOf, MODES, mustCreate, SPACE, TOKEN, useRig, type Rig } from "./harness.ts";

const SERVICE = "takoform_mesh_service";

async function createFresh(r: Rig, config: Attributes) {
  const plan = await r.provider.plan({ type: SERVICE, address: `${SERVICE}.other`, prior: null, config });
  expect(errorsOf(plan.diagnostics)).toEqual([]);
  return r.provider.create(SERVICE, plan.planned!, r.context());
}

const isPrepare = (req: { method: string; url: string }) => req.method === "POST" && new URL(req.url).pathname.endsWith("/resources/prepare");

for (const mode of MODES)
  describe(`a failed create keeps the host's code (async: ${mode})`, () => {
    const r = useRig({ async: mode });

    it("a name another state holds: invalid_argument (host, HTTP 400) at prepare, with the name-taken repair and the holder's incarnation", async () => {
      const holder = await mustCreate(r, SERVICE, { name: "b", entrypoint: "b.js" });
      // A second configuration (a state that does not know `b`) plans a create of the same name.
      const out = await createFresh(r, { name: "b", entrypoint: "other.js" });
      expect(out.state).toBeNull();
      const [d, ...rest] = out.diagnostics;
      expect(rest).toEqual([]);
      expect(d).toMatchObject({
        severity: "error",
        summary: "Failed to create Service",
        name: "b",
        space: SPACE,
        pointer: "/metadata/name",
        currentUid: holder.attributes["uid"],
        currentGeneration: "1",
        repair: nameTakenRepair(SPACE, "b"),
      });
      expect(d!.code).toBeUndefined();
      expect(d!.host).toMatchObject({ code: "invalid_argument", status: 400, protocolInvalid: false, accepted: false });
      const text = renderDetail(d!);
      expect(text).toContain("Code: invalid_argument (host, HTTP 400)");
      expect(text).not.toContain("host-response-invalid");
      expect(text).toContain("already taken on the host");
      expect(text).toContain(`takoform import ADDRESS ${SPACE}/b`);
      const json = diagnosticToJson(d!);
      expect(json["code"]).toBeUndefined();
      expect(json["codeText"]).toBe("invalid_argument (host, HTTP 400)");
      // Nothing was written: the holder is untouched.
      expect(r.mutations().filter((e) => e.method === "PUT")).toHaveLength(1);
    });

    it("a name taken between prepare and PUT: generation_conflict (host, HTTP 412) with the name-taken repair", async () => {
      const racer = await HostClient.connect({ endpoint: r.url, token: TOKEN });
      const other = new HostProvider({ client: racer, registry: bundledRegistry, defaultSpace: SPACE });
      let raced = false;
      r.tamper = async (req) => {
        if (!isPrepare(req) || raced) return undefined;
        raced = true;
        // Another configuration creates the name after our prepare and before our PUT.
        const plan = await other.plan({ type: SERVICE, address: "x", prior: null, config: { name: "raced", entrypoint: "r.js" } });
        const made = await other.create(SERVICE, plan.planned!, { recordIntent: () => undefined });
        expect(errorsOf(made.diagnostics)).toEqual([]);
        return undefined;
      };
      const out = await createFresh(r, { name: "raced", entrypoint: "mine.js" });
      racer.close();
      const [d] = out.diagnostics;
      expect(d!.host).toMatchObject({ code: "generation_conflict", status: 412 });
      expect(d!.code).toBeUndefined();
      expect(d!.repair).toBe(nameTakenRepair(SPACE, "raced"));
      expect(renderDetail(d!)).toContain("Code: generation_conflict (host, HTTP 412)");
    });

    it("another invalid_argument at prepare keeps the code's own repair; one read found the name free", async () => {
      r.tamper = (req, res) =>
        isPrepare(req)
          ? {
              ...res,
              status: 400,
              body: Buffer.from(
                JSON.stringify({ error: { code: "invalid_argument", message: "entrypoint is not loadable", requestId: "req_1", retryable: false } }),
              ),
            }
          : undefined;
      const out = await createFresh(r, { name: "free", entrypoint: "x.js" });
      const [d] = out.diagnostics;
      expect(d).toMatchObject({ pointer: "/spec", host: { code: "invalid_argument", status: 400, message: "entrypoint is not loadable" } });
      expect(d!.code).toBeUndefined();
      expect(d!.repair).toBeUndefined();
      expect(d!.currentUid).toBeUndefined();
      expect(renderDetail(d!)).toContain(HOST_CODE_REPAIRS.invalid_argument);
      const reads = r.calls("GET", "/Service/free");
      expect(reads.map((e) => e.status)).toEqual([404]);
    });

    it("an answer that is not the closed envelope is host-response-invalid", async () => {
      r.tamper = (req, res) => (isPrepare(req) ? { ...res, status: 400, body: Buffer.from("<html>bad gateway</html>") } : undefined);
      const out = await createFresh(r, { name: "garbled", entrypoint: "x.js" });
      const [d] = out.diagnostics;
      expect(d!.code).toBe(providerCode("host-response-invalid"));
      expect(d!.host?.protocolInvalid).toBe(true);
      expect(d!.repair).toBeUndefined();
      expect(renderDetail(d!)).toContain("Code: protocol-invalid host response (HTTP 400)");
      // No confirming read for an answer that says nothing.
      expect(r.calls("GET", "/Service/garbled")).toEqual([]);
    });
  });

describe("hostCallDiagnostic's provider code", () => {
  const stable = new HostApiError({ call: "apply x", code: "policy_denied", status: 403, message: "no", retryable: false });
  it.each([
    ["a stable host envelope", stable, undefined],
    ["a malformed answer", new ProtocolInvalidError("not JSON", 502), providerCode("host-response-invalid")],
    ["an answer over its size cap", new TransportError("too-large", "body too large"), providerCode("host-response-invalid")],
    ["a connection failure", new TransportError("network", "ECONNREFUSED"), providerCode("lane-unavailable")],
    ["a deadline", new TransportError("deadline", "deadline"), undefined],
    ["a request the client refused to send", new ClientInputError("bad name"), providerCode("internal")],
    ["a failed discovery", new DiscoveryError("no lane"), providerCode("lane-unavailable")],
    ["an availability answer refusing the operation", new FormUnavailableError("not for create"), providerCode("host-does-not-support-form")],
    ["an operation still running at the deadline", new OperationDeadlineError("op_1", "still running"), undefined],
    ["an accepted mutation with a malformed answer", new AcceptedError(new ProtocolInvalidError("bad", 200), "op_2"), providerCode("host-response-invalid")],
    ["an accepted mutation whose operation failed", new AcceptedError(stable, "op_3"), undefined],
    ["anything else (a provider bug)", new Error("boom"), providerCode("internal")],
  ] as const)("%s", (_, error, code) => {
    expect(hostCallDiagnostic("Failed", error).code).toBe(code);
  });
  it("a code the caller names wins", () => {
    expect(hostCallDiagnostic("Failed", stable, { code: providerCode("uid-mismatch") }).code).toBe(providerCode("uid-mismatch"));
  });
});
