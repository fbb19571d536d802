// Worker traffic over node:http. The request head goes to the isolate at once and its body
// follows as it arrives (never read first); the response head is written the moment the worker
// returns its Response, and the body streams out as the worker produces it.
//
// Lengths: a body the worker produced completely at once goes out with its Content-Length;
// anything still being produced goes out chunked, with no length. A Content-Length the worker
// set is dropped (as are hop-by-hop headers): the host states only a length it knows, and never
// buffers a body to learn one. A request body above maxRequestBytes is refused 413 before the
// worker runs when its length is declared, and cut off (the body stream errors) when it is not.

import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { type Dispatcher, hostAnswer } from "./dispatch.ts";
import type { ResponseHead } from "./isolate.ts";
import { RuntimeFailure } from "./limits.ts";
import type { HeaderList } from "./wire.ts";

const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "content-length"]);

export function requestHeaders(raw: readonly string[]): HeaderList {
  const out: HeaderList = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (name === "connection" || name === "keep-alive" || name === "transfer-encoding" || name === "te" || name === "upgrade" || name === "proxy-connection")
      continue;
    out.push([name, raw[i + 1]!]);
  }
  return out;
}

function limited(source: ReadableStream<Uint8Array>, limit: number): ReadableStream<Uint8Array> {
  let seen = 0;
  return source.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > limit) throw new RuntimeFailure("request_too_large", `the request body exceeds ${limit} bytes`);
        controller.enqueue(chunk);
      },
    }),
  );
}

/** Writes a response head and body (a worker's, or one the host generated). */
export async function writeResponse(req: IncomingMessage, res: ServerResponse, response: ResponseHead): Promise<void> {
  const headers: string[] = [];
  for (const [name, value] of response.headers) if (!HOP_BY_HOP.has(name)) headers.push(name, value);
  const noBody = req.method === "HEAD" || response.status === 204 || response.status === 304 || (response.status >= 100 && response.status < 200);
  if (response.inline !== null || response.body === null) {
    const bytes = response.inline ?? new Uint8Array(0);
    if (response.status !== 204 && response.status !== 304) headers.push("content-length", String(bytes.byteLength));
    res.writeHead(response.status, headers);
    res.end(noBody ? undefined : bytes);
    return;
  }
  res.writeHead(response.status, headers);
  if (noBody) {
    await response.body.cancel().catch(() => undefined);
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  const gone = new Promise<void>((resolve) => res.once("close", resolve));
  let closed = false;
  void gone.then(() => {
    closed = true;
    if (!res.writableFinished) reader.cancel(new Error("the client went away")).catch(() => undefined);
  });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || closed) break;
      if (!res.write(value)) await Promise.race([new Promise((resolve) => res.once("drain", resolve)), gone]);
    }
    if (!closed) res.end();
  } catch {
    // The worker's body failed after the head went out: the only honest signal left is to cut
    // the connection, so the client sees an incomplete response rather than a complete one.
    res.destroy();
  }
}

export async function serveWorker(
  dispatcher: Dispatcher,
  maxRequestBytes: number,
  req: IncomingMessage,
  res: ServerResponse,
  workerUid: string,
  url: string,
): Promise<void> {
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > maxRequestBytes) {
    await writeResponse(req, res, hostAnswer(new RuntimeFailure("request_too_large", `the request body of ${declared} bytes exceeds ${maxRequestBytes}`)));
    req.destroy();
    return;
  }
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD" && (req.headers["transfer-encoding"] !== undefined || (declared !== undefined && Number(declared) > 0));
  const body = hasBody ? limited(Readable.toWeb(req) as ReadableStream<Uint8Array>, maxRequestBytes) : null;
  let response: ResponseHead;
  try {
    response = await dispatcher.serve(workerUid, { method, url, headers: requestHeaders(req.rawHeaders) }, body);
  } catch (error) {
    if (!(error instanceof RuntimeFailure)) throw error;
    response = hostAnswer(error);
  }
  await writeResponse(req, res, response);
}
