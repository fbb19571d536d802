// Reads one synthesized stack (cdk.tf.json, or any Terraform JSON file given with --config) into
// a StackConfig. Every problem becomes a diagnostic; the config is returned only when there is
// no error, so nothing downstream can plan from a half-understood stack.

import type { Diagnostic } from "../../core/index.ts";
import { readBackend } from "./blocks/backend.ts";
import { readImports } from "./blocks/imports.ts";
import { readOutputs } from "./blocks/outputs.ts";
import { readProvider } from "./blocks/provider.ts";
import { readMoved, readRemoved } from "./blocks/refactoring.ts";
import { readDataSources } from "./blocks/remote-state.ts";
import { readResources } from "./blocks/resources.ts";
import { readVariables } from "./blocks/variables.ts";
import { configCode, describeResource, isPlainObject, Problems } from "./diagnostics.ts";
import { checkRefactoring } from "./refactoring-rules.ts";
import { readInputBytes, readStrictJson } from "./strict-read.ts";
import { referencesOf, remoteReferencesOf, variablesOf } from "./expression/evaluate.ts";
import type { Expression, ReferenceExpr, StackConfig } from "./types.ts";

export interface LoadResult {
  /** null when any diagnostic is an error. */
  config: StackConfig | null;
  diagnostics: Diagnostic[];
}

const REFUSED_BLOCKS: Record<string, { detail: string; repair: string }> = {
  locals: {
    detail: "Local values are Terraform expressions evaluated by Terraform; takoform does not evaluate them.",
    repair: "Replace each TerraformLocal with a TypeScript constant.",
  },
  module: {
    detail: "Terraform modules are HCL the engine cannot load.",
    repair: "Compose resources with constructs (for example WorkerApp) instead of a Terraform module.",
  },
  check: {
    detail: "check blocks hold Terraform assertions, which takoform does not evaluate.",
    repair: "Assert in TypeScript or in tests instead.",
  },
};

/** Settings of the `terraform` block that have no meaning for takoform and are skipped silently. */
const IGNORED_TERRAFORM = new Set(["required_providers", "required_version"]);

export async function loadConfigFile(file: string): Promise<LoadResult> {
  const read = await readInputBytes(file, {
    noun: "configuration file",
    missingRepair: "Check the path given with --config (relative paths are read from the project directory), or run `takoform synth` to write the stack.",
    unreadableRepair: "Check that the path names a readable file.",
  });
  if (!read.ok) return { config: null, diagnostics: [read.diagnostic] };
  return loadStackConfig(read.bytes, { file });
}

/**
 * Loads a stack from its JSON text or bytes, read strictly (strict-read.ts), or from an already
 * parsed document (whose nesting the expression parser bounds in turn).
 */
export function loadStackConfig(source: unknown, options: { file?: string } = {}): LoadResult {
  const problems = new Problems();
  const where = options.file ?? "the configuration";
  let document: unknown = source;
  if (typeof source === "string" || source instanceof Uint8Array) {
    const read = readStrictJson(source, {
      what: where,
      repair: "Re-run the synthesis (`takoform synth`), or repair the file at the place named.",
      stack: true,
    });
    if (!read.ok) return { config: null, diagnostics: [read.diagnostic] };
    document = read.value;
  }
  if (!isPlainObject(document)) {
    problems.error({
      code: configCode("invalid-structure"),
      summary: `${where} is not a Terraform JSON object`,
      repair: "Give a cdk.tf.json produced by cdktf synthesis.",
    });
    return { config: null, diagnostics: problems.diagnostics };
  }

  const config: StackConfig = { resources: new Map(), outputs: new Map(), variables: new Map(), provider: null, imports: [], moved: [], removed: [] };
  if (options.file !== undefined) config.file = options.file;
  for (const [key, block] of Object.entries(document)) {
    switch (key) {
      case "//": {
        const metadata = isPlainObject(block) && isPlainObject(block.metadata) ? block.metadata : {};
        if (typeof metadata.stackName === "string") config.stackName = metadata.stackName;
        break;
      }
      case "resource":
        config.resources = readResources(block, problems);
        break;
      case "output":
        config.outputs = readOutputs(block, problems);
        break;
      case "variable":
        config.variables = readVariables(block, problems);
        break;
      case "provider":
        config.provider = readProvider(block, problems);
        break;
      case "import":
        config.imports = readImports(block, problems);
        break;
      case "moved":
        config.moved = readMoved(block, problems);
        break;
      case "removed":
        config.removed = readRemoved(block, problems);
        break;
      case "terraform":
        config.backend = readTerraformSettings(block, problems);
        break;
      case "data":
        config.remoteStates = readDataSources(block, problems);
        break;
      default: {
        const refused = REFUSED_BLOCKS[key];
        problems.error({
          code: configCode("unsupported-block"),
          summary: refused ? `\`${key}\` blocks are not supported` : `Unknown top-level block \`${key}\``,
          detail:
            refused?.detail ??
            "takoform reads resource, output, variable, provider, import, moved, removed, terraform and data (terraform_remote_state) blocks.",
          repair: refused?.repair ?? `Remove the ${key} block.`,
        });
      }
    }
  }
  checkReferences(config, problems);
  checkRefactoring(config, problems);
  const failed = problems.diagnostics.some((d) => d.severity === "error");
  return { config: failed ? null : config, diagnostics: problems.diagnostics };
}

