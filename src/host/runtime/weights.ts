// Which version of a deployment answers the next invocation: smooth weighted round-robin over
// the deployment's weights. It is deterministic and exact — over any run of 10000 invocations
// each version answers exactly its weight, and the versions are interleaved rather than served
// in blocks — so a test (or a developer) can predict the split. A production host may well
// choose randomly; both honour the weights.

export interface Weighted {
  versionUid: string;
  weight: number;
}

export class WeightedRoundRobin {
  /** Per deployment uid: the running credit of each version. */
  private readonly credits = new Map<string, { key: string; credit: Map<string, number> }>();

  pick(deploymentUid: string, versions: readonly Weighted[]): string | undefined {
    if (versions.length === 0) return undefined;
    if (versions.length === 1) return versions[0]!.versionUid;
    const key = versions.map((v) => `${v.versionUid}:${v.weight}`).join(",");
    let state = this.credits.get(deploymentUid);
    if (state === undefined || state.key !== key) {
      state = { key, credit: new Map() };
      this.credits.set(deploymentUid, state);
    }
    let total = 0;
    let best: Weighted | undefined;
    let bestCredit = -Infinity;
    for (const v of versions) {
      total += v.weight;
      const credit = (state.credit.get(v.versionUid) ?? 0) + v.weight;
      state.credit.set(v.versionUid, credit);
      if (credit > bestCredit) {
        best = v;
        bestCredit = credit;
      }
    }
    state.credit.set(best!.versionUid, bestCredit - total);
    return best!.versionUid;
  }

  /** Forgets deployments that no longer exist. */
  retain(deploymentUids: ReadonlySet<string>): void {
    for (const uid of this.credits.keys()) if (!deploymentUids.has(uid)) this.credits.delete(uid);
  }
}
