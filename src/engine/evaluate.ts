// Evaluating one resource's configuration against the values known at this point of a plan or
// an apply: variables, and the planned (plan) or applied (apply) attributes of the resources it
// references. A reference to a value not known yet evaluates to UNKNOWN — never a placeholder.
//
// Contributions (RFC 0011) are merged here: a contributed list is appended to the resource's own
// list (in contribution order), a contributed value fills an attribute the resource left unset,
// and anything else is a conflict. The resource's own attributes alone are its placeholder.

import { type Attributes, type Diagnostic, isUnknown, UNKNOWN, type Value } from "../core/index.ts";
import { evaluate, EvaluationError, valueAtPath, variablesOf, type Resolver } from "./config/expression/evaluate.ts";
import type { Expression, ResourceConfig, StackConfig } from "./config/types.ts";
import type { ResolvedVariables } from "./config/variables/resolve.ts";
import type { AttributePath } from "../provider/index.ts";
import { engineCode } from "./codes.ts";
import { IDENTITY_ATTRIBUTES, SensitiveFlow } from "./sensitivity.ts";
import { isCrossStackOutput, remoteValue } from "./remote-state.ts";

/** The attributes of a resource as known now; undefined when it has none (not planned, failed). */
export type ResourceValues = (address: string) => Attributes | undefined;

export interface EvaluatedConfig {
  /** Own configuration plus merged contributions: what the resource is planned and applied with. */
  attributes: Attributes;
  /** Own configuration only: the RFC 0011 placeholder. */
  placeholder: Attributes;
  /** Top-level attributes a sensitive variable flows into (through references too, given the flow). */
  sensitivePaths: AttributePath[];
  diagnostics: Diagnostic[];
}

export function resolverFor(variables: ResolvedVariables, values: ResourceValues): Resolver {
  return (ref) => {
    if (ref.kind === "variable") return valueAtPath(variables.values.get(ref.name), ref.path);
    if (ref.kind === "data") return remoteValue(variables, ref);
    const attributes = values(ref.address);
    // A resource with no value yet (its plan failed or was skipped) makes the reference unknown;
    // the failure itself is reported on that resource.
    if (attributes === undefined) return UNKNOWN;
    return valueAtPath(attributes, ref.path);
  };
}

function evaluationError(resource: ResourceConfig, attribute: string, error: unknown): Diagnostic {
  const message = error instanceof Error ? error.message : String(error);
  return {
    severity: "error",
    code: engineCode("evaluation-failed"),
    summary: `Cannot evaluate ${attribute} of ${resource.address}`,
    detail: message,
    address: resource.address,
    resourceType: resource.type,
    attribute,
    repair:
      (error instanceof EvaluationError ? error.repair : undefined) ??
      "Fix the reference in the construct that sets this attribute; it must name an attribute the referenced resource has.",
  };
}

function usesSensitive(expr: Expression, variables: ResolvedVariables): boolean {
  if (variables.sensitive.size === 0) return false;
  return variablesOf(expr).some((ref) => variables.sensitive.has(ref.name));
}

/**
 * Evaluates a resource's configuration. With the stack's `SensitiveFlow`, an attribute that gets a
 * secret through a reference to another resource counts as sensitive too; without it, only
 * attributes that name a sensitive variable themselves do.
 */
/**
 * `collects` tells, from the resource type's schema, which attributes are lists that collect
 * contributions. Given (as the plan does), a second value for any other attribute is a conflict
 * even while both values are unknown; without it, only values known not to be lists conflict.
 */
