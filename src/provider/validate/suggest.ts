// "Did you mean …?" for a misspelt attribute name, the way Terraform suggests one: the same name
// in another case first, else the closest name within an edit distance of two.

const MAX_DISTANCE = 2;

/** The candidate `name` most likely meant, or undefined when none is close. */
export function suggestName(name: string, candidates: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = MAX_DISTANCE + 1;
  for (const candidate of candidates) {
    if (candidate.toLowerCase() === lower) return candidate;
    // Two edits turn any two-letter name into any other: short names get fewer.
    const longest = Math.max(name.length, candidate.length);
    const limit = longest >= 4 ? MAX_DISTANCE : longest === 3 ? 1 : 0;
    if (Math.abs(candidate.length - name.length) > limit) continue;
    const distance = editDistance(name, candidate, limit);
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance, giving up (returning limit + 1) once every path exceeds `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(value);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length]!;
}
