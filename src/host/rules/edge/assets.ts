// WorkerVersion.assets (reference v1beta1 §8.6, §8.7, §13 items 9–10): an optional attachment of
// one StaticAssetBundle. Its `/assets/bundle` relation is resolved and UID-pinned like any other
// by the gauntlet (an absent `assets` is no relation at all, never a missing target). What a
// schema cannot state is checked here, at apply, import and commit, before any mutation:
//
//   the bundle's manifest resolves in the caller's tenant as a StaticAssetBundle manifest
//                                                        artifact_missing / artifact_invalid
//   notFoundHandling single_page_application needs `index.html` in that exact manifest
//                                                        invalid_argument

import { invalidArgument } from "../../errors.ts";
import type { JsonObject } from "../../../forms/index.ts";
import type { MutationContext, RuleHost } from "../types.ts";
import { requireManifest } from "./bundle.ts";
import { KIND, RELATION, describe } from "./family.ts";

/** The file an SPA fallback serves for a valid path the bundle does not hold. */
export const SPA_INDEX = "index.html";

export const SPA = "single_page_application";

export function checkAssets(host: RuleHost, ctx: MutationContext): void {
  const assets = ctx.spec.assets;
  if (assets === null || typeof assets !== "object" || Array.isArray(assets)) return;
  const target = ctx.targets.find((t) => t.instance.relation.pointer === RELATION.assetsBundle);
  // The gauntlet resolved every relation instance before the rules run; without one there is nothing to open.
  if (target === undefined) return;
  const digest = ctx.view.specOf(target.resource).manifestDigest;
  const subject = `WorkerVersion "${ctx.name}": /assets/bundle ${describe(target.resource)}`;
  if (typeof digest !== "string") throw invalidArgument(`${subject} names no manifest`, { hostCode: "assets_manifest_missing" });
  const manifest = requireManifest(ctx.view, host.artifacts, digest, KIND.assets, subject);
  if ((assets as JsonObject).notFoundHandling !== SPA) return;
  if ((manifest.files ?? []).some((f) => f.path === SPA_INDEX)) return;
  throw invalidArgument(
    `${subject}: notFoundHandling ${SPA} serves ${SPA_INDEX} for a path the bundle does not hold, but manifest ${digest} has no ${SPA_INDEX}; ` +
      `add ${SPA_INDEX} to the bundle, or use notFoundHandling none`,
    { hostCode: "spa_index_missing" },
  );
}
