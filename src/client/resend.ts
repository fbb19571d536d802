// Re-sending a recorded write intent after a crash. The bytes, headers and Idempotency-Key are the
// ones recorded; only the credential is added. The host replays its recorded answer when the
// first send committed, or executes the write when it never arrived, and the answer is finished
// exactly like the original call's.

import type { FormRef } from "../core/index.ts";
import { type CallOptions, type HostConnection, utf8, type WireCall } from "./connection.ts";
import { ClientInputError } from "./errors.ts";
import { exactQuery, resourcePath } from "./paths.ts";
import { checkName, checkRef, checkSpace, checkUid, label } from "./resource-reads.ts";
import type { ResourceExpectation } from "./resource-shape.ts";
import { type DeleteResult, finishDelete, finishResourceMutation, type IntentRequest, type ResourceResult, sendWrite } from "./resource-writes.ts";

export interface ResendExpectation {
  kind: "apply" | "delete" | "import";
  ref: FormRef;
  name: string;
  space: string;
  /** The uid the recorded request was fenced on (an update, a delete, a fenced import): the answer must name it. */
  uid?: string;
}

const METHOD = { apply: "PUT", delete: "DELETE", import: "POST" } as const;

/** The recorded request must be the write the expectation describes, to this lane, with a key. */
function checkIntent(conn: HostConnection, request: IntentRequest, expect: ResendExpectation): string {
  checkRef(expect.ref);
  checkSpace(expect.space);
  checkName(expect.name);
  if (expect.uid !== undefined) checkUid(expect.uid);
  if (request.method !== METHOD[expect.kind]) {
    throw new ClientInputError(`takoform: recorded ${expect.kind} intent uses method ${request.method}, not ${METHOD[expect.kind]}`);
  }
  const base = resourcePath(conn.apiPath, expect.ref, expect.name);
  const expectedPath = expect.kind === "apply" ? base : expect.kind === "import" ? `${base}/import` : `${base}${exactQuery(expect.space, expect.ref)}`;
  if (request.path !== expectedPath) {
    throw new ClientInputError(`takoform: recorded ${expect.kind} intent targets ${request.path}, not ${expectedPath}`);
  }
  let key: string | undefined;
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    if (lower === "authorization") throw new ClientInputError("takoform: a recorded intent must not carry credentials");
    if (lower === "idempotency-key") key = value;
    if (/[\r\n]/.test(name) || /[\r\n]/.test(value)) throw new ClientInputError("takoform: a recorded intent header contains a line break");
  }
  if (!key) throw new ClientInputError("takoform: a recorded intent has no Idempotency-Key; it cannot be re-sent safely");
  if ((expect.kind === "delete") !== (request.body === undefined)) {
    throw new ClientInputError(`takoform: a recorded ${expect.kind} intent ${expect.kind === "delete" ? "must not carry" : "must carry"} a body`);
  }
  return key;
}

export function resend(conn: HostConnection, request: IntentRequest, expect: ResendExpectation & { kind: "delete" }, opts?: CallOptions): Promise<DeleteResult>;
export function resend(
  conn: HostConnection,
  request: IntentRequest,
  expect: ResendExpectation & { kind: "apply" | "import" },
  opts?: CallOptions,
): Promise<ResourceResult>;
export function resend(conn: HostConnection, request: IntentRequest, expect: ResendExpectation, opts?: CallOptions): Promise<ResourceResult | DeleteResult>;
export async function resend(
  conn: HostConnection,
  request: IntentRequest,
  expect: ResendExpectation,
  opts: CallOptions = {},
): Promise<ResourceResult | DeleteResult> {
  checkIntent(conn, request, expect);
  const call: WireCall = {
    call: `${label(`resend ${expect.kind}`, expect.ref, expect.space, expect.name)}`,
    method: request.method,
    path: request.path,
    headers: { ...request.headers },
  };
  if (request.body !== undefined) call.body = utf8(request.body);
  const response = await sendWrite(conn, call, opts);
  if (expect.kind === "delete") return finishDelete(conn, call, response, opts, expect.uid);
  const verify: ResourceExpectation = { ref: expect.ref, name: expect.name, space: expect.space };
  if (expect.uid !== undefined) verify.uid = expect.uid;
  return finishResourceMutation(conn, call, response, verify, opts);
}
