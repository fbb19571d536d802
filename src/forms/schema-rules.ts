// Portability rules for the schemas a Form Definition carries (desired, observed, output).
// ajv accepts any valid 2020-12 schema; a portable Form needs a narrower dialect that every
// host can validate identically, so these are checked before a definition is accepted:
//
// - no `$id`, `$anchor`, `$dynamicAnchor`, `$dynamicRef`, `$recursiveRef`, `$recursiveAnchor`,
//   `$vocabulary`, nested `$schema`, `patternProperties`, legacy `dependencies`, `content*`;
// - no boolean `true` schema anywhere a subschema is expected;
// - `$ref` only to `#/$defs/<name>` entries that exist, and no cycle among them;
// - an object schema is closed (`additionalProperties: false`) or a typed map whose
//   `propertyNames` carries `x-takoform-fieldPolicy: "portable-data-only-v1"`;
// - object keywords only on schemas whose `type` admits "object";
// - an array schema always declares `items`;
// - at most 64 levels deep and 4096 schema nodes.
//
// Not reproduced from the upstream proof: its worst-case validation-work estimate and its
// forbidden field-name list (neither is published as data).

import type { JsonValue } from "./digest.ts";
import { DefinitionError } from "./errors.ts";
import { unescapePointerToken } from "./pointer.ts";
import { child, hasOwn, isJsonObject, type JsonObject, type ShapeReader } from "./shape.ts";

export const SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema";
export const PORTABLE_FIELD_POLICY = "portable-data-only-v1";
const MAX_SCHEMA_DEPTH = 64;
const MAX_SCHEMA_NODES = 4096;

const FORBIDDEN = [
  "$id",
  "$anchor",
  "$dynamicAnchor",
  "$dynamicRef",
  "$recursiveRef",
  "$recursiveAnchor",
  "$vocabulary",
  "patternProperties",
  "dependencies",
  "contentEncoding",
  "contentMediaType",
  "contentSchema",
];
const OBJECT_KEYWORDS = [
  "properties",
  "required",
  "additionalProperties",
  "propertyNames",
  "minProperties",
  "maxProperties",
  "dependentRequired",
  "dependentSchemas",
  "unevaluatedProperties",
];
/** Keywords whose value is one subschema. */
const SINGLE = ["items", "additionalProperties", "propertyNames", "contains", "not", "if", "then", "else", "unevaluatedItems", "unevaluatedProperties"];
/** Keywords whose value is a list of subschemas. */
const LIST = ["allOf", "anyOf", "oneOf", "prefixItems"];
/** Keywords whose value maps names to subschemas. */
const MAP = ["properties", "$defs", "dependentSchemas"];

