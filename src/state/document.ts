// A whole state as one document (`state pull` writes it, `state push` and `state migrate` read
// it): checked member by member before any store is touched, and turned into the rows both
// stores write in one transaction (`StateStore.replaceState`). The checks are the ones every
// single write makes — settled records hold known JSON only, an intent exists exactly while a
// write is in flight, credentials never reach state, sensitive outputs are sealed, one record
// per host object — so a document cannot put into a state what the writes could not.

import type { KnownValue, WriteIntent } from "../core/index.ts";
import { StateWriteError } from "./errors.ts";
import { assertKnownJson, checkInput, deriveColumns, intentColumns, outputRows, parseStateAddress, withoutCredentials, type OutputRow } from "./records.ts";
import { settledRow, toRow, type HostBindingRow, type ResourceRow } from "./row.ts";
import { IN_FLIGHT_STATUSES, SETTLED_STATUSES, type RecordedIntent, type SettledStatus, type StateDocument } from "./types.ts";

/** What `replaceState` writes: every row of one state. */
export interface PreparedDocument {
  lineage: string;
  serial: number;
  binding: HostBindingRow | null;
  resources: ResourceRow[];
  outputs: OutputRow[];
}

/** A document that is not a state this build can write, with where in it and why. */
export class StateDocumentError extends StateWriteError {
  override name = "StateDocumentError";
  constructor(
    /** A JSON pointer into the document. */
    readonly pointer: string,
    detail: string,
  ) {
    super(`the state document at ${pointer || "/"}`, detail);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === "string" && value !== "";
const pointer = (...parts: (string | number)[]): string => parts.map((p) => `/${String(p).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");

function need(condition: boolean, at: string, detail: string): asserts condition {
  if (!condition) throw new StateDocumentError(at, detail);
}

/** Checks `value` as a state document (the `state pull` format, version 1) and returns it typed. */
export function checkStateDocument(value: unknown): StateDocument {
  need(isObject(value), "", "a state document is a JSON object (the output of `takoform state pull`)");
  need(value["version"] === 1, pointer("version"), "only version 1 documents are understood");
  need(isText(value["lineage"]), pointer("lineage"), "the lineage must be a non-empty string");
  const serial = value["serial"];
  need(typeof serial === "number" && Number.isSafeInteger(serial) && serial >= 0, pointer("serial"), "the serial must be a non-negative integer");
  need(value["host"] === null || isObject(value["host"]), pointer("host"), "host is null or the host binding object");
  need(Array.isArray(value["resources"]), pointer("resources"), "resources must be a list of records");
  need(isObject(value["outputs"]), pointer("outputs"), "outputs must be an object of {value, sensitive}");
  return value as unknown as StateDocument;
}

function checkWrite(write: unknown, at: string): WriteIntent {
  need(isObject(write), at, "an intent's write must be an object");
  need(
    write["operation"] === "create" || write["operation"] === "update" || write["operation"] === "delete",
    `${at}/operation`,
    "operation must be create, update or delete",
  );
  for (const key of ["type", "idempotencyKey"]) need(isText(write[key]), `${at}/${key}`, `${key} must be a non-empty string`);
  for (const key of ["space", "name", "uid"]) need(typeof write[key] === "string", `${at}/${key}`, `${key} must be a string`);
  const ref = write["ref"];
  need(
    isObject(ref) && ["apiVersion", "kind", "definitionVersion", "schemaDigest"].every((k) => isText(ref[k])),
    `${at}/ref`,
    "ref must be the exact FormRef (apiVersion, kind, definitionVersion, schemaDigest)",
  );
  const request = write["request"];
  need(
    isObject(request) && isText(request["method"]) && isText(request["path"]) && isObject(request["headers"]),
    `${at}/request`,
    "request must hold method, path and headers",
  );
  for (const [name, header] of Object.entries(request["headers"] as Record<string, unknown>))
    need(typeof header === "string", `${at}/request/headers/${name}`, "a header value must be a string");
  assertKnownJson(at, write);
  return withoutCredentials(write as unknown as WriteIntent);
}

function checkIntent(intent: unknown, at: string): RecordedIntent {
  need(isObject(intent), at, "an in-flight record's intent must be an object");
  need(isText(intent["stepId"]), `${at}/stepId`, "stepId must be a non-empty string");
  need(isText(intent["at"]) && !Number.isNaN(Date.parse(intent["at"] as string)), `${at}/at`, "at must be an ISO-8601 time");
  const previous = intent["previousStatus"];
  need(
    previous === null || (SETTLED_STATUSES as readonly unknown[]).includes(previous),
    `${at}/previousStatus`,
    `previousStatus must be null or one of ${SETTLED_STATUSES.join(", ")}`,
  );
  return {
    stepId: intent["stepId"] as string,
    at: intent["at"] as string,
    write: checkWrite(intent["write"], `${at}/write`),
    previousStatus: previous as SettledStatus | null,
  };
}

function bindingRow(host: Record<string, unknown>): HostBindingRow {
  const at = pointer("host");
  need(isText(host["origin"]) && isText(host["space"]), at, "a host binding needs an origin and a space");
  for (const key of ["hostId", "tenant", "credential"]) need(host[key] === null || typeof host[key] === "string", `${at}/${key}`, `${key} is null or a string`);
  // A document pulled before bindings recorded a lane has none: that state was written under the first lane (null).
  need(host["lane"] === undefined || host["lane"] === null || typeof host["lane"] === "string", `${at}/lane`, "lane is null or a string");
  need(isText(host["boundAt"]), `${at}/boundAt`, "boundAt must be an ISO-8601 time");
  return {
    origin: host["origin"] as string,
    host_id: host["hostId"] as string | null,
    space: host["space"] as string,
    tenant: host["tenant"] as string | null,
    credential: host["credential"] as string | null,
    bound_at: host["boundAt"] as string,
    lane: (host["lane"] as string | null | undefined) ?? null,
  };
}

/**
 * Checks a document and turns it into the rows of one state. Record identity columns are derived
 * again from each record's attributes (or, for a create in flight, from its write), never taken
 * from the document, so they cannot disagree with what they index.
 */
export function prepareDocument(input: unknown): PreparedDocument {
  const document = checkStateDocument(input);
  const resources: ResourceRow[] = [];
  const seen = new Set<string>();
  (document.resources as unknown[]).forEach((raw, i) => {
    const at = pointer("resources", i);
    need(isObject(raw), at, "a record must be an object");
    const address = raw["address"];
    need(isText(address), `${at}/address`, "address must be a non-empty string");
    need(!seen.has(address), `${at}/address`, `${address} appears twice`);
    seen.add(address);
    const serial = raw["serial"];
    need(
      typeof serial === "number" && Number.isSafeInteger(serial) && serial >= 0 && serial <= document.serial,
      `${at}/serial`,
      "a record's serial is a non-negative integer no higher than the document's",
    );
    const status = raw["status"];
    const attributes = raw["attributes"];
    need(isObject(attributes), `${at}/attributes`, "attributes must be an object");
    if ((SETTLED_STATUSES as readonly unknown[]).includes(status)) {
      need(raw["intent"] === null || raw["intent"] === undefined, `${at}/intent`, `a ${String(status)} record carries no intent`);
      const input = {
        type: raw["type"] as string,
        status: status as SettledStatus,
        attributes: attributes as Record<string, KnownValue>,
        dependencies: (raw["dependencies"] ?? []) as string[],
        contributions: (raw["contributions"] ?? []) as { from: string; fields: string[] }[],
      };
      need(Array.isArray(input.dependencies) && Array.isArray(input.contributions), at, "dependencies and contributions must be lists");
      const checked = checkInput(address, input);
      resources.push(settledRow(address, input, checked, serial));
      return;
    }
    need(
      (IN_FLIGHT_STATUSES as readonly unknown[]).includes(status),
      `${at}/status`,
      `status must be one of ${[...SETTLED_STATUSES, ...IN_FLIGHT_STATUSES].join(", ")}`,
    );
    need(isText(raw["type"]), `${at}/type`, "type must be a non-empty string");
    const intent = checkIntent(raw["intent"], `${at}/intent`);
    assertKnownJson(address, attributes);
    const dependencies = (raw["dependencies"] ?? []) as string[];
    const contributions = (raw["contributions"] ?? []) as { from: string; fields: string[] }[];
    need(Array.isArray(dependencies) && Array.isArray(contributions), at, "dependencies and contributions must be lists");
    // A record a create started has no attributes yet: its identity is what the write names.
    const columns =
      intent.previousStatus === null && Object.keys(attributes).length === 0
        ? intentColumns(intent.write)
        : deriveColumns(attributes as Record<string, KnownValue>);
    const checked = checkInput(address, {
      type: raw["type"] as string,
      status: "ready",
      attributes: attributes as Record<string, KnownValue>,
      dependencies,
      contributions,
    });
    resources.push(
      toRow(
        address,
        raw["type"] as string,
        status as (typeof IN_FLIGHT_STATUSES)[number],
        checked.attributesJson,
        columns,
        checked.dependencies,
        checked.contributions,
        intent,
        serial,
      ),
    );
  });
  checkOneRecordPerObject(resources);
  const outputs = document.outputs as Record<string, unknown>;
  for (const [name, output] of Object.entries(outputs)) {
    need(isObject(output) && typeof output["sensitive"] === "boolean" && "value" in output, pointer("outputs", name), "an output is {value, sensitive}");
  }
  return {
    lineage: document.lineage,
    serial: document.serial,
    binding: document.host === null ? null : bindingRow(document.host as unknown as Record<string, unknown>),
    resources: resources.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0)),
    outputs: outputRows(outputs as Record<string, { value: KnownValue; sensitive: boolean }>),
  };
}

/** The one-record-per-host-object rule of the writes, over a whole document at once. */
function checkOneRecordPerObject(rows: readonly ResourceRow[]): void {
  const byUid = new Map<string, string>();
  const byObject = new Map<string, string>();
  const claim = (index: Map<string, string>, key: string, address: string, by: string): void => {
    const holder = index.get(key);
    if (holder !== undefined && parseStateAddress(holder).address !== parseStateAddress(address).address) {
      throw new StateDocumentError(
        pointer("resources"),
        `${address} and ${holder} both record the host object with ${by} ${key}; one host object has one record`,
      );
    }
    if (holder === undefined) index.set(key, address);
  };
  for (const row of rows) {
    if (row.uid !== null) claim(byUid, row.uid, row.address, "uid");
    if (row.name !== null && row.space !== null && row.form_api_version !== null && row.form_kind !== null) {
      claim(byObject, `${row.space}/${row.form_api_version}/${row.form_kind}/${row.name}`, row.address, "address");
    }
  }
}
