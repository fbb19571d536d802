// The portable five-field UTC cron grammar, parsed rather than pattern-matched: minute 0–59,
// hour 0–23, day-of-month 1–31, month 1–12, day-of-week 0–6 (0 is Sunday; no 7 alias, no
// names). A field is a comma list of terms: `*`, `*/step`, `n`, `a-b`, `a-b/step`. Numbers are
// one or two decimal digits. A range never runs backwards; a step is 1..(max − min) of its field
// (the reference parser's span, so `*/0` and `*/60` in the minute field are refused); a step on
// a single value (`5/2`) is refused because implementations disagree on what it means.

interface Field {
  name: string;
  min: number;
  max: number;
}

const FIELDS: readonly Field[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day-of-month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12 },
  { name: "day-of-week", min: 0, max: 6 },
];

const DIGITS = /^[0-9]{1,2}$/;

/** Why `expression` is not a schedule, or undefined when it is one. */
export function cronProblem(expression: string): string | undefined {
  const fields = expression.split(" ");
  if (fields.length !== FIELDS.length) {
    return `a cron expression has exactly 5 fields separated by single spaces (minute hour day-of-month month day-of-week); got ${fields.length}`;
  }
  for (let i = 0; i < FIELDS.length; i++) {
    const field = FIELDS[i]!;
    const text = fields[i]!;
    if (text === "") return `the ${field.name} field is empty`;
    for (const term of text.split(",")) {
      const problem = termProblem(field, term);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

function termProblem(field: Field, term: string): string | undefined {
  if (term === "") return `the ${field.name} field has an empty term`;
  const slash = term.indexOf("/");
  const body = slash < 0 ? term : term.slice(0, slash);
  if (slash >= 0) {
    const stepText = term.slice(slash + 1);
    if (!DIGITS.test(stepText)) return `the ${field.name} step in "${term}" is not one or two decimal digits`;
    const step = Number(stepText);
    const span = field.max - field.min;
    if (step < 1 || step > span)
      return `the ${field.name} step in "${term}" is out of range; a step is 1-${span} for ${field.name} (${field.min}-${field.max})`;
  }
  if (body === "*") return undefined;
  const dash = body.indexOf("-");
  if (dash < 0) {
    if (slash >= 0)
      return `the ${field.name} term "${term}" puts a step on a single value; a step applies to * or to a range such as ${field.min}-${field.max}`;
    return valueProblem(field, body, term);
  }
  const lowText = body.slice(0, dash);
  const highText = body.slice(dash + 1);
  const problem = valueProblem(field, lowText, term) ?? valueProblem(field, highText, term);
  if (problem !== undefined) return problem;
  if (Number(lowText) > Number(highText)) return `the ${field.name} range "${body}" is inverted; a range runs from the lower value to the higher one`;
  return undefined;
}

function valueProblem(field: Field, text: string, term: string): string | undefined {
  if (!DIGITS.test(text)) return `the ${field.name} term "${term}" is not *, a number or a range of numbers`;
  const value = Number(text);
  if (value < field.min || value > field.max) return `the ${field.name} value ${text} is out of range; ${field.name} is ${field.min}-${field.max}`;
  return undefined;
}
