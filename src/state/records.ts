// Pure helpers over record contents: deriving the identity columns from the provider's envelope
// attributes, proving an attribute document holds known JSON only, and keeping credentials out
// of a stored write intent.

import { type KnownValue, Unknown, type WriteIntent } from "../core/index.ts";
import { StateWriteError } from "./errors.ts";
import { isSealedSensitive } from "../secrets/index.ts";
import { IN_FLIGHT_STATUSES, SETTLED_STATUSES, type ContributionEdge, type InFlightStatus, type ResourceInput, type ResourceRecord } from "./types.ts";

/**
 * Envelope attribute names every Takoform resource carries (takoform-provider §0.3). The store
 * copies them into columns; their meaning stays the provider's.
 */
export const ENVELOPE = {
  name: "name",
  space: "space",
  uid: "uid",
  generation: "generation",
  revision: "revision",
  conditions: "conditions",
  outputsJson: "outputs_json",
  formApiVersion: "form_api_version",
  formKind: "form_kind",
  formDefinitionVersion: "form_definition_version",
  formSchemaDigest: "form_schema_digest",
  formPackageDigest: "form_package_digest",
  pendingOperationId: "pending_operation_id",
  relationDriftReason: "relation_drift_reason",
} as const;

/** The columns of a record the store derives from its attribute document. */
export type DerivedColumns = Pick<
  ResourceRecord,
  "ref" | "packageDigest" | "space" | "name" | "uid" | "generation" | "revision" | "pendingOperationId" | "relationDriftReason" | "outputs" | "conditions"
>;

/** Reads the identity columns out of an attribute document. Absent or null members become null. */
export function deriveColumns(attributes: Record<string, KnownValue>): DerivedColumns {
  const apiVersion = text(attributes[ENVELOPE.formApiVersion]);
  const kind = text(attributes[ENVELOPE.formKind]);
  const definitionVersion = text(attributes[ENVELOPE.formDefinitionVersion]);
  const schemaDigest = text(attributes[ENVELOPE.formSchemaDigest]);
  // A ref is recorded only whole: half a FormRef identifies nothing and must not be dispatched on.
  const ref = apiVersion && kind && definitionVersion && schemaDigest ? { apiVersion, kind, definitionVersion, schemaDigest } : null;
  return {
    ref,
    packageDigest: text(attributes[ENVELOPE.formPackageDigest]),
    space: text(attributes[ENVELOPE.space]),
    name: text(attributes[ENVELOPE.name]),
    uid: text(attributes[ENVELOPE.uid]),
    generation: text(attributes[ENVELOPE.generation]),
    revision: text(attributes[ENVELOPE.revision]),
    pendingOperationId: text(attributes[ENVELOPE.pendingOperationId]),
    relationDriftReason: text(attributes[ENVELOPE.relationDriftReason]),
    outputs: decodeOutputs(attributes[ENVELOPE.outputsJson]),
    conditions: conditionsOf(attributes),
  };
}

export function conditionsOf(attributes: Record<string, KnownValue>): KnownValue[] {
  const conditions = attributes[ENVELOPE.conditions];
  return Array.isArray(conditions) ? conditions : [];
}

function text(value: KnownValue | undefined): string | null {
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  return null;
}

export function decodeOutputs(value: KnownValue | undefined): Record<string, KnownValue> {
  if (typeof value !== "string" || value === "") return {};
  try {
    const parsed: unknown = JSON.parse(value);
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, KnownValue>) : {};
  } catch {
    // outputs_json is the provider's canonical text; a malformed one carries no outputs to index.
    return {};
  }
}

/**
 * Proves that `value` is plain JSON with nothing unknown in it. State stores known values only;
 * an unknown reaching a write is an engine bug, reported with the attribute path.
 */
export function assertKnownJson(address: string, value: unknown, path = ""): void {
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new StateWriteError(address, `attribute ${path || "(root)"} is ${value}, which JSON cannot hold`);
    return;
  }
  if (value instanceof Unknown) {
    throw new StateWriteError(address, `attribute ${path || "(root)"} is unknown; only known values are stored (apply must resolve it first)`);
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) assertKnownJson(address, value[i], `${path}[${i}]`);
    return;
  }
  if (typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    for (const key of Object.keys(value)) {
      assertKnownJson(address, (value as Record<string, unknown>)[key], path ? `${path}.${key}` : key);
    }
    return;
  }
  throw new StateWriteError(address, `attribute ${path || "(root)"} is a ${typeof value} that is not JSON`);
}

const CREDENTIAL_HEADERS = new Set(["authorization", "proxy-authorization", "cookie"]);

