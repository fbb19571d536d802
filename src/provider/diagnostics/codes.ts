// The provider's part of the one table of diagnostic codes (decision 0032, core/diagnostics):
// its own refusal codes, and one repair sentence for every host error code of the taxonomy (the
// same on every lane), contributed to core so every renderer gives the same one.

import { contributeHostRepairs, defineCodes, type ErrorCode } from "../../core/index.ts";

/** Provider refusal codes, `takoform.provider/<name>`. */
const providerCodes = defineCodes("provider", [
  "not-configured",
  "lane-unavailable",
  "host-connection-refused",
  "host-name-unresolved",
  "host-tls-failed",
  "host-unauthenticated",
  "host-permission-denied",
  "host-discovery-invalid",
  "host-disk-full",
  "immutable-revision-same-name",
  "revision-name-unresolved",
  "revision-owner-missing",
  "revision-owner-ignored",
  "state-form-ref-unsupported",
  "state-form-ref-missing",
  "state-form-ref-mismatch",
  "state-lane-mismatch",
  "import-id-invalid",
  "uid-mismatch",
  "relation-target-changed",
  "host-response-invalid",
  "host-support-unreadable",
  "host-does-not-support-form",
  "host-does-not-support-interface",
  "host-does-not-support-binding",
  "host-does-not-support-value",
  "host-limit-exceeded",
  "host-will-refuse",
  "attribute-unsupported",
  "attribute-type",
  "attribute-required",
  "attribute-read-only",
  "attribute-value-invalid",
  "local-file-unreadable",
  "artifact-authoring-invalid",
  "internal",
]);

export const PROVIDER_CODES = providerCodes.names;
export type ProviderCodeName = (typeof PROVIDER_CODES)[number];
export const providerCode = providerCodes.code;

/**
 * What an operator can do about each host answer. Every code of the closed taxonomy has exactly
 * one entry; the type makes a missing or extra code a compile error, and a test checks the keys
 * against the protocol table at run time as well.
 */
export const HOST_CODE_REPAIRS: Record<ErrorCode, string> = {
  invalid_argument:
    "The host refused the request as malformed or untrue about the resource it names; correct the configuration the message points at and run the plan again.",
  unauthenticated: "The host did not accept the credential; set a valid token in the provider block or TAKOFORM_TOKEN.",
  permission_denied: "The credential is valid but not allowed to do this; ask the host operator for the permission, or use a credential that has it.",
  form_unknown:
    "The host has no Form installed under this exact identity; install that definition on the host, or pin a provider build whose Form identity the host serves.",
  form_not_installed: "The host knows this Form but has not installed it; ask the host operator to install it before applying.",
  form_unavailable: "The host has this Form installed but is not offering it right now; ask the host operator to make it available, then re-run.",
  form_identity_conflict: "The host holds a conflicting definition for this Form identity; ask the host operator to resolve the conflicting installation.",
  resource_not_found:
    "The resource, or a resource it references, does not exist under this exact identity; create the missing resource first or correct the reference.",
  resource_busy: "The host is busy with this resource and marked the answer retryable: wait and re-run the same apply.",
  import_conflict:
    "Another resource in this tenant already claims that native identity, or this resource was adopted under a different one; import a different native identity or delete the current holder.",
  policy_denied: "A host policy forbids this change; change the configuration to comply with the policy, or ask the host operator for an exception.",
  backend_unavailable: "The host's backend is unavailable and marked the answer retryable: wait and re-run the same apply.",
  internal_error: "The host failed internally; re-run later, and report the request id to the host operator if it persists.",
  rate_limited: "The host is throttling requests and marked the answer retryable: wait and re-run the same apply, or lower --parallelism.",
  deadline_exceeded: "The host ran out of time and marked the answer retryable: re-run the same apply, or raise the resource timeout.",
  operation_cancelled: "The host operation was cancelled and committed nothing; re-run the apply to perform the change again.",
  operation_not_found: "The host no longer knows this operation (records expire); run a refresh, which reads the resource itself.",
  dependency_in_use: "Another resource still references this one; remove or repoint the referencing resource first, then delete this one.",
  deletion_protected: "A host policy protects this resource from deletion; lift the protection on the host before destroying it.",
  artifact_missing: "The host does not hold the artifact this resource names; upload the artifact (author the bundle from local files) and re-run.",
  artifact_invalid: "The host refused the artifact's contents; fix the manifest or module files the message names and re-run.",
  unsupported_capability:
    "The host cannot provide what this configuration needs; change the configuration to what the host supports, or use a host that offers the capability.",
  migration_required:
    "The host needs a migration before this change; apply the migration the message names (for an object moved to another Host API lane: `takoform state upgrade-lane`), then re-run.",
  uid_mismatch:
    "The resource was replaced by a different incarnation since it was read; refresh, then decide whether to import the new incarnation or delete it.",
  revision_conflict: "The resource's representation changed since it was read; refresh and re-run the plan.",
  generation_conflict:
    "The resource's desired state changed since it was read, or the name is already taken; refresh and re-run the plan, or choose another name.",
};

/** Said of an answer that was not the closed error envelope. */
export const PROTOCOL_INVALID_REPAIR =
  "The host's answer was not the closed Host API error envelope, so the provider will not guess a remedy; check that the endpoint is a conforming Takoform host, then re-run.";

contributeHostRepairs({ byCode: HOST_CODE_REPAIRS, protocolInvalid: PROTOCOL_INVALID_REPAIR });
