// The provider checks cron at plan time and the host at apply time, with separate parsers (the
// host shares no code path with the provider). A value one accepts and the other refuses would
// pass a plan and fail its apply, so this test holds the two to the same verdicts.
import { describe, expect, it } from "vitest";
import { cronProblem as providerVerdict } from "../../src/provider/validate/cron.ts";
import { cronProblem as hostVerdict } from "../../src/host/rules/edge/cron.ts";

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const ATOMS = ["*", "0", "1", "5", "7", "05", "12", "23", "24", "31", "32", "59", "60", "99", "100", "a"];

function randomField(rand: () => number): string {
  const terms: string[] = [];
  const count = 1 + Math.floor(rand() * 3);
  for (let i = 0; i < count; i++) {
    const pick = () => ATOMS[Math.floor(rand() * ATOMS.length)]!;
    let term = pick();
    if (term !== "*" && rand() < 0.4) term = `${term}-${pick()}`;
    if (rand() < 0.35) term = `${term}/${pick()}`;
    terms.push(term);
  }
  return terms.join(",");
}

describe("cron: provider and host parsers agree", () => {
  it("on 20,000 random five-field expressions", () => {
    const rand = seeded(20261129);
    let disagreements: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const expression = Array.from({ length: 5 }, () => randomField(rand)).join(" ");
      const p = providerVerdict(expression) === undefined;
      const h = hostVerdict(expression) === undefined;
      if (p !== h) disagreements.push(`${expression}: provider ${p ? "accepts" : "refuses"}, host ${h ? "accepts" : "refuses"}`);
    }
    disagreements = disagreements.slice(0, 10);
    expect(disagreements).toEqual([]);
  });

  it("on the named edge cases", () => {
    for (const expression of [
      "*/5 * * * *",
      "0 * * * *",
      "0 9-17 * * 1-5",
      "0 24 * * *",
      "5-1 * * * *",
      "*/0 * * * *",
      "0 0 32 * *",
      "0 0 * * 7",
      "5/2 * * * *",
      "*/59 * * * *",
      "*/60 * * * *",
      "05 * * * *",
    ]) {
      expect(providerVerdict(expression) === undefined, expression).toBe(hostVerdict(expression) === undefined);
    }
  });
});
