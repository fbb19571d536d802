// The Terraform-style schema of a resource type: the attributes its Form line's codecs project to
// (type-schema.ts derives it). The provider serves it, the engine plans with it, the generator
// writes constructs from it.

import type { KnownValue } from "../core/index.ts";

export type AttributeMode = "required" | "optional" | "computed" | "optional-computed";

export type AttributeType =
  | { kind: "string"; enum?: readonly string[] }
  | { kind: "number"; integer: boolean; minimum?: number; maximum?: number }
  | { kind: "bool" }
  | { kind: "json" } // a string holding one JSON document (`vars_json`, `outputs_json`)
  | { kind: "list"; element: AttributeType; minItems?: number; maxItems?: number }
  | { kind: "set"; element: AttributeType; minItems?: number; maxItems?: number }
  | { kind: "object"; attributes: Record<string, AttributeSchema> };

export interface AttributeSchema {
  mode: AttributeMode;
  type: AttributeType;
  /** A change to this attribute plans a replacement (RequiresReplace). */
  forceNew: boolean;
  /** Never shown in plan output or logs. Only the provider `token` is sensitive today. */
  sensitive?: boolean;
  /** Static default applied when configuration leaves an optional attribute null. */
  default?: KnownValue;
  /** A computed value keeps its prior value across plans instead of becoming unknown. */
  useStateForUnknown?: boolean;
  description?: string;
}

/** One Terraform resource type the provider serves — one Form line (group + kind). */
export interface ResourceTypeSchema {
  /** `takoform_worker_bundle` */
  type: string;
  /** The Form line: FormRef apiVersion + kind. */
  apiVersion: string;
  kind: string;
  role: "identity" | "revision" | "deployment" | "attachment" | "policy";
  declaresUpdate: boolean;
  attributes: Record<string, AttributeSchema>;
  /**
   * Optional attributes whose contributed values may be dropped to start the resource as a
   * placeholder (RFC 0011 rule 3): optional in the desiredSchema and the Form declares update.
   */
  placeholderEligible: readonly string[];
}
