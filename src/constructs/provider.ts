// The `takoform` provider block. The engine reads `provider.takoform` for endpoint, space, token
// and lane (falling back to TAKOFORM_ENDPOINT / TAKOFORM_SPACE / TAKOFORM_TOKEN / TAKOFORM_LANE);
// with no endpoint it runs the embedded local host.
//
// The token is sensitive: a literal written here lands in cdk.tf.json, so a literal token gets a
// synth warning. Pass a sensitive TerraformVariable's value, or leave it out and set TAKOFORM_TOKEN.

import { Annotations, assertSameLibrary, TerraformProvider, Token } from "./cdk.ts";
import type { Construct } from "constructs";

/** The registry address of the upstream provider whose resource types and attributes this project mirrors. */
export const TAKOFORM_PROVIDER_SOURCE = "tako0614/takoform";

/** The `takoform` provider block: endpoint, space, token and lane (each else its `TAKOFORM_*` variable). */
export interface TakoformProviderConfig {
  /** Host API endpoint (an origin; discovery at `/.well-known/takoform/<lane>`). Absent: the embedded local host. */
  readonly endpoint?: string;
  /** Default SpaceID for resources that set none. */
  readonly space?: string;
  /** Bearer token. Sensitive: prefer a sensitive variable or TAKOFORM_TOKEN over a literal. */
  readonly token?: string;
  /** Provider alias, for a second provider block. */
  readonly alias?: string;
  /**
   * Pins the Host API lane: `"v1beta1"` or `"v1alpha3"` (or its group version,
   * `forms.takoform.com/v1beta1`). Absent: the lane the state was written under is asked first,
   * then the newest the host offers (docs/client.md, lane negotiation).
   */
  readonly lane?: string;
}

/** The `takoform` provider block of a stack; with no endpoint the stack deploys to the embedded local host. */
export class TakoformProvider extends TerraformProvider {
  readonly #config: TakoformProviderConfig;
  #alias: string | undefined;

  constructor(scope: Construct, id: string, config: TakoformProviderConfig = {}) {
    assertSameLibrary(scope);
    super(scope, id, {
      terraformResourceType: "takoform",
      terraformProviderSource: TAKOFORM_PROVIDER_SOURCE,
      terraformGeneratorMetadata: { providerName: "takoform" },
    });
    this.#config = config;
    if (config.alias !== undefined) this.alias = config.alias;
    if (config.token !== undefined && !Token.isUnresolved(config.token)) {
      Annotations.of(this).addWarning(
        "The takoform provider token is a literal, so it is written into the synthesized stack. Pass a sensitive TerraformVariable or set TAKOFORM_TOKEN instead.",
      );
    }
  }

  override get alias(): string | undefined {
    return this.#alias;
  }
  override set alias(value: string | undefined) {
    this.#alias = value;
  }

  protected override synthesizeAttributes(): { [name: string]: any } {
    const out: Record<string, unknown> = { endpoint: this.#config.endpoint, space: this.#config.space, token: this.#config.token, lane: this.#config.lane };
    for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
    return out;
  }
}
