// The human plan is written in pieces as it is rendered (views/plan-sink.ts), never as one string:
// whatever the lines, the pieces joined are exactly `lines.join("\n")`, with the trailing newlines
// dropped when asked, and no piece is much over 64 KB.

import { describe, expect, it } from "vitest";
import { PlanSink } from "../../src/views/plan-sink.ts";

function streamed(batches: string[][], trimEnd: boolean): { text: string; pieces: string[] } {
  const pieces: string[] = [];
  const sink = new PlanSink((text) => pieces.push(text));
  for (const batch of batches) sink.push(...batch);
  sink.end(trimEnd);
  return { text: pieces.join(""), pieces };
}

describe("PlanSink", () => {
  it("writes what the lines joined with newlines make, in pieces of about 64 KB", () => {
    const block = '  + name = "r"\n'.repeat(40);
    const batches = Array.from({ length: 3000 }, (_, i) => (i % 7 === 0 ? [block, ""] : [`# r${i} will be created`, block.trimEnd()]));
    const joined = batches.flat().join("\n");
    const { text, pieces } = streamed(batches, false);
    expect(text).toBe(joined);
    expect(pieces.length).toBeGreaterThan(20);
    for (const piece of pieces.slice(0, -1)) expect(piece.length).toBeLessThan(64 * 1024 + block.length + 100);
  });

  it("drops the trailing newlines at the end even when they were pushed before a piece was written", () => {
    const big = "x".repeat(70 * 1024);
    for (const batches of [[["a", "", ""]], [[big, "", ""], [""]], [[big], ["", ""]], [["", ""]], [[big, "\n\n"]]]) {
      expect(streamed(batches, true).text).toBe(batches.flat().join("\n").replace(/\n+$/, ""));
      expect(streamed(batches, false).text).toBe(batches.flat().join("\n"));
    }
  });
});
