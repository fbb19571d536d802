// A load request exactly as upstream's runtime-abi-v1 runner sends it (internal/runtimeconformance,
// `runLoad` and `loadRequestFor`): Go's json.Marshal of its LoadRequest struct — members in
// declaration order (protocol, mainModule, declaredHandlers, modules[{name, mediaType,
// contentBase64}]), no whitespace, Go's escaping, content in standard padded base64 — POSTed to
// the loader endpoint with `content-type: application/json` and the loader token as a bearer
// credential. The runner reads only the body of the answer (any status) as
// {protocol, exportedHandlers?, error?: {code, message}}.

import { expect } from "vitest";
import { goStruct, RUNTIME_ABI_LOADER_PROTOCOL } from "../../src/core/index.ts";

export interface LoadModule {
  name: string;
  mediaType: string;
  bytes: Uint8Array;
}

/** The request body, byte for byte. `declaredHandlers` null is what Go writes for a nil slice. */
export function upstreamLoadBody(mainModule: string, declaredHandlers: readonly string[] | null, modules: readonly LoadModule[]): string {
  return goStruct([
    ["protocol", RUNTIME_ABI_LOADER_PROTOCOL],
    ["mainModule", mainModule],
    ["declaredHandlers", declaredHandlers === null ? null : [...declaredHandlers]],
    [
      "modules",
      modules.map((m) =>
        goStruct([
          ["name", m.name],
          ["mediaType", m.mediaType],
          ["contentBase64", Buffer.from(m.bytes).toString("base64")],
        ]),
      ),
    ],
  ]).text;
}

export interface LoadAnswer {
  status: number;
  contentType: string | null;
  body: unknown;
}

/** POSTs a body to the loader endpoint as the runner does, and reads the answer. */
export async function postLoad(endpoint: string, token: string, body: string): Promise<LoadAnswer> {
  const response = await fetch(endpoint, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body,
  });
  return { status: response.status, contentType: response.headers.get("content-type"), body: await response.json() };
}

/** The upstream fake runtime's answers: 200 with the exported set, 422 with one closed code. */
export function exported(handlers: string[]): { protocol: string; exportedHandlers: string[] } {
  return { protocol: RUNTIME_ABI_LOADER_PROTOCOL, exportedHandlers: handlers };
}

export function loadRefused(code: string): { protocol: string; error: { code: string; message: unknown } } {
  return { protocol: RUNTIME_ABI_LOADER_PROTOCOL, error: { code, message: expect.any(String) } };
}
