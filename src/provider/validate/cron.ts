// A five-field UTC cron expression: minute hour day-of-month month day-of-week. Each field is a
// comma-separated list of `*`, `*/step`, `n`, `a-b` or `a-b/step`, with numbers only (no names,
// no `?`, `L`, `W` or `#`). Ranges are minute 0–59, hour 0–23, day 1–31, month 1–12 and weekday
// 0–6 (Sunday is 0; 7 is refused). Numbers are one or two decimal digits (`05` is 5). A range
// must not run backwards, and a step runs 1..(max − min) of its field — the span the host's
// parser allows, so a value this check accepts is one the host accepts (`*/60` is refused).
// This is the provider's own parser: the host checks cron itself, and the two share no code.

const FIELDS = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12 },
  { name: "day of week", min: 0, max: 6 },
] as const;

const NUMBER = /^[0-9]{1,2}$/;

/** Why `expression` is not a valid cron expression, or undefined when it is. */
export function cronProblem(expression: string): string | undefined {
  if (expression.length > 64) return "a cron expression is at most 64 characters";
  const fields = expression.split(" ");
  if (fields.length !== 5 || fields.some((f) => f === "")) return "a cron expression has exactly five fields separated by single spaces";
  for (let i = 0; i < 5; i++) {
    const problem = fieldProblem(fields[i]!, FIELDS[i]!);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function fieldProblem(field: string, spec: (typeof FIELDS)[number]): string | undefined {
  for (const item of field.split(",")) {
    if (item === "") return `the ${spec.name} field has an empty list element`;
    const [base, step, extra] = item.split("/");
    if (extra !== undefined) return `the ${spec.name} element ${JSON.stringify(item)} has more than one step`;
    if (step !== undefined) {
      if (!NUMBER.test(step)) return `the ${spec.name} step in ${JSON.stringify(item)} is not a number`;
      const n = Number(step);
      if (n < 1 || n > spec.max - spec.min) return `the ${spec.name} step in ${JSON.stringify(item)} must be between 1 and ${spec.max - spec.min}`;
    }
    if (base === "*") continue;
    const [from, to, more] = base!.split("-");
    if (more !== undefined || from === undefined || !NUMBER.test(from) || (to !== undefined && !NUMBER.test(to))) {
      return `the ${spec.name} element ${JSON.stringify(item)} is not *, a number or a range`;
    }
    if (step !== undefined && to === undefined) return `the ${spec.name} element ${JSON.stringify(item)} steps a single value; use a range or *`;
    const a = Number(from);
    const b = to === undefined ? a : Number(to);
    for (const v of [a, b]) {
      if (v < spec.min || v > spec.max) return `the ${spec.name} value ${v} is outside ${spec.min}–${spec.max}`;
    }
    if (a > b) return `the ${spec.name} range ${from}-${to} runs backwards`;
  }
  return undefined;
}
