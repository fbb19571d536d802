// Host API vocabulary (reference takoform-host-api.md §0, §1, §3, §4): constants and the
// TypeScript shapes of the wire documents, the same on every lane (the wire protocol did not
// change between lanes; what names a lane is in ./lanes.ts). Facts only — no behaviour — so the
// host and the client can both name them without sharing a code path.

export const OPERATION_API_VERSION = "operations.takoform.com/v1alpha1";
export const SUPPORT_API_VERSION = "support.takoform.com/v1alpha1";
export const ARTIFACT_API_VERSION = "artifacts.takoform.com/v1alpha1";
export const INTERFACE_API_VERSION = "interfaces.takoform.com/v1alpha1";
export const BINDING_API_VERSION = "bindings.takoform.com/v1alpha1";
export const PACKAGE_API_VERSION = "packages.forms.takoform.com/v1alpha4";

export const HEADER = {
  authorization: "Authorization",
  idempotencyKey: "Idempotency-Key",
  expectedGeneration: "Takoform-Expected-Generation",
  ifMatch: "If-Match",
  ifNoneMatch: "If-None-Match",
  etag: "ETag",
  retryAfter: "Retry-After",
  conformanceProbe: "Takoform-Conformance-Probe",
} as const;

/**
 * This project's extension, not the Host API's (whose discovery document is closed and names no host):
 * response headers on discovery by which a host tells a client who it is and, from the
 * caller's own credential, which tenant the caller acts in. The embedded host sends both; a host
 * that sends neither is known by its origin. Both values are opaque; the tenant is
 * percent-encoded (RFC 3986 unreserved characters stay as they are).
 */
export const IDENTITY_HEADER = {
  hostId: "Takoform-Host-Id",
  tenant: "Takoform-Tenant",
} as const;

/** The seven discovery features a host must advertise as `true` (every lane). */
export const REQUIRED_FEATURES = [
  "service_forms",
  "exact_form_ref",
  "optimistic_concurrency",
  "idempotent_lifecycle",
  "operations",
  "artifact_upload",
  "support_profiles",
] as const;

/** The closed error taxonomy: code → HTTP status, and whether `retryable: true` is allowed. */
export const ERROR_CODES = {
  invalid_argument: { status: 400, retryable: false },
  unauthenticated: { status: 401, retryable: false },
  permission_denied: { status: 403, retryable: false },
  form_unknown: { status: 404, retryable: false },
  form_not_installed: { status: 409, retryable: false },
  form_unavailable: { status: 409, retryable: false },
  form_identity_conflict: { status: 409, retryable: false },
  resource_not_found: { status: 404, retryable: false },
  resource_busy: { status: 409, retryable: true },
  import_conflict: { status: 409, retryable: false },
  policy_denied: { status: 403, retryable: false },
  backend_unavailable: { status: 503, retryable: true },
  internal_error: { status: 500, retryable: false },
  rate_limited: { status: 429, retryable: true },
  deadline_exceeded: { status: 504, retryable: true },
  operation_cancelled: { status: 409, retryable: false },
  operation_not_found: { status: 404, retryable: false },
  dependency_in_use: { status: 409, retryable: false },
  deletion_protected: { status: 409, retryable: false },
  artifact_missing: { status: 404, retryable: false },
  artifact_invalid: { status: 400, retryable: false },
  unsupported_capability: { status: 422, retryable: false },
  migration_required: { status: 409, retryable: false },
  uid_mismatch: { status: 409, retryable: false },
  revision_conflict: { status: 412, retryable: false },
  generation_conflict: { status: 412, retryable: false },
} as const satisfies Record<string, { status: number; retryable: boolean }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_CODES, value);
}

