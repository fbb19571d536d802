// Go duration strings ("20m", "400ms", "1h30m"), parsed as Go's time.ParseDuration parses them:
// operation timeouts, --lock-timeout, TAKOFORM_LOCK_LEASE.

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  "\u00b5s": 1e-3,
  "\u03bcs": 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Go's longest duration, (2^63-1) ns, in milliseconds; ParseDuration refuses anything longer. */
export const MAX_GO_DURATION_MS = 9_223_372_036_854.775;

const COMPONENT = /^([0-9]*)(?:\.([0-9]*))?(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/u;

/**
 * Milliseconds of a Go duration string, or undefined when it is not one or overflows Go's
 * duration (about 2562047h), as time.ParseDuration refuses it. Negative and zero parse.
 */
export function parseGoDuration(text: string): number | undefined {
  let rest = text;
  let sign = 1;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    sign = rest.startsWith("-") ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") return undefined;
  let total = 0;
  while (rest !== "") {
    const m = COMPONENT.exec(rest);
    if (m === null) return undefined;
    const [whole, intPart = "", fracPart] = m;
    if (intPart === "" && (fracPart === undefined || fracPart === "")) return undefined;
    const value = Number(`${intPart === "" ? "0" : intPart}.${fracPart ?? "0"}`);
    total += value * UNIT_MS[m[3]!]!;
    rest = rest.slice(whole.length);
  }
  if (!(total <= MAX_GO_DURATION_MS)) return undefined;
  return sign * total;
}
