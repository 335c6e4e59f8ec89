/**
 * EventBridge Scheduler expressions, parsed here so the API refuses what AWS would refuse and the
 * local scheduler fires on the same instants AWS would:
 *
 *   rate(value unit)   unit minute(s) | hour(s) | day(s); every `value` units from when the schedule
 *                      was set (its anchor), the first one period after it
 *   cron(min hour day-of-month month day-of-week year)
 *                      six fields, `,` `-` `*` `/`; day-of-month or day-of-week must be `?`;
 *                      month JAN-DEC or 1-12, weekday SUN-SAT or 1-7 (1 = Sunday); `L` (last day,
 *                      or `5L` the last Thursday), `15W` (nearest weekday), `6#3` (third Friday)
 *   at(yyyy-mm-ddThh:mm:ss)   once
 *
 * cron and at are read in the schedule's time zone (IANA name, resolved with Intl).
 */
export type ScheduleExpression = { kind: "rate"; periodMs: number } | { kind: "at"; local: LocalTime } | { kind: "cron"; cron: CronFields };

export interface LocalTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

interface CronFields {
  minutes: Set<number>;
  hours: Set<number>;
  months: Set<number>;
  years: Set<number> | null;
  /** Day-of-month rule (null when `?`). */
  dom: DayOfMonthRule | null;
  /** Day-of-week rule (null when `?`). */
  dow: DayOfWeekRule | null;
}

type DayOfMonthRule = { kind: "set"; days: Set<number> } | { kind: "last" } | { kind: "last_weekday" } | { kind: "nearest_weekday"; day: number };
type DayOfWeekRule = { kind: "set"; days: Set<number> } | { kind: "last"; weekday: number } | { kind: "nth"; weekday: number; nth: number };

export class ScheduleExpressionError extends Error {}

const fail = (message: string): never => {
  throw new ScheduleExpressionError(message);
};

const RATE_UNITS: Record<string, number> = { minute: 60_000, minutes: 60_000, hour: 3_600_000, hours: 3_600_000, day: 86_400_000, days: 86_400_000 };
const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
const WEEKDAYS = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

export function parseScheduleExpression(text: string): ScheduleExpression {
  const m = /^(rate|cron|at)\((.*)\)$/.exec(text.trim());
  if (!m) return fail("expression must be rate(...), cron(...) or at(...)");
  const body = m[2]!.trim();
  if (m[1] === "rate") return parseRate(body);
  if (m[1] === "at") return parseAt(body);
  return { kind: "cron", cron: parseCron(body) };
}

function parseRate(body: string): ScheduleExpression {
  const m = /^(\d+)\s+([a-z]+)$/.exec(body);
  if (!m) return fail("rate(...) takes a whole number and a unit, e.g. rate(5 minutes)");
  const value = Number(m[1]);
  const unit = m[2]!;
  if (!(unit in RATE_UNITS)) return fail(`rate unit "${unit}" is not minute(s), hour(s) or day(s)`);
  if (value < 1) return fail("rate value must be at least 1");
  if (value === 1 && unit.endsWith("s")) return fail(`a rate of 1 takes the singular unit (${unit.slice(0, -1)})`);
  if (value > 1 && !unit.endsWith("s")) return fail(`a rate above 1 takes the plural unit (${unit}s)`);
  return { kind: "rate", periodMs: value * RATE_UNITS[unit]! };
}

function parseAt(body: string): ScheduleExpression {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/.exec(body);
  if (!m) return fail("at(...) takes yyyy-mm-ddThh:mm:ss");
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) {
    return fail(`at(${body}) is not a calendar time`);
  }
  return { kind: "at", local: { year, month, day, hour, minute, second } };
}

function parseCron(body: string): CronFields {
  const parts = body.split(/\s+/);
  if (parts.length !== 6) return fail(`cron(...) takes six fields (minutes hours day-of-month month day-of-week year); got ${parts.length}`);
  const [min, hour, dom, month, dow, year] = parts as [string, string, string, string, string, string];
  if ((dom === "?") === (dow === "?")) return fail("cron(...) needs ? in exactly one of day-of-month and day-of-week");
  return {
    minutes: parseSet(min, CRON_FIELDS.minutes),
    hours: parseSet(hour, CRON_FIELDS.hours),
    months: parseSet(month, CRON_FIELDS.month),
    years: year === "*" ? null : parseSet(year, CRON_FIELDS.year),
    dom: dom === "?" ? null : parseDayOfMonth(dom),
    dow: dow === "?" ? null : parseDayOfWeek(dow),
  };
}