export const CONDITION_TYPES = ["Ready", "Reconciling", "Degraded", "Drifted", "Blocked", "Deleting"] as const;
export const CONDITION_STATUSES = ["True", "False", "Unknown"] as const;
export const CONDITION_REASONS = [
  "Available",
  "Provisioning",
  "Reconciling",
  "Failed",
  "BackendUnavailable",
  "SpecDrift",
  "ExternalChange",
  "DependencyMissing",
  "DependencyInUse",
  "PolicyDenied",
  "UnsupportedCapability",
  "Deleting",
] as const;

export type ConditionType = (typeof CONDITION_TYPES)[number];
export type ConditionStatus = (typeof CONDITION_STATUSES)[number];
export type ConditionReason = (typeof CONDITION_REASONS)[number];

/** Operations a Form may declare in `lifecycleCapabilities` and a host may list on availability. */
export const LIFECYCLE_OPERATIONS = ["create", "read", "update", "delete", "import", "observe", "refresh"] as const;
export type LifecycleOperation = (typeof LIFECYCLE_OPERATIONS)[number];

/**
 * The manifest kind an artifact-backed Form's `manifestDigest` must name (reference v1beta1 §7.1).
 * A Form kind not listed here that carries only a manifest digest is backed by a WorkerBundle
 * manifest, as the first lane's only artifact-backed Form was.
 */
export const ARTIFACT_MANIFEST_KIND: Readonly<Record<string, WireArtifactManifest["kind"]>> = {
  WorkerBundle: "WorkerBundle",
  StaticAssetBundle: "StaticAssetBundle",
  SQLiteMigrationSet: "MigrationBundle",
};

export const ARTIFACT_MEDIA_TYPES = {
  loadable: ["application/javascript+module", "text/plain", "application/octet-stream", "application/wasm"],
  auxiliary: ["application/source-map+json"],
} as const;

// ---- wire document shapes (types only) ----

/** An exact Form identity: the whole of it names one definition (decision 0022). */
export interface FormRef {
  apiVersion: string;
  kind: string;
  definitionVersion: string;
  schemaDigest: string;
}

export interface WireFormReference {
  formRef: FormRef;
  packageDigest?: string;
}

export interface WireMetadata {
  name: string;
  space: string;
  uid?: string;
  generation?: string;
  revision?: string;
}

export interface WireCondition {
  type: ConditionType;
  status: ConditionStatus;
  reason: ConditionReason;
  hostReason?: string;
  message?: string;
  lastTransitionTime: string;
}