/** Reads the `terraform` block: the backend, and a warning for each setting takoform does not use. */
function readTerraformSettings(block: unknown, problems: Problems): StackConfig["backend"] {
  if (!isPlainObject(block)) return null;
  let backend: StackConfig["backend"] = null;
  for (const key of Object.keys(block)) {
    if (key === "backend") {
      backend = readBackend(block[key], problems);
      continue;
    }
    if (IGNORED_TERRAFORM.has(key) || key === "//") continue;
    problems.warning({
      code: configCode("ignored-setting"),
      summary: `terraform.${key} is ignored`,
      detail:
        key === "cloud"
          ? "takoform keeps state in its own backends (the local file, or PostgreSQL with PgBackend), not in Terraform Cloud."
          : "takoform does not use this Terraform setting.",
      repair: `Remove terraform.${key} to silence this warning.`,
    });
  }
  return backend;
}

/** Every reference must name something declared, and no resource may refer to itself. */
function checkReferences(config: StackConfig, problems: Problems): void {
  const undeclared = (ref: ReferenceExpr, context: string, address?: string, attribute?: string) =>
    problems.error({
      code: configCode("undeclared-reference"),
      summary: `${context} refers to ${ref.address}, which is not declared`,
      detail: `The reference \${${ref.text}} names no resource of this stack.`,
      repair: "Declare the resource in the same stack, or fix the reference.",
      ...(address ? { address } : {}),
      ...(attribute ? { attribute } : {}),
    });
  const checkVariables = (expr: Expression, context: string, address?: string, attribute?: string) => {
    for (const ref of variablesOf(expr)) {
      if (config.variables.has(ref.name)) continue;
      problems.error({
        code: configCode("undeclared-reference"),
        summary: `${context} refers to the undeclared variable "${ref.name}"`,
        detail: `\${${ref.text}} names no variable of this stack.`,
        repair: `Declare it with new TerraformVariable(this, "${ref.name}", { … }).`,
        ...(address ? { address } : {}),
        ...(attribute ? { attribute } : {}),
      });
    }
    // Another stack's values: a declared terraform_remote_state, and only its outputs.
    for (const ref of remoteReferencesOf(expr)) {
      const at = { ...(address ? { address } : {}), ...(attribute ? { attribute } : {}) };
      if (!config.remoteStates?.has(ref.name)) {
        problems.error({
          code: configCode("undeclared-reference"),
          summary: `${context} refers to ${ref.address}, which is not declared`,
          detail: `\${${ref.text}} names no data.terraform_remote_state of this stack.`,
          repair: "Synthesize the stack with cdktf, which declares the data source of every cross-stack reference.",
          ...at,
        });
      } else if (ref.path[0] !== "outputs") {
        problems.error({
          code: configCode("unsupported-expression"),
          summary: `${context} reads ${ref.address}${ref.path.length > 0 ? `.${String(ref.path[0])}` : ""}`,
          detail: `\${${ref.text}}: of another stack's state takoform reads the outputs (${ref.address}.outputs.NAME), nothing else.`,
          repair: "Read an output of the other stack: pass a value of that stack to this one in the app, as a cross-stack reference.",
          ...at,
        });
      }
    }
  };

  for (const resource of config.resources.values()) {
    const where = describeResource(resource.address, resource.constructPath);
    const checkExpr = (expr: Expression, attribute: string, context: string) => {
      for (const ref of referencesOf(expr)) {
        if (ref.address === resource.address) {
          problems.error({
            code: configCode("self-reference"),
            summary: `${context} refers to the resource itself`,
            detail: `\${${ref.text}} in ${attribute}: a resource cannot depend on its own attributes.`,
            repair: "Remove the reference; a value the resource only learns after apply cannot configure it.",
            address: resource.address,
            attribute,
          });
        } else if (!config.resources.has(ref.address)) {
          undeclared(ref, context, resource.address, attribute);
        }
      }
      checkVariables(expr, context, resource.address, attribute);
    };
    for (const [attribute, expr] of Object.entries(resource.attributes)) checkExpr(expr, attribute, where);
    for (const contribution of resource.contributions) {
      const context = `The contribution from ${contribution.from} to ${where}`;
      if (contribution.from === resource.address) {
        problems.error({
          code: configCode("self-reference"),
          summary: `${where} contributes to itself`,
          detail: "A contribution comes from another construct.",
          repair: "Set the value in the resource's own configuration.",
          address: resource.address,
        });
      } else if (!config.resources.has(contribution.from)) {
        problems.error({
          code: configCode("undeclared-reference"),
          summary: `${context} names an undeclared source`,
          detail: `${contribution.from} is not a resource of this stack.`,
          repair: "Contribute from a resource of the same stack.",
          address: resource.address,
        });
      }
      for (const [attribute, expr] of Object.entries(contribution.values)) checkExpr(expr, attribute, context);
    }
    for (const ref of resource.lifecycle.replaceTriggeredBy) {
      checkExpr(ref, "lifecycle.replace_triggered_by", where);
    }
    for (const dependency of resource.dependsOn) {
      if (dependency === resource.address) {
        problems.error({
          code: configCode("self-reference"),
          summary: `${where} depends on itself`,
          repair: "Remove it from depends_on.",
          address: resource.address,
          attribute: "depends_on",
        });
      } else if (!config.resources.has(dependency)) {
        problems.error({
          code: configCode("undeclared-reference"),
          summary: `${where} depends on ${dependency}, which is not declared`,
          repair: "Fix or remove the depends_on entry.",
          address: resource.address,
          attribute: "depends_on",
        });
      }
    }
  }

  for (const output of config.outputs.values()) {
    const context = `output "${output.name}"`;
    for (const ref of referencesOf(output.value)) if (!config.resources.has(ref.address)) undeclared(ref, context);
    checkVariables(output.value, context);
    for (const dependency of output.dependsOn) {
      if (!config.resources.has(dependency)) {
        problems.error({
          code: configCode("undeclared-reference"),
          summary: `${context} depends on ${dependency}, which is not declared`,
          repair: "Fix or remove the depends_on entry.",
        });
      }
    }
  }

  if (config.provider) {
    for (const [key, expr] of Object.entries(config.provider)) checkVariables(expr as Expression, `The takoform provider's ${key}`);
  }

  const imported = new Set<string>();
  for (const entry of config.imports) {
    if (!config.resources.has(entry.to)) {
      problems.error({
        code: configCode("invalid-import"),
        summary: `An import targets ${entry.to}, which is not declared`,
        detail: "An import fills the state of a resource declared in the stack.",
        repair: "Declare the resource, then import into it.",
      });
    }
    if (imported.has(entry.to)) {
      problems.error({
        code: configCode("invalid-import"),
        summary: `${entry.to} is imported twice`,
        repair: "Keep one import per resource.",
        address: entry.to,
      });
    }
    imported.add(entry.to);
    checkVariables(entry.id, `The import into ${entry.to}`);
  }
}