/**
 * The intent as it may be stored: credential headers removed. The provider already leaves them
 * out; this is the store's own guarantee that a bearer token never reaches the state file. A
 * resume re-adds credentials from the client's configuration.
 */
export function withoutCredentials(write: WriteIntent): WriteIntent {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(write.request.headers)) {
    if (!CREDENTIAL_HEADERS.has(name.toLowerCase())) headers[name] = value;
  }
  return { ...write, request: { ...write.request, headers } };
}

const DEPOSED_MARK = "#deposed:";

/**
 * The address under which a replaced object is kept while its successor exists at `address`
 * (create-before-destroy, RFC 0011 rule 7): one record per address, so the old incarnation
 * gets an address of its own until its delete settles. It sorts right after its successor.
 */
export function deposedAddress(address: string, key: string): string {
  return `${address}${DEPOSED_MARK}${key}`;
}

/** Splits an address into the configuration address and, for a deposed object, its key. */
export function parseStateAddress(address: string): { address: string; deposed: string | null } {
  const at = address.indexOf(DEPOSED_MARK);
  return at < 0 ? { address, deposed: null } : { address: address.slice(0, at), deposed: address.slice(at + DEPOSED_MARK.length) };
}

/** A settled record's input, validated and serialized once, before any transaction opens. */
export interface CheckedInput {
  attributesJson: string;
  dependencies: string[];
  contributions: ContributionEdge[];
}

/** Validates a settled record before any transaction opens (serialization is the costly part). */
export function checkInput(address: string, input: ResourceInput): CheckedInput {
  if (!(SETTLED_STATUSES as readonly string[]).includes(input.status)) {
    throw new StateWriteError(
      address,
      `status "${input.status}" is not a settled status (${SETTLED_STATUSES.join(", ")}); in-flight statuses are set with setIntent`,
    );
  }
  if (typeof input.type !== "string" || input.type === "") throw new StateWriteError(address, "the record has no resource type");
  if (input.attributes === null || typeof input.attributes !== "object" || Array.isArray(input.attributes)) {
    throw new StateWriteError(address, "attributes must be an object");
  }
  assertKnownJson(address, input.attributes);
  const dependencies = [...new Set(input.dependencies ?? [])].sort();
  for (const dependency of dependencies) {
    if (typeof dependency !== "string" || dependency === "") throw new StateWriteError(address, "a dependency is not an address");
  }
  const contributions = (input.contributions ?? [])
    .map((edge) => {
      if (edge === null || typeof edge !== "object" || typeof edge.from !== "string" || edge.from === "" || !Array.isArray(edge.fields)) {
        throw new StateWriteError(address, "a contribution edge needs a `from` address and a list of fields");
      }
      return { from: edge.from, fields: [...new Set(edge.fields)].sort() };
    })
    .sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  return { attributesJson: JSON.stringify(input.attributes), dependencies, contributions };
}

/** Refuses a status `setIntent` may not record. */
export function checkInFlightStatus(address: string, status: InFlightStatus): void {
  if (!(IN_FLIGHT_STATUSES as readonly string[]).includes(status)) {
    throw new StateWriteError(address, `"${status}" is not an in-flight status (${IN_FLIGHT_STATUSES.join(", ")})`);
  }
}

/** One stack output as stored: JSON text, and whether it is sensitive. */
export interface OutputRow {
  name: string;
  value: string;
  sensitive: boolean;
}

/**
 * The stack outputs as rows, in name order. Sealing is the caller's (the engine seals a sensitive
 * output before it hands it over; the stores keep what they are given as opaque data), so a
 * sensitive value that is not a seal is refused: it would put a secret into state in the clear.
 */
export function outputRows(outputs: Record<string, { value: KnownValue; sensitive: boolean }>): OutputRow[] {
  const rows: OutputRow[] = [];
  for (const name of Object.keys(outputs).sort()) {
    const { value, sensitive } = outputs[name]!;
    assertKnownJson(`output.${name}`, value);
    if (sensitive === true && value !== null && !isSealedSensitive(value)) {
      throw new StateWriteError(
        `output.${name}`,
        "the output is sensitive and its value is not sealed; seal it with sealSensitive(value, lineage) before storing it",
      );
    }
    rows.push({ name, value: JSON.stringify(value), sensitive: sensitive === true });
  }
  return rows;
}

/**
 * The identity columns of a record that a create intent starts (no attributes yet): what the
 * write names. Both `setIntent` and a replaced document's in-flight create use it.
 */
export function intentColumns(write: WriteIntent): DerivedColumns {
  return {
    ...deriveColumns({}),
    ref: write.ref,
    space: write.space || null,
    name: write.name || null,
    uid: write.uid || null,
  };
}
