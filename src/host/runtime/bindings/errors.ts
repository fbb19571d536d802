// A binding operation refused with one of its Interface's error codes (edge.kv, edge.queue,
// edge.objects, edge.sql, worker.service). The isolate rethrows it as an Error whose `code` is
// that code, so module code can branch on it.

export class BindingError extends Error {
  override name = "BindingError";
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function requireString(value: unknown, what: string, code: string, max: number): string {
  if (typeof value !== "string" || value.length === 0) throw new BindingError(code, `${what} must be a non-empty string`);
  if (Buffer.byteLength(value, "utf8") > max) throw new BindingError(code, `${what} is longer than ${max} bytes`);
  return value;
}

export function optionalInteger(value: unknown, what: string, min: number, max: number, code = "invalid_argument"): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max)
    throw new BindingError(code, `${what} must be an integer ${min}..${max}`);
  return value;
}

export function bytesArg(value: unknown, what: string, code: string): Uint8Array {
  if (value instanceof Uint8Array) return value;
  throw new BindingError(code, `${what} must be bytes`);
}