export interface WireStatus {
  observedGeneration: string;
  conditions: WireCondition[];
  observed?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

/** Body of validate, prepare, apply and import requests (the "core"). */
export interface WireResourceRequest {
  apiVersion: string;
  kind: string;
  form: WireFormReference;
  metadata: WireMetadata;
  spec: Record<string, unknown>;
}

export interface WireApplyRequest extends WireResourceRequest {
  review: { prepareDigest: string };
  expectedUid?: string;
  expectedGeneration?: string;
}

export interface WireImportRequest extends WireResourceRequest {
  nativeId: string;
}

export interface WireResource {
  apiVersion: string;
  kind: string;
  form: WireFormReference;
  metadata: Required<WireMetadata>;
  spec: Record<string, unknown>;
  status: WireStatus;
}

export interface WireOperation {
  apiVersion: typeof OPERATION_API_VERSION;
  kind: "Operation";
  id: string;
  done: boolean;
  target?: { uid?: string; manifestDigest?: string };
  metadata?: { phase?: string; progress?: number };
  result?: Record<string, unknown>;
  error?: { code: string; message: string; retryable: boolean; hostCode?: string };
}

export interface WireErrorEnvelope {
  error: {
    code: ErrorCode;
    message: string;
    requestId: string;
    retryable: boolean;
    hostCode?: string;
    details?: unknown;
  };
}

export interface WireDiscovery {
  api_versions: string[];
  features: Record<string, boolean>;
  endpoints: { api: string; artifacts?: string; operations?: string; support?: string; oidc_issuer?: string };
}

export interface WireFormAvailability {
  identity: WireFormReference;
  definitionKnown: boolean;
  installed: boolean;
  executable: boolean;
  activated: boolean;
  availableToPrincipal: boolean;
  operations: LifecycleOperation[];
  deprecated?: boolean;
}

export interface WirePrepareResponse {
  resource: WireResourceRequest;
  review: { prepareDigest: string; specDigest: string };
}

export interface WireValidateResponse {
  valid: boolean;
  diagnostics: { severity: "error" | "warning"; field?: string; message: string }[];
}

export interface WireArtifactManifest {
  apiVersion: typeof ARTIFACT_API_VERSION;
  kind: "WorkerBundle" | "StaticAssetBundle" | "MigrationBundle";
  mainModule?: string;
  modules?: { name: string; mediaType: string; size: number; digest: string }[];
  files?: { path: string; mediaType: string; size: number; digest: string }[];
}

export interface WireSupportProfile {
  apiVersion: typeof SUPPORT_API_VERSION;
  kind: "FormSupport" | "InterfaceSupport" | "BindingSupport";
  formRef?: FormRef;
  interfaceRef?: { apiVersion: string; name: string; version: string; schemaDigest: string };
  bindingRef?: { apiVersion: string; name: string; version: string; schemaDigest: string };
  operations?: LifecycleOperation[];
  supportedEnums?: Record<string, string[]>;
  supportedRanges?: Record<string, { minimum?: number | string; maximum?: number | string }>;
  supportedBindings?: string[];
  limits?: Record<string, number>;
}

// ---- the Module Worker runtime ABI (worker.runtime@1.0.0, conformance/runtime-abi-v1) ----

/** The handler vocabulary: the members of a main module's default export a host may invoke. */
export const RUNTIME_HANDLERS = ["fetch", "scheduled", "queue"] as const;
export type RuntimeHandler = (typeof RUNTIME_HANDLERS)[number];

/**
 * The wire protocol of the disposable adapter over a runtime's module loader that the
 * runtime-abi-v1 runner posts bundles to (the contract's `loaderProtocol.protocol`).
 */
export const RUNTIME_ABI_LOADER_PROTOCOL = "takoform.runtime-abi-loader@v1";

/** loadModule's closed error vocabulary. */
export const RUNTIME_LOAD_ERRORS = ["module_not_found", "unsupported_media_type", "module_syntax_error", "handler_not_exported"] as const;
export type RuntimeLoadError = (typeof RUNTIME_LOAD_ERRORS)[number];

/** The portable globals floor, by dotted path: every one exists in a conforming isolate. */
export const RUNTIME_GLOBALS_FLOOR = [
  "AbortController",
  "AbortSignal",
  "Headers",
  "ReadableStream",
  "Request",
  "Response",
  "TextDecoder",
  "TextEncoder",
  "URL",
  "URLSearchParams",
  "WritableStream",
  "clearInterval",
  "clearTimeout",
  "crypto.getRandomValues",
  "crypto.subtle.digest",
  "fetch",
  "setInterval",
  "setTimeout",
  "structuredClone",
] as const;

/**
 * A response the local runtime generates itself (not the worker) names why in this header. The
 * codes `handler_not_declared`, `request_too_large` and `backend_unavailable` are worker.runtime's
 * fetch errors; `uncaught` is its `handlerOutcome` for a handler that threw; `worker_not_found`
 * and `hostname_ambiguous` are this host's routing answers.
 */
export const RUNTIME_ERROR_HEADER = "Takoform-Runtime-Error";
export const RUNTIME_HOST_ANSWERS = {
  worker_not_found: 404,
  hostname_ambiguous: 421,
  handler_not_declared: 501,
  uncaught: 500,
  request_too_large: 413,
  backend_unavailable: 503,
  asset_not_found: 404,
  asset_path_invalid: 400,
} as const satisfies Record<string, number>;
export type RuntimeHostAnswer = keyof typeof RUNTIME_HOST_ANSWERS;
