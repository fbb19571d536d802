// src/secrets — the one owner of secrets at rest (issue 15 item 2). Sensitivity is a mark on a
// value (a change's `sensitivePaths`, an output's `sensitive`); the marks are stripped exactly once,
// where state or a plan file is written, by calling this module — and only this module touches
// sealed bytes:
//
//   seal.ts        keyed hashes (HMAC-SHA256 keyed by the state lineage) of sensitive values:
//                  sealing attributes for state, planned values for a plan file, comparing a seal
//                  with a value in hand
//   unseal.ts      a seal replaced by the configured (or answered) value it was made from
//   intent.ts      a write intent that carries secrets, encrypted with AES-256-GCM under a key
//                  derived from the sensitive variables' values
//   output.ts      a sensitive output's value encrypted beside its seal, under a key derived the
//                  same way, so `takoform output -raw/-json` can print it given those variables
//   credential.ts  the digest of a bearer token a state keeps instead of the token
//   mask.ts        what output shows in place of a secret
//
// Callers: the state writer (engine/apply/records.ts `stateInput`; execute.ts seals outputs before
// putOutputs — the stores seal nothing, they keep seals as opaque data), the
// plan-file writer (engine/plan/file.ts), the intent recorder and recovery (engine/apply), the
// planner's comparisons (refresh, plan, outputs) and the renderers (src/views).

export {
  digestMatches,
  holdsSeals,
  isSealedSensitive,
  sameAsStored,
  sealAttributes,
  sealDigest,
  sealedAttributePaths,
  sealedMatches,
  sealPlanned,
  sealSensitive,
  sensitiveValuesEqual,
  type SealedSensitive,
} from "./seal.ts";
export { unsealPrior, unsealShown } from "./unseal.ts";
export {
  INTENT_SEAL_VERSION,
  intentSecrets,
  isSealedIntent,
  openIntent,
  sealIntent,
  type IntentRefusal,
  type IntentSeal,
  type IntentSecrets,
  type SensitiveLookup,
  type StoredWriteIntent,
} from "./intent.ts";
export { openOutput, OUTPUT_SEAL_VERSION, outputVariables, sealOutput, type OutputCipher, type OutputRefusal } from "./output.ts";
export { credentialDigest } from "./credential.ts";
export { maskAt, SENSITIVE_VALUE, sealedPathsIn } from "./mask.ts";