export function evaluateResource(
  resource: ResourceConfig,
  variables: ResolvedVariables,
  values: ResourceValues,
  flow?: SensitiveFlow,
  collects?: (attribute: string) => boolean,
): EvaluatedConfig {
  const resolve = resolverFor(variables, values);
  const diagnostics: Diagnostic[] = [];
  const sensitive = new Set<string>();
  const placeholder: Attributes = {};
  for (const [attribute, expr] of Object.entries(resource.attributes)) {
    try {
      placeholder[attribute] = evaluate(expr, resolve);
    } catch (error) {
      if (!(error instanceof EvaluationError)) throw error;
      diagnostics.push(evaluationError(resource, attribute, error));
      placeholder[attribute] = UNKNOWN;
    }
    if (usesSensitive(expr, variables)) sensitive.add(attribute);
  }
  const attributes: Attributes = { ...placeholder };
  for (const contribution of resource.contributions) {
    for (const [attribute, expr] of Object.entries(contribution.values)) {
      let value: Value;
      try {
        value = evaluate(expr, resolve);
      } catch (error) {
        if (!(error instanceof EvaluationError)) throw error;
        diagnostics.push(evaluationError(resource, attribute, error));
        continue;
      }
      if (usesSensitive(expr, variables)) sensitive.add(attribute);
      const own = attributes[attribute];
      if (own === undefined || own === null) {
        attributes[attribute] = value;
      } else if ((collects === undefined || collects(attribute)) && (Array.isArray(own) || isUnknown(own)) && (Array.isArray(value) || isUnknown(value))) {
        attributes[attribute] = isUnknown(own) || isUnknown(value) ? UNKNOWN : [...own, ...value];
      } else {
        diagnostics.push({
          severity: "error",
          code: engineCode("contribution-conflict"),
          summary: `${contribution.from} contributes ${attribute} to ${resource.address}, which already sets it`,
          detail:
            "Only list attributes collect contributions; any other attribute takes one value, from the resource's own configuration or from one contribution.",
          address: resource.address,
          resourceType: resource.type,
          attribute,
          repair: `Set ${attribute} in one place only.`,
        });
      }
    }
  }
  if (flow !== undefined) for (const name of flow.attributes(resource.address).keys()) sensitive.add(name);
  // Identity attributes (name, space) are never treated as secrets (see IDENTITY_ATTRIBUTES).
  for (const name of IDENTITY_ATTRIBUTES) sensitive.delete(name);
  return { attributes, placeholder, sensitivePaths: [...sensitive].sort().map((name) => [name]), diagnostics };
}

/** Top-level attributes a sensitive variable flows into (own or contributed), without evaluating. */
export function sensitiveAttributes(resource: ResourceConfig, variables: ResolvedVariables, flow?: SensitiveFlow): AttributePath[] {
  const names = new Set<string>(flow?.attributes(resource.address).keys() ?? []);
  for (const [attribute, expr] of Object.entries(resource.attributes)) if (usesSensitive(expr, variables)) names.add(attribute);
  for (const contribution of resource.contributions) {
    for (const [attribute, expr] of Object.entries(contribution.values)) if (usesSensitive(expr, variables)) names.add(attribute);
  }
  for (const name of IDENTITY_ATTRIBUTES) names.delete(name);
  return [...names].sort().map((name) => [name]);
}

/**
 * An output's value as evaluated. `sensitive`: never shown. `sealed`: stored as a seal — a secret
 * flows into it, or the configuration marks it sensitive; an output cdktf wrote for a cross-stack
 * reference is marked sensitive by cdktf alone, and is stored in the clear unless a secret flows
 * into it, so the other stack can read it (remote-state.ts).
 */
export interface EvaluatedOutput {
  value: Value;
  sensitive: boolean;
  sealed: boolean;
  error?: Diagnostic;
}

/** Output values (those named in `only`, when given), evaluated against the known values (UNKNOWN where not known yet). */
export function evaluateOutputs(
  stack: StackConfig,
  variables: ResolvedVariables,
  values: ResourceValues,
  only: ReadonlySet<string> | null = null,
): Map<string, EvaluatedOutput> {
  const resolve = resolverFor(variables, values);
  const out = new Map<string, EvaluatedOutput>();
  const flow = SensitiveFlow.of(stack, variables);
  for (const output of stack.outputs.values()) {
    if (only !== null && !only.has(output.name)) continue;
    const secret = flow.output(output.name).length > 0;
    const sensitive = output.sensitive || secret;
    const sealed = secret || (output.sensitive && !isCrossStackOutput(output.name));
    try {
      out.set(output.name, { value: evaluate(output.value, resolve), sensitive, sealed });
    } catch (error) {
      if (!(error instanceof EvaluationError)) throw error;
      out.set(output.name, {
        value: UNKNOWN,
        sensitive,
        sealed,
        error: {
          severity: "error",
          code: engineCode("evaluation-failed"),
          summary: `Cannot evaluate output "${output.name}"`,
          detail: error.message,
          repair: error.repair ?? "Fix the output's value in the app; it must name an attribute the referenced resource has.",
        },
      });
    }
  }
  return out;
}
