// src/core — facts of the specification every layer states identically, and the primitives they
// share; no behaviour of its own. The host imports only this and forms (ARCHITECTURE §3).
//
//   protocol.ts     Host API vocabulary: error taxonomy, headers, wire shapes (the same on every lane)
//   artifact-kinds.ts the three artifact manifest kinds as data (entries, media policy, order, ceilings)
//   lanes.ts        the Host API lane table: each lane's paths, group version, Edge groups, packages
//   grammar.ts      the portable grammars (names, kinds, digests, uids, SpaceIDs)
//   bearer-token.ts what a bearer token must be before it is presented (and why: redaction)
//   control-characters.ts control characters in a path or a name, found and named by position
//   refs.ts         exact contract identities (FormRef, Interface and Binding refs) and their keys
//   values.ts       the Value model with first-class Unknown
//   json.ts         JSON values, and ordering by UTF-8 bytes
//   go-json.ts      Go-compatible JSON (encoding/json.Marshal byte for byte)
//   duration.ts     Go duration strings
//   private-file.ts files only their owner may read, written whole (saved plans)
//   import-id.ts    the import ID grammar (its members, shape and canonical text)
//   write-intent.ts the intent of a host write, as the engine records and the stores persist it
//   diagnostics/    the Diagnostic type, the collection, the one table of codes, the renderers
//   package-root.ts where the package lives on disk (imported alone by `takoform --version`)
//   canonical-json.ts RFC 8785 serialization (imported alone, not re-exported here: its
//                   dependency is ESM-only, and the authoring path loads this index as CommonJS)

export * from "./protocol.ts";
export * from "./artifact-kinds.ts";
export * from "./lanes.ts";
export * from "./grammar.ts";
export * from "./bearer-token.ts";
export * from "./control-characters.ts";
export * from "./private-file.ts";
export * from "./refs.ts";
export * from "./values.ts";
export * from "./json.ts";
export * from "./go-json.ts";
export * from "./duration.ts";
export * from "./import-id.ts";
export * from "./write-intent.ts";
export * from "./diagnostics/index.ts";
export * from "./package-root.ts";
