// Fuzzing the response decoders: random byte mutations of valid answers must end in a typed
// client error, or — when the mutation still yields an acceptable document — in exactly the value
// the strict parser reads from those bytes. Never a crash, never a different value.

import { describe, expect, it } from "vitest";
import { parseEndpoint, validateDiscovery } from "../../src/client/discovery.ts";
import { LANE } from "./fixtures/lane.ts";
import { HostApiError, ProtocolInvalidError, TakoformClientError } from "../../src/client/errors.ts";
import { decodeErrorResponse, verifyOperation } from "../../src/client/operation-shape.ts";
import { verifyAvailability, verifyPrepareResponse, verifyResourceResponse } from "../../src/client/resource-shape.ts";
import { WireReader } from "../../src/client/wire-reader.ts";
import { parseStrictJson } from "../../src/forms/strict-json.ts";
import { digestCanonical, type JsonValue } from "../../src/forms/digest.ts";
import { availabilityDoc, NAME, operationDoc, REF, resourceDoc, SPACE } from "./fixtures/documents.ts";
import { discoveryDocument, envelope } from "./fixtures/hostile-host.ts";

/** Small deterministic PRNG (mulberry32) so a failure is reproducible from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const INTERESTING = [0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x3a, 0x2c, 0x30, 0x31, 0x2d, 0x65, 0x20, 0x00, 0x80, 0xc3, 0xed, 0xff, 0x75];

function mutate(bytes: Uint8Array, random: () => number): Uint8Array {
  const out = Array.from(bytes);
  const edits = 1 + Math.floor(random() * 3);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(random() * (out.length + 1));
    const byte = random() < 0.6 ? INTERESTING[Math.floor(random() * INTERESTING.length)]! : Math.floor(random() * 256);
    switch (Math.floor(random() * 5)) {
      case 0:
        out[Math.min(at, out.length - 1)] = byte;
        break;
      case 1:
        out.splice(at, 0, byte);
        break;
      case 2:
        out.splice(at, 1 + Math.floor(random() * 4));
        break;
      case 3: {
        // Duplicate a slice (tends to produce duplicate members and trailing data).
        const len = 1 + Math.floor(random() * 24);
        out.splice(at, 0, ...out.slice(at, at + len));
        break;
      }
      default:
        out[Math.min(at, out.length - 1)] = (out[Math.min(at, out.length - 1)] ?? 0) ^ (1 << Math.floor(random() * 8));
    }
  }
  return Uint8Array.from(out);
}

function strictOrUndefined(bytes: Uint8Array): JsonValue | undefined {
  try {
    return parseStrictJson(bytes);
  } catch {
    return undefined;
  }
}

const utf8 = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
const ITERATIONS = 1500;

interface Target {
  name: string;
  valid: Uint8Array;
  decode: (bytes: Uint8Array) => unknown;
  /** Extra invariants an accepted value must satisfy. */
  check?: (value: unknown) => void;
}

const expectation = { ref: REF, name: NAME, space: SPACE };
const preparedSpec = { deliveryDelaySeconds: 0, maxRetries: 3 };

const targets: Target[] = [
  {
    name: "resource representation",
    valid: utf8(resourceDoc()),
    decode: (b) => {
      const r = new WireReader("fuzz", 200);
      return verifyResourceResponse(r, r.json(b), "", expectation);
    },
    check: (v) => {
      const res = v as { metadata: { name: string; space: string }; form: { formRef: unknown } };
      expect(res.metadata.name).toBe(NAME);
      expect(res.metadata.space).toBe(SPACE);
      expect(res.form.formRef).toEqual(REF);
    },
  },
  {
    name: "operation",
    valid: utf8(operationDoc("op_1", { done: true, target: { uid: "uid-1" }, result: { resource: resourceDoc() } })),
    decode: (b) => {
      const r = new WireReader("fuzz", 200);
      return verifyOperation(r, r.json(b), "");
    },
    check: (v) => {
      const op = v as { done: boolean; result?: unknown; error?: unknown };
      expect(op.done ? (op.result === undefined) !== (op.error === undefined) : op.result === undefined && op.error === undefined).toBe(true);
    },
  },
  {
    name: "availability",
    valid: utf8(availabilityDoc()),
    decode: (b) => {
      const r = new WireReader("fuzz", 200);
      return { forms: [verifyAvailability(r, r.json(b), REF)] };
    },
  },
  {
    name: "prepare answer",
    valid: utf8({
      resource: { apiVersion: REF.apiVersion, kind: REF.kind, form: { formRef: REF }, metadata: { name: NAME, space: SPACE }, spec: preparedSpec },
      review: { prepareDigest: `sha256:${"b".repeat(64)}`, specDigest: digestCanonical(preparedSpec) },
    }),
    decode: (b) => {
      const r = new WireReader("fuzz", 200);
      const prepared = verifyPrepareResponse(r, r.json(b), expectation);
      return { resource: prepared.resource, review: prepared.review };
    },
    check: (v) => {
      const p = v as { resource: { spec: JsonValue }; review: { specDigest: string } };
      expect(p.review.specDigest).toBe(digestCanonical(p.resource.spec));
    },
  },
  {
    name: "discovery",
    valid: utf8(discoveryDocument("https://host.example")),
    decode: (b) => {
      const doc = new WireReader("fuzz", 200).json(b);
      validateDiscovery(doc, parseEndpoint("https://host.example"), LANE);
      return doc;
    },
  },
];

describe("response decoder fuzzing", () => {
  for (const [index, target] of targets.entries()) {
    it(`${target.name}: ${ITERATIONS} mutations end in a typed refusal or the strictly parsed value`, () => {
      const random = prng(0x5eed + index);
      let accepted = 0;
      for (let i = 0; i < ITERATIONS; i++) {
        const bytes = mutate(target.valid, random);
        let value: unknown;
        try {
          value = target.decode(bytes);
        } catch (err) {
          if (!(err instanceof TakoformClientError)) {
            throw new Error(`iteration ${i}: untyped failure ${String(err)} for ${Buffer.from(bytes).toString("latin1")}`);
          }
          continue;
        }
        accepted++;
        const strict = strictOrUndefined(bytes);
        expect(strict, `iteration ${i} accepted bytes the strict parser refuses`).toBeDefined();
        expect(value).toEqual(strict);
        target.check?.(value);
      }
      // The valid document itself is accepted, so the harness is not refusing everything.
      expect(target.decode(target.valid)).toBeDefined();
      expect(accepted).toBeLessThan(ITERATIONS);
    });
  }

  it(`error envelopes: ${ITERATIONS} mutations always yield HostApiError (agreeing with the bytes) or ProtocolInvalidError`, () => {
    const random = prng(0xe44);
    const valid = utf8(envelope("resource_busy", "busy", { retryable: true, hostCode: "H", details: { n: 1 } }));
    let typed = 0;
    for (let i = 0; i < ITERATIONS; i++) {
      const bytes = mutate(valid, random);
      const err = decodeErrorResponse("fuzz", 409, bytes, undefined, (s) => s);
      if (err instanceof HostApiError) {
        typed++;
        const doc = strictOrUndefined(bytes) as { error: Record<string, JsonValue> } | undefined;
        expect(doc).toBeDefined();
        expect(err.code).toBe(doc!.error["code"]);
        expect(err.status).toBe(409);
        expect(err.hostMessage).toBe(doc!.error["message"]);
        expect(err.retryable).toBe(doc!.error["retryable"]);
      } else {
        expect(err).toBeInstanceOf(ProtocolInvalidError);
      }
    }
    expect(typed).toBeLessThan(ITERATIONS);
  });
});
