// Canonical hostnames (reference §5.7). A host compares hostnames in one spelling — ASCII,
// lowercase, no trailing dot — so a configuration that writes another spelling would plan a
// change against the host's echo forever. Internationalized names must be written as A-labels
// (`xn--…`); a U-label is refused rather than converted, because the conversion is not ours to pick.

/** The canonical spelling of an ASCII hostname: lowercase, without a trailing dot. */
export function canonicalHostname(hostname: string): string {
  const lower = hostname.toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}

export type HostnameProblem = { summary: "Invalid hostname" | "Hostname is not canonical"; detail: string };

export function hostnameProblem(attribute: string, hostname: string): HostnameProblem | undefined {
  if (/[^\x00-\x7f]/.test(hostname)) {
    return {
      summary: "Invalid hostname",
      detail: `${attribute} ${JSON.stringify(hostname)} contains non-ASCII characters; write an internationalized name as its A-label (xn--…).`,
    };
  }
  const canonical = canonicalHostname(hostname);
  if (canonical !== hostname) {
    return {
      summary: "Hostname is not canonical",
      detail: `${attribute} ${JSON.stringify(hostname)} must be written in its canonical spelling ${JSON.stringify(canonical)}: lowercase, without a trailing dot.`,
    };
  }
  return undefined;
}
