// Terraform resource type names and construct class names for the Form lines of one
// generation set.
//
// - A line's type is `takoform_` + the snake_case words of its kind, and its class is the kind.
// - Upstream's one exception: ObjectBucket of an Edge Platform Family group is
//   `takoform_edge_object_bucket`.
// - Two groups in the set sharing a kind: the Edge Platform Family group keeps the plain name;
//   every other group's line is labelled with the first DNS label of its group:
//   `takoform_<label>_<snake(kind)>`, class `<Label><Kind>` (`takoform_other_edge_kv_namespace`,
//   `OtherEdgeKVNamespace`).
// - The bundled mesh family is always labelled (`takoform_mesh_service`, `MeshService`): its
//   kinds (`Service`, `Worker`, `Container`) read ambiguously beside the edge family's.
// - An explicit override (`--type-name GROUP/KIND=TYPE`) wins over all of the above.
// - One kind of the Edge Platform Family in several Host API lanes (one group per lane,
//   src/core/lanes.ts) is ONE resource type serving a line per lane: the Terraform type names
//   stay upstream's whatever lane a stack is deployed on.
// - Any name still shared by two lines is refused, asking for an override.

import { EDGE_FAMILY_GROUPS, groupKindKey, type GroupKind, laneOfGroup } from "../core/index.ts";
import { GenerateError } from "./errors.ts";
import { groupLabel, pascalFromWords, words } from "./naming.ts";

/** Groups of the Edge Platform Family: ours and upstream's, of every lane (src/core/lanes.ts). */
export { EDGE_FAMILY_GROUPS };

/** Groups whose lines are labelled even without a collision. */
export const ALWAYS_LABELLED_GROUPS: readonly string[] = ["mesh.takoform-cdk.dev/v1alpha1"];

/** Upstream's exceptions to `takoform_<snake(kind)>`, for Edge Platform Family groups. */
export const EDGE_TYPE_NAME_EXCEPTIONS: Readonly<Record<string, string>> = { ObjectBucket: "takoform_edge_object_bucket" };

/** Class names the runtime exports itself; a generated class may not take one. */
export const RESERVED_CLASS_NAMES: readonly string[] = ["TakoformProvider", "TakoformResource", "WorkerApp", "Construct"];

export const TYPE_NAME = /^takoform_[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/** Every naming problem of a generation set at once. */
export class TypeNameErrors extends Error {
  override name = "TypeNameErrors";
  constructor(readonly problems: GenerateError[]) {
    super(problems.map((p) => p.message).join("\n"));
  }
}

export interface LineToName extends GroupKind {
  /** kebab-case words of the kind (the default definition's slug). */
  slug: string;
}

export interface LineName {
  type: string;
  className: string;
}

/**
 * Names every line. `overrides` maps `<apiVersion>/<Kind>` to a type name. Throws a
 * GenerateError for a bad override, or TypeNameErrors with one problem per collision.
 */
export function nameLines(lines: readonly LineToName[], overrides: ReadonlyMap<string, string> = new Map()): Map<string, LineName> {
  const groupsByKind = new Map<string, Set<string>>();
  for (const line of lines) {
    const set = groupsByKind.get(line.kind) ?? new Set<string>();
    set.add(line.apiVersion);
    groupsByKind.set(line.kind, set);
  }
  const used = new Set(lines.map((l) => `${l.apiVersion}/${l.kind}`));
  for (const key of overrides.keys()) {
    if (!used.has(key)) throw new GenerateError("type-name", undefined, "", `--type-name names ${key}, which is not a Form line of this generation set`);
  }

  const named = new Map<string, LineName>();
  for (const line of lines) {
    const snake = line.slug.replace(/-/g, "_");
    const override = overrides.get(`${line.apiVersion}/${line.kind}`);
    let name: LineName;
    if (override !== undefined) {
      if (!TYPE_NAME.test(override)) {
        throw new GenerateError(
          "type-name",
          undefined,
          "",
          `--type-name ${line.apiVersion}/${line.kind}=${override}: a type name is takoform_ followed by lowercase words joined by _`,
        );
      }
      name = { type: override, className: pascalFromWords(override.slice("takoform_".length)) };
    } else {
      const edge = EDGE_FAMILY_GROUPS.includes(line.apiVersion);
      const shared = (groupsByKind.get(line.kind)?.size ?? 0) > 1;
      if (ALWAYS_LABELLED_GROUPS.includes(line.apiVersion) || (!edge && shared)) {
        const label = groupLabel(line.apiVersion);
        name = { type: `takoform_${words(label).join("_")}_${snake}`, className: `${pascalFromWords(label)}${line.kind}` };
      } else {
        const exception = edge ? EDGE_TYPE_NAME_EXCEPTIONS[line.kind] : undefined;
        name = { type: exception ?? `takoform_${snake}`, className: line.kind };
      }
    }
    named.set(groupKindKey(line), name);
  }

  const problems: GenerateError[] = [];
  const hint = "Name the line explicitly with --type-name <apiVersion>/<Kind>=takoform_<name>.";
  for (const [what, pick] of [
    ["type", (n: LineName) => n.type],
    ["class", (n: LineName) => n.className],
  ] as const) {
    const owners = new Map<string, string[]>();
    const sharers = new Map<string, LineToName[]>();
    for (const line of lines) {
      const value = pick(named.get(groupKindKey(line))!);
      owners.set(value, [...(owners.get(value) ?? []), `${line.apiVersion}/${line.kind}`]);
      sharers.set(value, [...(sharers.get(value) ?? []), line]);
    }
    for (const [value, who] of owners) {
      if (who.length > 1 && oneKindAcrossLanes(sharers.get(value)!)) continue;
      // A shared class name always comes with a shared type name; report the type once.
      if (who.length > 1 && what === "type")
        problems.push(new GenerateError("type-name", undefined, "", `type name ${value} is claimed by ${who.join(" and ")}. ${hint}`));
      if (who.length > 1 && what === "class" && !problems.some((p) => who.every((w) => p.detail.includes(w)))) {
        problems.push(new GenerateError("class-name", undefined, "", `class name ${value} is claimed by ${who.join(" and ")}. ${hint}`));
      }
      if (what === "class" && RESERVED_CLASS_NAMES.includes(value)) {
        problems.push(new GenerateError("class-name", undefined, "", `class name ${value} of ${who.join(", ")} is one the runtime exports itself. ${hint}`));
      }
    }
  }
  if (problems.length > 0) throw new TypeNameErrors(problems);
  return named;
}

/** Lines that are one Edge family kind, each in another Host API lane: one resource type. */
export function oneKindAcrossLanes(lines: readonly GroupKind[]): boolean {
  const lanes = lines.map((l) => laneOfGroup(l.apiVersion));
  return lanes.every((lane) => lane !== undefined) && new Set(lanes).size === lines.length && new Set(lines.map((l) => l.kind)).size === 1;
}
