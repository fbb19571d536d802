// The stack document the generator edits: plain JSON, walked by resource, and written back to
// text with exact control over what JSON.stringify cannot say — a member given twice, raw
// number spellings, raw string bytes, nesting hundreds of levels deep.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface ResourceRef {
  type: string;
  name: string;
  address: string;
  body: JsonObject;
}

export function clone<T extends Json>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

export function isObject(value: Json | undefined): value is JsonObject {
  return value !== null && value !== undefined && typeof value === "object" && !Array.isArray(value);
}

/** Every resource of the document, in a stable order. */
export function resourcesOf(document: JsonObject): ResourceRef[] {
  const out: ResourceRef[] = [];
  const block = document["resource"];
  if (!isObject(block)) return out;
  for (const type of Object.keys(block).sort()) {
    const byName = block[type];
    if (!isObject(byName)) continue;
    for (const name of Object.keys(byName).sort()) {
      const body = byName[name];
      if (isObject(body)) out.push({ type, name, address: `${type}.${name}`, body });
    }
  }
  return out;
}

/**
 * Raw text standing in for a value: `raw(text)` returns a marker string to put in the document,
 * and `write` replaces the marker's quoted form with `text` verbatim.
 */
export class RawValues {
  private readonly texts: string[] = [];

  raw(text: string): string {
    this.texts.push(text);
    return `@@raw${this.texts.length - 1}@@`;
  }

  /** A member `key` repeated inside the object at `path` (JSON pointer tokens), with raw text. */
  readonly repeats: { path: string[]; key: string; text: string }[] = [];

  write(document: Json): string {
    let text = serialize(document, [], this.repeats);
    this.texts.forEach((raw, i) => {
      text = text.split(JSON.stringify(`@@raw${i}@@`)).join(raw);
    });
    return text;
  }
}

function serialize(value: Json, path: string[], repeats: readonly { path: string[]; key: string; text: string }[]): string {
  if (Array.isArray(value)) return `[${value.map((item, i) => serialize(item, [...path, String(i)], repeats)).join(",")}]`;
  if (isObject(value)) {
    const members = Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}:${serialize(item, [...path, key], repeats)}`);
    for (const repeat of repeats) {
      if (repeat.path.length === path.length && repeat.path.every((t, i) => t === path[i])) members.push(`${JSON.stringify(repeat.key)}:${repeat.text}`);
    }
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Every object in the document with its path, the document itself first. */
export function objectsOf(document: Json): { path: string[]; object: JsonObject }[] {
  const out: { path: string[]; object: JsonObject }[] = [];
  const walk = (value: Json, path: string[]) => {
    if (Array.isArray(value)) value.forEach((item, i) => walk(item, [...path, String(i)]));
    else if (isObject(value)) {
      out.push({ path, object: value });
      for (const [key, item] of Object.entries(value)) walk(item, [...path, key]);
    }
  };
  walk(document, []);
  return out;
}