/** Checks one schema; `pointer` is where it sits in the definition (e.g. `/desiredSchema`). */
export function checkPortableSchema(schema: JsonValue, pointer: string, file?: string): void {
  const fail = (at: string, detail: string): never => {
    throw new DefinitionError("schema-not-portable", at, detail, { file });
  };
  if (!isJsonObject(schema)) fail(pointer, "a schema must be an object");
  const root = schema as JsonObject;
  const defs = isJsonObject(root.$defs) ? root.$defs : {};
  const refEdges = new Map<string, string[]>(); // $defs name → $defs names it references
  let nodes = 0;

  const visit = (node: JsonValue, at: string, depth: number, defName: string | null): void => {
    if (node === false) return;
    if (node === true) fail(at, "boolean true schema is not portable; state the constraint");
    if (!isJsonObject(node)) fail(at, "a subschema must be an object");
    const obj = node as JsonObject;
    if (++nodes > MAX_SCHEMA_NODES) fail(at, `schema has more than ${MAX_SCHEMA_NODES} nodes`);
    if (depth > MAX_SCHEMA_DEPTH) fail(at, `schema nested deeper than ${MAX_SCHEMA_DEPTH} levels`);
    for (const keyword of FORBIDDEN) {
      if (hasOwn(obj, keyword)) fail(child(at, keyword), `keyword ${keyword} is not portable`);
    }
    if (depth > 0 && hasOwn(obj, "$schema")) fail(child(at, "$schema"), "$schema is allowed only at the schema root");

    if (hasOwn(obj, "$ref")) {
      const ref = obj.$ref;
      const match = typeof ref === "string" ? /^#\/\$defs\/([^/]+)$/.exec(ref) : null;
      const target = match ? unescapePointerToken(match[1]!) : null;
      if (target === null || !hasOwn(defs, target)) {
        fail(child(at, "$ref"), `$ref must point at an existing #/$defs entry, not ${JSON.stringify(ref)}`);
      }
      if (defName !== null) refEdges.get(defName)!.push(target!);
    }

    const types = typeof obj.type === "string" ? [obj.type] : Array.isArray(obj.type) ? obj.type : [];
    const admitsObject = types.includes("object");
    if (admitsObject) {
      const additional = obj.additionalProperties;
      const names = obj.propertyNames;
      const typedMap = isJsonObject(additional) && isJsonObject(names) && names["x-takoform-fieldPolicy"] === PORTABLE_FIELD_POLICY;
      if (additional !== false && !typedMap) {
        fail(
          at,
          `an object schema must set additionalProperties: false, or be a typed map whose propertyNames carry x-takoform-fieldPolicy "${PORTABLE_FIELD_POLICY}"`,
        );
      }
    } else {
      for (const keyword of OBJECT_KEYWORDS) {
        if (hasOwn(obj, keyword)) fail(child(at, keyword), `${keyword} requires a type that admits "object"`);
      }
    }
    if (types.includes("array") && !hasOwn(obj, "items")) fail(at, "an array schema must declare items");

    for (const keyword of SINGLE) {
      if (hasOwn(obj, keyword)) {
        const sub = obj[keyword]!;
        // `additionalProperties: false` is the closed-object marker, not a subschema to walk.
        if (!(keyword === "additionalProperties" && sub === false)) visit(sub, child(at, keyword), depth + 1, defName);
      }
    }
    for (const keyword of LIST) {
      if (!hasOwn(obj, keyword)) continue;
      const list = obj[keyword];
      if (!Array.isArray(list)) fail(child(at, keyword), `${keyword} must be a list of schemas`);
      (list as JsonValue[]).forEach((sub, i) => visit(sub, child(child(at, keyword), i), depth + 1, defName));
    }
    for (const keyword of MAP) {
      if (!hasOwn(obj, keyword)) continue;
      if (keyword === "$defs" && depth > 0) fail(child(at, keyword), "$defs is allowed only at the schema root");
      const map = obj[keyword];
      if (!isJsonObject(map)) fail(child(at, keyword), `${keyword} must be an object`);
      for (const name of Object.keys(map as JsonObject)) {
        const inDef = keyword === "$defs" ? name : defName;
        if (keyword === "$defs") refEdges.set(name, []);
        visit((map as JsonObject)[name]!, child(child(at, keyword), name), depth + 1, inDef);
      }
    }
  };

  visit(root, pointer, 0, null);
  const cycle = findCycle(refEdges);
  if (cycle !== null) fail(child(child(pointer, "$defs"), cycle[0]!), `$ref cycle: ${cycle.join(" → ")}`);
}

/** A cycle among $defs references, as the list of names on it, or null. */
function findCycle(edges: Map<string, string[]>): string[] | null {
  const state = new Map<string, 1 | 2>(); // 1 = on the current path, 2 = finished
  const path: string[] = [];
  const dfs = (name: string): string[] | null => {
    state.set(name, 1);
    path.push(name);
    for (const next of edges.get(name) ?? []) {
      const s = state.get(next);
      if (s === 1) return [...path.slice(path.indexOf(next)), next];
      if (s === undefined) {
        const found = dfs(next);
        if (found !== null) return found;
      }
    }
    path.pop();
    state.set(name, 2);
    return null;
  };
  for (const name of edges.keys()) {
    if (!state.has(name)) {
      const found = dfs(name);
      if (found !== null) return found;
    }
  }
  return null;
}

/** A schema member must at least be an object declaring the 2020-12 dialect and a type. */
export function readSchemaHeader(r: ShapeReader, value: JsonValue | undefined, at: string): JsonObject {
  const schema = r.object(value, at, "a schema");
  if (!hasOwn(schema, "$schema")) r.fail("member-missing", child(at, "$schema"), "a schema must declare $schema");
  r.string(schema.$schema, child(at, "$schema"), { oneOf: [SCHEMA_DIALECT] });
  if (!hasOwn(schema, "type")) r.fail("member-missing", child(at, "type"), "a schema must declare type");
  return schema;
}
