// The data `takoform get` writes: the Supported and DefaultCreates tables, the Terraform resource
// type that serves each Form line, and one codec per supported exact ref. The bundled set lives
// in registry/generated/index.gen.ts (one exported value, `takoformRegistry: GeneratedRegistry`);
// a project's is the JSON document <project>/.gen/takoform/registry.gen.json (readGeneratedRegistry).

import type { FormRef } from "../core/index.ts";
import type { FormCodec } from "./codec-types.ts";
import type { SupportedRef } from "./registry.ts";

/** Bumped when the shape below changes incompatibly; a loader refuses other versions. */
export const GENERATED_REGISTRY_FORMAT = 1;

/**
 * One Form line of a Terraform resource type: the type serves every supported definition of it.
 * A type appears once per line; an Edge family type has one line per Host API lane (the same
 * kind in each lane's group), and the line a new resource is created under is the negotiated
 * lane's (CodecTable.lineFor).
 */
export interface ResourceTypeEntry {
  /** `takoform_worker_version` */
  type: string;
  /** The Form line (FormRef apiVersion + kind). */
  apiVersion: string;
  kind: string;
  /** The generated construct class (`WorkerVersion`, `OtherEdgeKVNamespace`, `MeshService`). */
  className: string;
}

/** The registry document `takoform get` generates: every supported exact ref, the default creates and the resource types. */
export interface GeneratedRegistry {
  format: typeof GENERATED_REGISTRY_FORMAT;
  /** Every exact ref the set can read, update and delete, sorted. */
  supported: SupportedRef[];
  /** One exact ref per Form line that new resources are created under, sorted. */
  defaultCreates: FormRef[];
  /** Resource types' lines, sorted by type name (a type with several lines appears once per line). */
  types: ResourceTypeEntry[];
  /**
   * formRefKey(ref) → the codec of that exact definition; one per supported ref. The bundled
   * record's properties are getters that read the codec on first access (lazyCodecs): copy it
   * with mergeCodecRecords, not with a spread.
   */
  codecs: Readonly<Record<string, FormCodec>>;
}
