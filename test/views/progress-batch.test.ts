// The progress printer writes the lines of one turn of the event loop in one write, a turn late,
// in the order they were made; flush and close write what is pending at once.
import { expect, it } from "vitest";
import { ProgressPrinter, progressLine } from "../../src/views/index.ts";
import type { ProgressEvent } from "../../src/engine/index.ts";

const start = (n: number): ProgressEvent => ({ kind: "start", stepId: `s${n}`, address: `takoform_edge_kv_namespace.r${n}`, action: "create" });
const done = (n: number): ProgressEvent => ({ kind: "done", stepId: `s${n}`, address: `takoform_edge_kv_namespace.r${n}`, action: "create", elapsedMs: 100 });
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

it("writes the lines of one turn together on the next turn, in order, with their own text", async () => {
  const writes: string[] = [];
  const printer = new ProgressPrinter((lines) => writes.push(lines), false);
  const events = [start(1), start(2), done(1)];
  for (const event of events) printer.sink(event);
  expect(writes).toEqual([]);
  await nextTurn();
  expect(writes).toEqual([events.map((event) => progressLine(event)).join("\n")]);
  printer.sink(done(2));
  await nextTurn();
  expect(writes).toHaveLength(2);
  expect(writes[1]).toBe(progressLine(done(2)));
  printer.close();
});

it("flush and close write what is pending at once, and nothing twice", async () => {
  const writes: string[] = [];
  const printer = new ProgressPrinter((lines) => writes.push(lines), false);
  printer.sink(start(1));
  printer.flush();
  expect(writes).toEqual([progressLine(start(1))]);
  printer.sink(done(1));
  printer.close();
  expect(writes).toEqual([progressLine(start(1)), progressLine(done(1))]);
  await nextTurn();
  expect(writes).toHaveLength(2);
  expect(process.listenerCount("exit")).toBeLessThan(10);
});
