// `data`: the one data source takoform reads, `terraform_remote_state` — another stack's outputs,
// read from that stack's state, as cdktf writes it for a cross-stack reference:
//
//   "data": { "terraform_remote_state": { "cross-stack-reference-input-shared": {
//     "backend": "local", "config": { "path": "<app>/terraform.shared.tfstate" },
//     "workspace": "${terraform.workspace}" } } }
//
// `backend` and `config` repeat the producer's backend block, so they are read as strictly as a
// `terraform.backend` is (backend.ts): `local` or `pg`, literal settings. `workspace` is a name, or
// cdktf's `${terraform.workspace}` (the consumer's own); absent, it is `default`, as in Terraform.
// Every other data source stays refused.

import type { KnownValue } from "../../../core/index.ts";
import { SUPPORTED_BACKENDS } from "../../../state/index.ts";
import { configCode, isPlainObject, type Problems } from "../diagnostics.ts";
import type { RemoteStateConfig } from "../types.ts";
import { readBackend } from "./backend.ts";

const MEMBERS = new Set(["backend", "config", "workspace", "defaults", "//"]);
const CURRENT_WORKSPACE = /^\$\{\s*terraform\.workspace\s*\}$/;

export const DATA_REFUSAL = {
  detail:
    "Data sources read external objects at plan time; takoform reads one kind only, terraform_remote_state (another stack's outputs, as cdktf's cross-stack references write it).",
  repair: "Reference a managed resource's attribute instead, or pass the value in as a variable.",
};

export function readDataSources(block: unknown, problems: Problems): Map<string, RemoteStateConfig> {
  const out = new Map<string, RemoteStateConfig>();
  if (!isPlainObject(block)) {
    problems.error({ code: configCode("invalid-structure"), summary: "`data` must be an object of data sources", repair: "Synthesize the stack with cdktf." });
    return out;
  }
  for (const [type, sources] of Object.entries(block)) {
    if (type !== "terraform_remote_state") {
      problems.error({ code: configCode("unsupported-block"), summary: `\`data.${type}\` data sources are not supported`, ...DATA_REFUSAL });
      continue;
    }
    if (!isPlainObject(sources)) {
      problems.error({
        code: configCode("invalid-structure"),
        summary: "`data.terraform_remote_state` must be an object of data sources",
        repair: "Synthesize the stack with cdktf.",
      });
      continue;
    }
    for (const [name, body] of Object.entries(sources)) {
      const read = readRemoteState(name, body, problems);
      if (read !== null) out.set(name, read);
    }
  }
  return out;
}

function readRemoteState(name: string, body: unknown, problems: Problems): RemoteStateConfig | null {
  const address = `data.terraform_remote_state.${name}`;
  const invalid = (summary: string, detail: string | undefined, repair: string, attribute?: string): null => {
    problems.error({
      code: configCode("remote-state-invalid"),
      summary,
      ...(detail !== undefined ? { detail } : {}),
      repair,
      address,
      ...(attribute !== undefined ? { attribute } : {}),
    });
    return null;
  };
  if (!isPlainObject(body)) return invalid(`${address} must be an object`, undefined, "Synthesize the stack with cdktf.");
  let ok = true;
  for (const key of Object.keys(body)) {
    if (MEMBERS.has(key)) continue;
    invalid(`${address} has the argument "${key}", which takoform does not read`, "It reads backend, config, workspace and defaults.", `Remove ${key}.`, key);
    ok = false;
  }
  const backend = body.backend;
  const supported = SUPPORTED_BACKENDS.map((t) => `"${t}"`).join(" and ");
  if (typeof backend !== "string" || !(SUPPORTED_BACKENDS as readonly string[]).includes(backend)) {
    return invalid(
      typeof backend === "string" ? `${address} reads a "${backend}" backend, which takoform does not support` : `${address} names no backend`,
      `Another stack's state is read where takoform keeps state: the backends ${supported}.`,
      "Give the producing stack a LocalBackend or a PgBackend (or none, for its own local state).",
      "backend",
    );
  }
  const settings = body.config ?? {};
  if (!isPlainObject(settings))
    return invalid(`${address}'s config must be an object of ${backend} settings`, undefined, "Synthesize the stack with cdktf.", "config");
  const config = readBackend({ [backend]: settings }, problems, () => `${address}.config`);
  let workspace: string | null = "default";
  if (body.workspace !== undefined) {
    if (typeof body.workspace !== "string")
      return invalid(`${address}'s workspace must be a string`, undefined, 'Name a workspace, or use "${terraform.workspace}".', "workspace");
    if (CURRENT_WORKSPACE.test(body.workspace)) workspace = null;
    else if (body.workspace.includes("${")) {
      return invalid(
        `${address}'s workspace refers to something other than terraform.workspace`,
        "The workspace read is a literal name, or the consumer's own workspace (${terraform.workspace}).",
        'Write the workspace literally, or as "${terraform.workspace}".',
        "workspace",
      );
    } else workspace = body.workspace;
  }
  const defaults = body.defaults ?? {};
  if (!isPlainObject(defaults))
    return invalid(`${address}'s defaults must be an object of output values`, undefined, "Give defaults as an object.", "defaults");
  if (Object.values(defaults).some((v) => typeof v === "string" && v.includes("${"))) {
    return invalid(`${address}'s defaults refer to something to evaluate`, "Defaults are literal values.", "Write the defaults literally.", "defaults");
  }
  if (config === null || !ok) return null;
  return { name, address, backend: config, workspace, defaults: defaults as Record<string, KnownValue> };
}
