// Host support profiles (reference provider §7.4 and §12; host API §2.4). Profiles are free-form
// documents beyond their identity; the client checks the identity and leaves the contents to the
// provider, which reads only what the host published.

import { SUPPORT_API_VERSION, type FormRef, type WireSupportProfile } from "../core/index.ts";
import type { JsonValue } from "../forms/index.ts";
import { type CallOptions, expectStatus, type HostConnection, type WireCall } from "./connection.ts";
import { ClientInputError } from "./errors.ts";
import { formSupportPath, segments } from "./paths.ts";
import { checkRef } from "./resource-reads.ts";
import { child, isJsonObject, type JsonObject, type WireReader } from "./wire-reader.ts";

const KINDS = ["FormSupport", "InterfaceSupport", "BindingSupport"] as const;
type ProfileKind = (typeof KINDS)[number];

function readProfile(r: WireReader, value: JsonValue | undefined, pointer: string, kind?: ProfileKind): WireSupportProfile {
  const profile = r.freeObject(value, pointer);
  if (profile["apiVersion"] !== SUPPORT_API_VERSION) r.fail(child(pointer, "apiVersion"), `is not a ${SUPPORT_API_VERSION} profile`);
  const got = r.oneOf(profile["kind"], child(pointer, "kind"), KINDS);
  if (kind !== undefined && got !== kind) r.fail(child(pointer, "kind"), `is a ${got}, not a ${kind}`);
  return profile as unknown as WireSupportProfile;
}

/** `GET {api}/support/forms`. */
export async function listFormSupport(conn: HostConnection, opts: CallOptions = {}): Promise<WireSupportProfile[]> {
  const call: WireCall = { call: "list form support", method: "GET", path: `${conn.apiPath}/support/forms` };
  const response = await conn.send(call, opts);
  expectStatus(call, response, [200]);
  const r = conn.reader(call, response.status);
  const doc = r.object(r.json(response.body), "", ["profiles"]);
  return r.array(doc["profiles"], "/profiles").map((p, i) => readProfile(r, p, child("/profiles", i)));
}

/**
 * `GET {api}/support/forms/{G}/{V}/{Kind}/{definitionVersion}`. A profile naming a formRef must
 * name the requested line and definition version, and its schemaDigest (when given) the requested one.
 */
export async function getFormSupport(conn: HostConnection, ref: FormRef, opts: CallOptions = {}): Promise<WireSupportProfile> {
  checkRef(ref);
  const call: WireCall = {
    call: `form support ${ref.apiVersion} ${ref.kind}@${ref.definitionVersion}`,
    method: "GET",
    path: formSupportPath(conn.apiPath, ref),
  };
  const response = await conn.send(call, opts);
  expectStatus(call, response, [200]);
  const r = conn.reader(call, response.status);
  const profile = readProfile(r, r.json(response.body), "", "FormSupport");
  const named = (profile as unknown as JsonObject)["formRef"];
  if (named !== undefined) {
    if (!isJsonObject(named)) return r.fail("/formRef", "carries a non-object formRef");
    if (named["apiVersion"] !== ref.apiVersion || named["kind"] !== ref.kind || named["definitionVersion"] !== ref.definitionVersion) {
      r.refuse("host support profile names a different FormRef line");
    }
    if (named["schemaDigest"] !== undefined && named["schemaDigest"] !== ref.schemaDigest) {
      r.refuse("host support profile names a different exact Form schemaDigest");
    }
  }
  return profile;
}

async function getContractSupport(
  conn: HostConnection,
  what: "interfaces" | "bindings",
  name: string,
  version: string,
  opts: CallOptions,
): Promise<WireSupportProfile> {
  if (typeof name !== "string" || typeof version !== "string" || name === "" || version === "") {
    throw new ClientInputError(`takoform: ${what} support needs a name and a version`);
  }
  const kind: ProfileKind = what === "interfaces" ? "InterfaceSupport" : "BindingSupport";
  const refKey = what === "interfaces" ? "interfaceRef" : "bindingRef";
  const call: WireCall = {
    call: `${what === "interfaces" ? "interface" : "binding"} support ${name}@${version}`,
    method: "GET",
    path: `${conn.apiPath}/support/${what}/${segments(name, version)}`,
  };
  const response = await conn.send(call, opts);
  expectStatus(call, response, [200]);
  const r = conn.reader(call, response.status);
  const profile = readProfile(r, r.json(response.body), "", kind);
  const named = (profile as unknown as JsonObject)[refKey];
  if (!isJsonObject(named) || named["name"] !== name || named["version"] !== version) {
    r.refuse(`host support profile ${refKey} does not name ${name}@${version}`);
  }
  return profile;
}

/** `GET {api}/support/interfaces/{name}/{version}`. */
export function getInterfaceSupport(conn: HostConnection, name: string, version: string, opts: CallOptions = {}): Promise<WireSupportProfile> {
  return getContractSupport(conn, "interfaces", name, version, opts);
}

/** `GET {api}/support/bindings/{name}/{version}`. */
export function getBindingSupport(conn: HostConnection, name: string, version: string, opts: CallOptions = {}): Promise<WireSupportProfile> {
  return getContractSupport(conn, "bindings", name, version, opts);
}