function parseDayOfMonth(field: string): DayOfMonthRule {
  if (field === "L") return { kind: "last" };
  if (field === "LW") return { kind: "last_weekday" };
  const w = /^(\d{1,2})W$/.exec(field);
  if (w) {
    const day = Number(w[1]);
    if (day < 1 || day > 31) return fail(`day-of-month ${field} is out of 1-31`);
    return { kind: "nearest_weekday", day };
  }
  return { kind: "set", days: parseSet(field, CRON_FIELDS.dayOfMonth) };
}

function parseDayOfWeek(field: string): DayOfWeekRule {
  const last = /^(\w+)L$/.exec(field);
  if (last) return { kind: "last", weekday: parseValue(last[1]!, CRON_FIELDS.dayOfWeek) };
  const nth = /^(\w+)#(\d)$/.exec(field);
  if (nth) {
    const n = Number(nth[2]);
    if (n < 1 || n > 5) return fail(`day-of-week ${field}: the week number is 1-5`);
    return { kind: "nth", weekday: parseValue(nth[1]!, CRON_FIELDS.dayOfWeek), nth: n };
  }
  if (field === "L") return { kind: "set", days: new Set([7]) };
  return { kind: "set", days: parseSet(field, CRON_FIELDS.dayOfWeek) };
}

/** A cron field's range (`lo`-`hi`), its name in messages, and the names its values may go by (JAN…, SUN…). */
interface CronField {
  lo: number;
  hi: number;
  name: string;
  names?: string[];
}

const CRON_FIELDS = {
  minutes: { lo: 0, hi: 59, name: "minutes" },
  hours: { lo: 0, hi: 23, name: "hours" },
  dayOfMonth: { lo: 1, hi: 31, name: "day-of-month" },
  month: { lo: 1, hi: 12, name: "month", names: MONTHS },
  dayOfWeek: { lo: 1, hi: 7, name: "day-of-week", names: WEEKDAYS },
  year: { lo: 1970, hi: 2199, name: "year" },
} satisfies Record<string, CronField>;

function parseValue(token: string, { lo, hi, name, names }: CronField): number {
  const named = names?.indexOf(token.toUpperCase()) ?? -1;
  const value = named >= 0 ? named + lo : /^\d+$/.test(token) ? Number(token) : Number.NaN;
  if (!Number.isInteger(value) || value < lo || value > hi) return fail(`${name} value "${token}" is out of ${lo}-${hi}`);
  return value;
}

/** `*`, `a`, `a-b`, `a/step`, `*\/step`, `a-b/step`, and comma lists of them. */
function parseSet(text: string, cronField: CronField): Set<number> {
  const { lo, hi, name } = cronField;
  const out = new Set<number>();
  for (const item of text.split(",")) {
    const [range, stepText] = item.split("/") as [string, string | undefined];
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1) return fail(`${name}: step "${stepText}" must be a whole number of at least 1`);
    let from: number;
    let to: number;
    if (range === "*") [from, to] = [lo, hi];
    else if (range.includes("-")) {
      const [a, b] = range.split("-") as [string, string];
      [from, to] = [parseValue(a, cronField), parseValue(b, cronField)];
      if (from > to) return fail(`${name}: range ${range} runs backwards`);
    } else {
      from = parseValue(range, cronField);
      to = stepText === undefined ? from : hi;
    }
    for (let v = from; v <= to; v += step) out.add(v);
  }
  return out;
}

// Next fire ---------------------------------------------------------------------------------------

/**
 * The first instant after `afterMs` the expression fires, or null when it never will again (an `at`
 * in the past, a cron whose years are over). `anchorMs` is when a rate schedule was set.
 */
