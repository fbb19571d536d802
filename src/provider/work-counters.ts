// Per-resource work the provider has done in this process, counted where it happens: how many
// specs it encoded and how many configurations it validated. Nothing reads them to decide
// anything; they let a test prove what a command does not do (a no-op plan encodes no spec and
// validates each configuration once), which timing could only suggest.

export interface ProviderWork {
  /** Specs encoded from attributes (codec/encode.ts), for a plan or a write. */
  specsEncoded: number;
  /** Configurations validated (validate/validate.ts). */
  configsValidated: number;
}

export const providerWork: ProviderWork = { specsEncoded: 0, configsValidated: 0 };
