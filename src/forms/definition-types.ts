// The Form Definition document model (form-definition v1alpha3 / v1beta1 meta-schema: the two
// are structurally identical).

import type { JsonValue } from "./digest.ts";
import type { Relation } from "./relations.ts";
import type { BindingRef, FormRef, InterfaceRef } from "../core/index.ts";
import type { JsonObject } from "./shape.ts";

export const ROLES = ["identity", "revision", "deployment", "attachment", "policy"] as const;
export type Role = (typeof ROLES)[number];

/** Every Form declares exactly these; `update` is added only where a field can change. */
export const BASE_CAPABILITIES = ["create", "read", "delete", "import", "observe"] as const;
export const ALL_CAPABILITIES = ["create", "read", "update", "delete", "import", "observe", "refresh"] as const;

export const FORM_DEFINITION_MEMBERS = [
  "apiVersion",
  "kind",
  "definitionVersion",
  "title",
  "description",
  "role",
  "desiredSchema",
  "observedSchema",
  "outputSchema",
  "immutableFields",
  "lifecycleCapabilities",
  "providedInterfaces",
  "acceptedBindings",
  "conformanceFixtures",
  "negativeConformanceFixtures",
] as const;

export const FORM_DEFINITION_REQUIRED = ["apiVersion", "kind", "definitionVersion", "title", "role", "desiredSchema", "lifecycleCapabilities"] as const;

export interface ConformanceFixture {
  name: string;
  desiredPath: string;
  observedPath?: string;
  outputPath?: string;
}

export type FixtureStage = "desired" | "observed" | "output";

export interface NegativeConformanceFixture {
  name: string;
  stage: FixtureStage;
  inputPath: string;
  expectedFailure: string;
}

export interface FormDefinition {
  apiVersion: string;
  kind: string;
  definitionVersion: string;
  title: string;
  description?: string;
  role: Role;
  desiredSchema: JsonObject;
  observedSchema?: JsonObject;
  outputSchema?: JsonObject;
  /** JSON pointers into the desired spec that never change after create. */
  immutableFields?: string[];
  lifecycleCapabilities: string[];
  providedInterfaces?: InterfaceRef[];
  acceptedBindings?: BindingRef[];
  conformanceFixtures?: ConformanceFixture[];
  negativeConformanceFixtures?: NegativeConformanceFixture[];
}

export interface FormModel {
  ref: FormRef;
  definition: FormDefinition;
  /** The parsed definition document; `ref.schemaDigest` is its canonical digest. */
  document: JsonValue;
  relations: Relation[];
  /** `lifecycleCapabilities` includes `update`. */
  declaresUpdate: boolean;
}