export function nextFireTime(
  expression: ScheduleExpression,
  { timezone, afterMs, anchorMs }: { timezone: string; afterMs: number; anchorMs: number },
): number | null {
  if (expression.kind === "rate") {
    const periods = Math.max(1, Math.floor((afterMs - anchorMs) / expression.periodMs) + 1);
    return anchorMs + periods * expression.periodMs;
  }
  if (expression.kind === "at") {
    const at = localToUtc(expression.local, timezone);
    return at > afterMs ? at : null;
  }
  return nextCronTime(expression.cron, timezone, afterMs);
}

function nextCronTime(cron: CronFields, timezone: string, afterMs: number): number | null {
  // Walk local calendar days from the day of `afterMs` (a day earlier covers any offset), testing the
  // day rules, then each hour and minute of a matching day in order.
  const start = utcToLocal(afterMs - 86_400_000, timezone);
  const hours = [...cron.hours].sort((a, b) => a - b);
  const minutes = [...cron.minutes].sort((a, b) => a - b);
  for (let year = start.year; year <= 2199; year++) {
    if (cron.years && !cron.years.has(year)) continue;
    for (let month = year === start.year ? start.month : 1; month <= 12; month++) {
      if (!cron.months.has(month)) continue;
      const firstDay = year === start.year && month === start.month ? start.day : 1;
      for (let day = firstDay; day <= daysInMonth(year, month); day++) {
        if (!dayMatches(cron, { year, month, day })) continue;
        for (const hour of hours) {
          for (const minute of minutes) {
            const at = localToUtc({ year, month, day, hour, minute, second: 0 }, timezone);
            if (at > afterMs) return at;
          }
        }
      }
    }
  }
  return null;
}

function dayMatches(cron: CronFields, { year, month, day }: { year: number; month: number; day: number }): boolean {
  const last = daysInMonth(year, month);
  const weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 1; // 1 = Sunday
  const dom = cron.dom;
  if (dom) {
    if (dom.kind === "set") return dom.days.has(day);
    if (dom.kind === "last") return day === last;
    const target = dom.kind === "last_weekday" ? last : Math.min(dom.day, last);
    return day === nearestWeekday(year, month, target);
  }
  const dow = cron.dow!;
  if (dow.kind === "set") return dow.days.has(weekday);
  if (dow.kind === "last") return weekday === dow.weekday && day + 7 > last;
  return weekday === dow.weekday && Math.ceil(day / 7) === dow.nth;
}

/** The weekday nearest to `day` within its month (a Saturday moves to Friday, a Sunday to Monday). */
function nearestWeekday(year: number, month: number, day: number): number {
  const weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
  const last = daysInMonth(year, month);
  if (weekday === 6) return day === 1 ? 3 : day - 1;
  if (weekday === 0) return day === last ? day - 2 : day + 1;
  return day;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

// Time zones --------------------------------------------------------------------------------------

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: timezone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timezone, f);
  }
  return f;
}

/** True for a time zone name Intl knows (IANA, e.g. Europe/Amsterdam, or UTC). */
export function isTimeZone(timezone: string): boolean {
  try {
    formatter(timezone);
    return true;
  } catch {
    return false;
  }
}

export function utcToLocal(ms: number, timezone: string): LocalTime {
  const parts: Record<string, number> = {};
  for (const p of formatter(timezone).formatToParts(new Date(ms))) if (p.type !== "literal") parts[p.type] = Number(p.value);
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour!, minute: parts.minute!, second: parts.second! };
}

const asUtc = (t: LocalTime) => Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);

/**
 * The instant a wall-clock time names in the zone. A time skipped by a daylight-saving jump comes out
 * shifted by the jump (02:30 on a spring-forward night is 03:30); a repeated one is its first instant.
 */
export function localToUtc(local: LocalTime, timezone: string): number {
  const wall = asUtc(local);
  const offsetAt = (ms: number) => asUtc(utcToLocal(ms, timezone)) - ms;
  // Offsets change at most once a day: the ones half a day either side bracket any change.
  const before = wall - offsetAt(wall - 43_200_000);
  const after = wall - offsetAt(wall + 43_200_000);
  const valid = [before, after].filter((t) => asUtc(utcToLocal(t, timezone)) === wall);
  return valid.length > 0 ? Math.min(...valid) : before;
}
