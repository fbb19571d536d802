// When a five-field UTC cron expression fires. The grammar is checked by the host's cron rule
// (rules/edge/cron.ts) before a trigger is ever stored; this file only expands a valid expression
// into the minutes, hours, days and months it names and walks the calendar forward.
//
// Day-of-month and day-of-week follow the classic cron reading: when both are restricted (neither
// is `*`), a day matches if EITHER matches; otherwise the restricted one decides.

import { cronProblem } from "../rules/edge/cron.ts";

interface Schedule {
  minutes: boolean[];
  hours: boolean[];
  days: boolean[];
  months: boolean[];
  weekdays: boolean[];
  domRestricted: boolean;
  dowRestricted: boolean;
}

const FIELDS = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12 },
  { min: 0, max: 6 },
] as const;

function expand(text: string, min: number, max: number): boolean[] {
  const set: boolean[] = new Array<boolean>(max + 1).fill(false);
  for (const term of text.split(",")) {
    const [range, stepText] = term.split("/") as [string, string | undefined];
    const step = stepText === undefined ? 1 : Number(stepText);
    let low = min;
    let high = max;
    if (range !== "*") {
      const [a, b] = range.split("-");
      low = Number(a);
      high = b === undefined ? low : Number(b);
    }
    for (let v = low; v <= high; v += step) set[v] = true;
  }
  return set;
}

export function parseSchedule(expression: string): Schedule {
  const problem = cronProblem(expression);
  if (problem !== undefined) throw new Error(`not a schedule: ${problem}`);
  const fields = expression.split(" ");
  const [minutes, hours, days, months, weekdays] = fields.map((f, i) => expand(f, FIELDS[i]!.min, FIELDS[i]!.max)) as [
    boolean[],
    boolean[],
    boolean[],
    boolean[],
    boolean[],
  ];
  return { minutes, hours, days, months, weekdays, domRestricted: fields[2] !== "*", dowRestricted: fields[4] !== "*" };
}

function dayMatches(s: Schedule, date: Date): boolean {
  if (!s.months[date.getUTCMonth() + 1]) return false;
  const dom = s.days[date.getUTCDate()] === true;
  const dow = s.weekdays[date.getUTCDay()] === true;
  if (s.domRestricted && s.dowRestricted) return dom || dow;
  return dom && dow;
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** The first instant strictly after `after` (epoch ms) at which the schedule fires, within 5 years. */
export function nextFire(schedule: Schedule, after: number): number | null {
  const start = Math.floor(after / MINUTE) * MINUTE + MINUTE;
  let day = Math.floor(start / DAY) * DAY;
  for (let i = 0; i < 366 * 5; i++, day += DAY) {
    const date = new Date(day);
    if (!dayMatches(schedule, date)) continue;
    for (let h = 0; h < 24; h++) {
      if (!schedule.hours[h]) continue;
      for (let m = 0; m < 60; m++) {
        if (!schedule.minutes[m]) continue;
        const at = day + h * 3_600_000 + m * MINUTE;
        if (at >= start) return at;
      }
    }
  }
  return null;
}
