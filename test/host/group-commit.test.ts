// Group commit in the host's database (src/host/store/group-commit.ts): the requests answered in
// one turn of the loop share one SQLite transaction, and sharing changes nothing a request can
// see — none is answered before the commit holding what it reports is in the WAL, a refused one
// is refused alone, a read of a write not yet committed waits for it, and all of it survives a
// restart. The requests go through the host's own entry point (LocalHost.handle, which the HTTP
// server and the in-process transport both call) so that several land in one turn for certain;
// the transactions are counted in the WAL, whose commit frames are the only ones with a database
// size set.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, expect, it } from "vitest";
import type { HostRequest, HostResponse } from "../../src/host/index.ts";
import { BUNDLED } from "./family.ts";
import { key, serve, TOKENS, type Served } from "./harness.ts";
import { Wire } from "./wire.ts";
import { walCommits } from "../support/wal-commits.ts";

const root = mkdtempSync(join(tmpdir(), "takoform-host-group-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let data: string;
let served: Served;
let wire: Wire;
beforeEach(async () => {
  data = mkdtempSync(join(root, "data-"));
  served = await serve({ ...BUNDLED.options, data });
  wire = await Wire.connect(served.client, BUNDLED);
});
afterEach(async () => {
  await served.close();
});

/** Transactions committed to host.db's WAL since it was last reset. */
const commits = (): number => walCommits(join(data, "host.db-wal"));

const KV = () => wire.ref("EdgeKVNamespace");

function request(method: string, url: string, headers: Record<string, string> = {}, body?: unknown): HostRequest {
  return {
    method,
    url,
    headers: { Authorization: `Bearer ${TOKENS.primary}`, "Content-Type": "application/json", ...headers },
    body: body === undefined ? new Uint8Array() : new TextEncoder().encode(JSON.stringify(body)),
  };
}

/** A create of KV namespace `name`, reviewed (prepared) beforehand. */
async function createRequest(name: string): Promise<HostRequest> {
  const prepareDigest = await wire.digest(KV(), name, {});
  const body = { ...wire.body(KV(), name, {}), review: { prepareDigest } };
  return request("PUT", wire.path(KV(), name), { "If-None-Match": "*", "Idempotency-Key": key() }, body);
}

const json = (response: HostResponse): any => JSON.parse(new TextDecoder().decode(response.body));

/** Sends every request in this one turn; each answer comes with the WAL's commit count when it arrived. */
function sendAtOnce(requests: HostRequest[]): Promise<{ response: HostResponse; commitsSeen: number }[]> {
  return Promise.all(requests.map((r) => served.host.handle(r).then((response) => ({ response, commitsSeen: commits() }))));
}

it("creates answered in one turn commit in one transaction, and none is answered before it is in the WAL", async () => {
  const names = Array.from({ length: 8 }, (_, i) => `group-${i}`);
  const requests = await Promise.all(names.map(createRequest));
  const before = commits();
  const answers = await sendAtOnce(requests);
  expect(answers.map((a) => a.response.status)).toEqual(names.map(() => 201));
  // A transaction per request would have made eight.
  expect(commits()).toBe(before + 1);
  for (const a of answers) expect(a.commitsSeen).toBe(before + 1);
  // Each has a uid of its own, and reads back as created.
  const uids = answers.map((a) => json(a.response).metadata.uid);
  expect(new Set(uids).size).toBe(names.length);
  for (const [i, name] of names.entries()) expect((await wire.read(KV(), name)).json.metadata.uid).toBe(uids[i]);
});

it("a request refused in the batch is refused alone: the others commit, it writes nothing", async () => {
  await wire.created(KV(), "taken", {});
  const requests = [await createRequest("first"), await createRequest("taken-again"), await createRequest("last")];
  // A create (If-None-Match: *) of a name that exists is refused inside its transaction, after
  // its replay lookup.
  const prepareDigest = await wire.digest(KV(), "taken", {}, { generation: "1" });
  const clash = request(
    "PUT",
    wire.path(KV(), "taken"),
    { "If-None-Match": "*", "Idempotency-Key": key() },
    {
      ...wire.body(KV(), "taken", {}),
      review: { prepareDigest },
    },
  );
  const before = commits();
  const answers = await sendAtOnce([requests[0]!, clash, requests[1]!, requests[2]!]);
  expect(answers.map((a) => a.response.status)).toEqual([201, 412, 201, 201]);
  expect(json(answers[1]!.response).error.code).toBe("generation_conflict");
  expect(commits()).toBe(before + 1);
  expect((await wire.read(KV(), "taken")).json.metadata.generation).toBe("1");
  for (const name of ["first", "taken-again", "last"]) expect((await wire.read(KV(), name)).status).toBe(200);
});

it("a read answered while the batch holding what it reads is open waits for that commit", async () => {
  const create = await createRequest("read-me");
  const read = request("GET", `${wire.path(KV(), "read-me")}?${wire.query(KV())}`);
  const before = commits();
  const [created, readBack] = await sendAtOnce([create, read]);
  expect(created!.response.status).toBe(201);
  expect(readBack!.response.status).toBe(200);
  expect(json(readBack!.response).metadata.uid).toBe(json(created!.response).metadata.uid);
  expect(readBack!.commitsSeen).toBe(before + 1);
});

it("what a batch answered survives the host closing at once and opening again", async () => {
  const requests = await Promise.all(["kept-0", "kept-1", "kept-2"].map(createRequest));
  const answers = await sendAtOnce(requests);
  await served.close();
  served = await serve({ ...BUNDLED.options, data });
  wire = await Wire.connect(served.client, BUNDLED);
  for (const [i, name] of ["kept-0", "kept-1", "kept-2"].entries()) {
    expect((await wire.read(KV(), name)).json.metadata.uid).toBe(json(answers[i]!.response).metadata.uid);
  }
});
