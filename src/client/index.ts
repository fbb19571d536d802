// Public surface of the Host API client (every lane of src/core/lanes.ts).

export { HostClient, type HostClientOptions } from "./client.ts";
export { LaneShare } from "./lane-share.ts";
export type { CallOptions, RequestEvent } from "./connection.ts";
export { ConcurrencyLimiter, type ConcurrencyView, type LimiterSettings, type Permit, type Verdict } from "./limiter.ts";
export {
  AcceptedError,
  ClientInputError,
  DiscoveryError,
  FormUnavailableError,
  HostApiError,
  OperationDeadlineError,
  ProtocolInvalidError,
  ReplyMismatchError,
  TakoformClientError,
  TransportError,
  hostErrorOf,
  isOperationNotFound,
  isResourceNotFound,
  statusForCode,
} from "./errors.ts";
// Go-compatible JSON is core's (the provider and the generator use it too); re-exported for embedders.
export { goJson, goNumber, goString, goStruct, GoJsonFragment, GoJsonError, compareUtf8 } from "../core/index.ts";
export { mutationKey, incarnationKey, bodyDigestHex, uploadStartKey, commitKey, cancelKey, abandonKey } from "./keys.ts";
export {
  buildFilesManifest,
  buildWorkerBundleManifest,
  type ArtifactFile,
  type BuiltFilesManifest,
  type BundleModule,
  type BuiltManifest,
  type WorkerBundleManifest,
} from "./manifest.ts";
export type { ResourceRequest } from "./resource-reads.ts";
export type {
  ApplyFence,
  ApplyOptions,
  AvailabilityGate,
  DeleteResult,
  ImportRequest,
  IncarnationFence,
  IntentRequest,
  MutationOptions,
  ResourceResult,
  WriteIntentRecord,
} from "./resource-writes.ts";
export type { ResendExpectation } from "./resend.ts";
export type { FormAvailability, FormDefinitionDocument, PreparedResource, ValidationAnswer } from "./resource-shape.ts";
export type { UploadResult, ArtifactOptions } from "./artifacts.ts";
export {
  createNodeTransport,
  inProcessTransport,
  type HostTransport,
  type HostTransportRequest,
  type HostTransportResponse,
  type NodeTransport,
} from "./transport.ts";
export type { NegotiatedLane } from "./discovery.ts";
// Used by other modules.
export { isOutcomeUnknown, isReplyMismatch } from "./errors.ts";
export { verifyResourceEnvelope } from "./resource-shape.ts";
export { WireReader } from "./wire-reader.ts";
