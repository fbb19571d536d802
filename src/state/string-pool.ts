// One copy of each short string a read of many records repeats. Every record of a large state
// carries the same Form group, kind, definition version, schema and package digests, space,
// type and condition texts, once in its columns and again in its attributes; parsed row by row,
// each is a fresh heap string. At 10,000 records such copies were about a fifth of the plan's
// heap (a heap snapshot: 20,000 copies of each digest alone, 88 bytes apiece), which the
// garbage collector then walks at every major collection. A pool lives for one read only.

/** Strings longer than this are taken to be one record's own (an encoded body, an output blob). */
const MAX_POOLED = 128;
/**
 * The pool stops growing at this many strings. What repeats across records is met in the first
 * few of them; past that, what is new is one record's own (its uid, name, timestamps), and
 * keeping it only grew a map of every such string (3.6% of a 100,000-resource plan's time).
 */
const MAX_STRINGS = 4096;

export class StringPool {
  readonly #strings = new Map<string, string>();

  /** The pool's copy of `value` (`value` itself the first time it is seen). */
  string<T extends string | null>(value: T): T {
    if (value === null || value.length > MAX_POOLED) return value;
    const kept = this.#strings.get(value);
    if (kept !== undefined) return kept as T;
    if (this.#strings.size < MAX_STRINGS) this.#strings.set(value, value);
    return value;
  }

  /** Replaces, in place, every short string inside a freshly parsed JSON value with the pool's copy. */
  value<T>(value: T): T {
    if (typeof value === "string") return this.string(value) as T;
    if (value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = this.value(value[i]);
      return value;
    }
    const object = value as Record<string, unknown>;
    for (const key in object) object[key] = this.value(object[key]);
    return value;
  }
}
